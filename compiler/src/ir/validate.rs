//! An internal-consistency check of the core IR, run by the tests after every lowering.
//!
//! Checked:
//! * scope: every variable is bound once in the whole program and before its use; every dim names
//!   an `i64` variable in scope or bound earlier in the same pattern;
//! * types: each statement's pattern agrees with its expression's result types (ranks, element
//!   types, and dims where they are statically comparable: two constants must be equal, variables
//!   may be equal only at run time), SOAC lambda arities and types, `Apply` arities and types,
//!   loop parameters against initial values and body results, `If` branches against the result
//!   types, function bodies against their return types;
//! * entry points: the ABI of `ir::EntryPoint` (one `i64` per dimension of each array parameter,
//!   naming those dims, then the values);
//! * consumption: an array consumed by `Update`, `Scatter`, `Hist` (or by a call whose callee
//!   consumes that parameter) is not used afterwards, nor is any array that aliases it; a loop or
//!   lambda body consumes only arrays bound inside it (or its own parameters).

use std::collections::{HashMap, HashSet};

use super::print::var_name;
use super::*;

/// Check `prog`; the error names the function and statement where the first problem is.
pub fn validate(prog: &Program) -> Result<(), String> {
    let mut v = Validator {
        prog,
        bound: HashSet::new(),
        env: HashMap::new(),
        log: Vec::new(),
        consumed: HashSet::new(),
        level: 0,
        fun_state: vec![FunState::Todo; prog.funs.len()],
    };
    for i in 0..prog.funs.len() {
        v.fun(i)?;
    }
    for e in &prog.entries {
        v.entry(e).map_err(|m| format!("entry point `{}`: {m}", e.name))?;
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum FunState {
    Todo,
    InProgress,
    /// Validated; the indices of the parameters its body consumes.
    Done(Vec<usize>),
}

#[derive(Clone, Debug)]
struct Info {
    ty: Type,
    /// Loop/lambda nesting depth of the binding.
    level: u32,
    /// The arrays this variable may share memory with (itself for a fresh array).
    roots: Vec<Var>,
}

type R<T> = Result<T, String>;

/// An expression's result types, and for each result the arrays it may alias.
type Results = (Vec<Type>, Vec<Option<Vec<Var>>>);

struct Validator<'a> {
    prog: &'a Program,
    /// Every variable bound so far, anywhere in the program.
    bound: HashSet<Var>,
    env: HashMap<Var, Info>,
    /// Variables bound in the current scopes, in order, to unbind on scope exit.
    log: Vec<Var>,
    /// Roots of consumed arrays.
    consumed: HashSet<Var>,
    level: u32,
    fun_state: Vec<FunState>,
}

/// Substitution of dims: variable → dim.
type Subst = HashMap<Var, Dim>;

fn atom_dim(a: &Atom) -> Option<Dim> {
    match a {
        Atom::Var(v) => Some(Dim::Var(*v)),
        Atom::Const(PrimValue::I64(c)) => Some(Dim::Const(*c)),
        Atom::Const(_) => None,
    }
}

fn subst_dim(s: &Subst, d: &Dim) -> Dim {
    match d {
        Dim::Var(v) => s.get(v).copied().unwrap_or(*d),
        Dim::Const(_) => *d,
    }
}

fn subst_ty(s: &Subst, t: &Type) -> Type {
    match t {
        Type::Prim(p) => Type::Prim(*p),
        Type::Array { elem, shape } => {
            Type::Array { elem: *elem, shape: shape.iter().map(|d| subst_dim(s, d)).collect() }
        }
    }
}

fn shape_of(t: &Type) -> &[Dim] {
    match t {
        Type::Prim(_) => &[],
        Type::Array { shape, .. } => shape,
    }
}

fn make_ty(elem: PrimType, shape: Vec<Dim>) -> Type {
    if shape.is_empty() {
        Type::Prim(elem)
    } else {
        Type::Array { elem, shape }
    }
}

/// The type of one element of an array of type `t`.
fn row_ty(t: &Type) -> Option<Type> {
    match t {
        Type::Array { elem, shape } if !shape.is_empty() => {
            Some(make_ty(*elem, shape[1..].to_vec()))
        }
        _ => None,
    }
}

fn i64_ty() -> Type {
    Type::Prim(PrimType::I64)
}

/// How many arguments a math function takes.
fn math_arity(f: MathFn) -> usize {
    match f {
        MathFn::Atan2 | MathFn::Hypot | MathFn::CopySign => 2,
        MathFn::Fma => 3,
        _ => 1,
    }
}

fn unsigned_of_width(bits: u32) -> Option<IntType> {
    match bits {
        8 => Some(IntType::U8),
        16 => Some(IntType::U16),
        32 => Some(IntType::U32),
        64 => Some(IntType::U64),
        _ => None,
    }
}

impl<'a> Validator<'a> {
    fn name(&self, v: Var) -> String {
        var_name(self.prog, v)
    }

    fn show_ty(&self, t: &Type) -> String {
        match t {
            Type::Prim(p) => p.to_string(),
            Type::Array { elem, shape } => {
                let dims: String = shape
                    .iter()
                    .map(|d| match d {
                        Dim::Const(c) => format!("[{c}]"),
                        Dim::Var(v) => format!("[{}]", self.name(*v)),
                    })
                    .collect();
                format!("{dims}{elem}")
            }
        }
    }

    // --- scope -------------------------------------------------------------------------------

    fn lookup(&self, v: Var) -> R<&Info> {
        let info = self.env.get(&v).ok_or_else(|| format!("`{}` is not in scope", self.name(v)))?;
        if let Some(r) = info.roots.iter().find(|r| self.consumed.contains(r)) {
            return Err(format!(
                "`{}` is used after `{}` was consumed by an in-place update",
                self.name(v),
                self.name(*r)
            ));
        }
        Ok(info)
    }

    fn var_ty(&self, v: Var) -> R<Type> {
        Ok(self.lookup(v)?.ty.clone())
    }

    fn atom_ty(&self, a: &Atom) -> R<Type> {
        match a {
            Atom::Var(v) => self.var_ty(*v),
            Atom::Const(c) => Ok(Type::Prim(c.ty())),
        }
    }

    fn prim_atom(&self, a: &Atom, what: &str) -> R<PrimType> {
        match self.atom_ty(a)? {
            Type::Prim(p) => Ok(p),
            t => Err(format!("{what} must be a scalar, found `{}`", self.show_ty(&t))),
        }
    }

    fn expect_atom(&self, a: &Atom, t: PrimType, what: &str) -> R<()> {
        let p = self.prim_atom(a, what)?;
        if p != t {
            return Err(format!("{what} must have type `{t}`, found `{p}`"));
        }
        Ok(())
    }

    fn array_var(&self, v: Var, what: &str) -> R<(PrimType, Vec<Dim>)> {
        match self.var_ty(v)? {
            Type::Array { elem, shape } => Ok((elem, shape)),
            t => Err(format!(
                "{what} `{}` must be an array, found `{}`",
                self.name(v),
                self.show_ty(&t)
            )),
        }
    }

    /// A dim must be a constant or an `i64` variable in scope (`extra`: bound earlier in the same
    /// pattern).
    fn check_dim(&self, d: &Dim, extra: &HashMap<Var, Type>) -> R<()> {
        if let Dim::Var(v) = d {
            let ty = match extra.get(v) {
                Some(t) => t.clone(),
                None => self
                    .env
                    .get(v)
                    .map(|i| i.ty.clone())
                    .ok_or_else(|| format!("dim `{}` is not in scope", self.name(*v)))?,
            };
            if ty != i64_ty() {
                return Err(format!(
                    "dim `{}` has type `{}`, not `i64`",
                    self.name(*v),
                    self.show_ty(&ty)
                ));
            }
        }
        Ok(())
    }

    fn check_type(&self, t: &Type, extra: &HashMap<Var, Type>) -> R<()> {
        if let Type::Array { shape, .. } = t {
            if shape.is_empty() {
                return Err("array type without dimensions".into());
            }
            for d in shape {
                self.check_dim(d, extra)?;
            }
        }
        Ok(())
    }

    /// Bind a variable (once in the whole program).
    fn bind(&mut self, v: Var, ty: Type, roots: Option<Vec<Var>>) -> R<()> {
        if !self.bound.insert(v) {
            return Err(format!("`{}` is bound more than once", self.name(v)));
        }
        let roots = match (&ty, roots) {
            (Type::Prim(_), _) => Vec::new(),
            (_, Some(r)) if !r.is_empty() => r,
            _ => vec![v],
        };
        self.env.insert(v, Info { ty, level: self.level, roots });
        self.log.push(v);
        Ok(())
    }

    /// Bind a dependent pattern: each type's dims are checked with the earlier elements in scope.
    fn bind_params(&mut self, ps: &[Param]) -> R<()> {
        let mut extra = HashMap::new();
        for p in ps {
            self.check_type(&p.ty, &extra)?;
            extra.insert(p.var, p.ty.clone());
        }
        for p in ps {
            self.bind(p.var, p.ty.clone(), None)?;
        }
        Ok(())
    }

    fn unbind_to(&mut self, mark: usize) {
        for v in self.log.drain(mark..) {
            self.env.remove(&v);
        }
    }

    // --- type agreement ------------------------------------------------------------------------

    /// `actual` agrees with `expected`: same element type and rank, and equal dims where both are
    /// constants.
    fn agree(&self, expected: &Type, actual: &Type, what: &str) -> R<()> {
        let bad = || {
            Err(format!(
                "{what}: expected `{}`, found `{}`",
                self.show_ty(expected),
                self.show_ty(actual)
            ))
        };
        if expected.elem() != actual.elem() || expected.rank() != actual.rank() {
            return bad();
        }
        for (a, b) in shape_of(expected).iter().zip(shape_of(actual)) {
            if let (Dim::Const(x), Dim::Const(y)) = (a, b) {
                if x != y {
                    return bad();
                }
            }
        }
        Ok(())
    }

    /// Atoms agree with a dependent list of types: each earlier `vars[j]` stands for `atoms[j]`.
    fn agree_dependent(
        &self,
        vars: &[Var],
        tys: &[Type],
        atoms: &[Atom],
        extra: &Subst,
        what: &str,
    ) -> R<()> {
        if tys.len() != atoms.len() {
            return Err(format!("{what}: expected {} values, found {}", tys.len(), atoms.len()));
        }
        let mut s = extra.clone();
        for (j, (v, a)) in vars.iter().zip(atoms).enumerate() {
            if tys.get(j) == Some(&i64_ty()) {
                if let Some(d) = atom_dim(a) {
                    s.entry(*v).or_insert(d);
                }
            }
        }
        for (i, (t, a)) in tys.iter().zip(atoms).enumerate() {
            let actual = self.atom_ty(a)?;
            self.agree(&subst_ty(&s, t), &actual, &format!("{what} {i}"))?;
        }
        Ok(())
    }

    /// The statement's pattern agrees with the expression's result types.
    fn agree_pat(&self, pat: &[Param], tys: &[Type]) -> R<()> {
        if pat.len() != tys.len() {
            return Err(format!(
                "pattern has {} elements, expression gives {}",
                pat.len(),
                tys.len()
            ));
        }
        for (i, (p, t)) in pat.iter().zip(tys).enumerate() {
            self.agree(t, &p.ty, &format!("pattern element {i} (`{}`)", self.name(p.var)))?;
        }
        Ok(())
    }

    // --- consumption ---------------------------------------------------------------------------

    fn consume(&mut self, v: Var) -> R<()> {
        let info = self.lookup(v)?.clone();
        for r in &info.roots {
            let level = self.env.get(r).map_or(0, |i| i.level);
            if level < self.level {
                return Err(format!(
                    "`{}` is consumed inside a loop or lambda but bound outside it",
                    self.name(v)
                ));
            }
        }
        if info.level < self.level {
            return Err(format!(
                "`{}` is consumed inside a loop or lambda but bound outside it",
                self.name(v)
            ));
        }
        self.consumed.extend(info.roots);
        Ok(())
    }

    // --- functions and entries -----------------------------------------------------------------

    fn fun(&mut self, i: usize) -> R<Vec<usize>> {
        match self.fun_state.get(i) {
            Some(FunState::Done(c)) => return Ok(c.clone()),
            Some(FunState::InProgress) => {
                return Err(format!("recursive call of function #{i}"));
            }
            Some(FunState::Todo) => {}
            None => return Err(format!("call of function #{i}, which does not exist")),
        }
        let f = &self.prog.funs[i];
        self.fun_state[i] = FunState::InProgress;
        // A callee is validated in the middle of its caller: save the caller's scope.
        let saved_env = std::mem::take(&mut self.env);
        let saved_log = std::mem::take(&mut self.log);
        let saved_consumed = std::mem::take(&mut self.consumed);
        let saved_level = std::mem::replace(&mut self.level, 0);
        let r = self.fun_body(f).map_err(|m| format!("in function `{}`: {m}", f.name));
        self.env = saved_env;
        self.log = saved_log;
        self.consumed = saved_consumed;
        self.level = saved_level;
        let consumed = r?;
        self.fun_state[i] = FunState::Done(consumed.clone());
        Ok(consumed)
    }

    fn fun_body(&mut self, f: &FunDef) -> R<Vec<usize>> {
        self.bind_params(&f.params)?;
        if f.existentials > f.ret.len() || f.body.result.len() != f.ret.len() {
            return Err(format!(
                "returns {} values ({} existential) but the body gives {}",
                f.ret.len(),
                f.existentials,
                f.body.result.len()
            ));
        }
        // The return types may name the parameters and the body's existential results.
        let mut allowed: HashSet<Var> = f.params.iter().map(|p| p.var).collect();
        for (j, t) in f.ret.iter().enumerate().take(f.existentials) {
            if *t != i64_ty() {
                return Err(format!("existential result {j} must be `i64`"));
            }
            if let Some(Atom::Var(v)) = f.body.result.get(j) {
                allowed.insert(*v);
            }
        }
        for t in &f.ret {
            for d in shape_of(t) {
                if let Dim::Var(v) = d {
                    if !allowed.contains(v) {
                        return Err(format!(
                            "return type `{}` names `{}`, which is neither a parameter nor an \
                             existential result",
                            self.show_ty(t),
                            self.name(*v)
                        ));
                    }
                }
            }
        }
        let mark = self.log.len();
        self.stms(&f.body.stms)?;
        for (i, (t, a)) in f.ret.iter().zip(&f.body.result).enumerate() {
            let actual = self.atom_ty(a)?;
            self.agree(t, &actual, &format!("result {i}"))?;
        }
        self.unbind_to(mark);
        let consumed = f
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| self.consumed.contains(&p.var))
            .map(|(i, _)| i)
            .collect();
        self.unbind_to(0);
        Ok(consumed)
    }

    fn entry(&mut self, e: &EntryPoint) -> R<()> {
        let f = self
            .prog
            .funs
            .get(e.fun)
            .ok_or_else(|| format!("function #{} does not exist", e.fun))?;
        let ndims: usize = e.params.iter().map(|p| p.rank).sum();
        if f.params.len() != ndims + e.params.len() {
            return Err(format!(
                "function `{}` takes {} parameters; the entry ABI needs {ndims} sizes and {} values",
                f.name,
                f.params.len(),
                e.params.len()
            ));
        }
        let (dims, vals) = f.params.split_at(ndims);
        for p in dims {
            if p.ty != i64_ty() {
                return Err(format!("size parameter `{}` must be `i64`", self.name(p.var)));
            }
        }
        let mut next_dim = dims.iter();
        for (et, p) in e.params.iter().zip(vals) {
            if p.ty.elem() != et.elem || p.ty.rank() != et.rank {
                return Err(format!(
                    "parameter `{}` has type `{}`, but the entry type is `{}`",
                    self.name(p.var),
                    self.show_ty(&p.ty),
                    et.display
                ));
            }
            for d in shape_of(&p.ty) {
                let expected = next_dim.next().map(|q| Dim::Var(q.var));
                if expected != Some(*d) {
                    return Err(format!(
                        "parameter `{}` of type `{}` must take its dims from the leading size parameters",
                        self.name(p.var),
                        self.show_ty(&p.ty)
                    ));
                }
            }
        }
        let rets = f.ret.get(f.existentials..).unwrap_or(&[]);
        if rets.len() != e.results.len() {
            return Err(format!(
                "function returns {} values, entry lists {}",
                rets.len(),
                e.results.len()
            ));
        }
        for (t, et) in rets.iter().zip(&e.results) {
            if t.elem() != et.elem || t.rank() != et.rank {
                return Err(format!("result type `{}` is not `{}`", self.show_ty(t), et.display));
            }
        }
        Ok(())
    }

    // --- bodies --------------------------------------------------------------------------------

    fn stms(&mut self, stms: &[Stm]) -> R<()> {
        for s in stms {
            self.stm(s).map_err(|m| {
                let pat: Vec<String> = s.pat.iter().map(|p| self.name(p.var)).collect();
                format!("in `let ({}) = ...`: {m}", pat.join(", "))
            })?;
        }
        Ok(())
    }

    /// A nested body: its bindings go out of scope at the end; returns the result types.
    fn body(&mut self, b: &Body) -> R<Vec<Type>> {
        let mark = self.log.len();
        self.stms(&b.stms)?;
        let tys = b.result.iter().map(|a| self.atom_ty(a)).collect::<R<Vec<_>>>();
        self.unbind_to(mark);
        tys
    }

    /// Check that a body's results agree with `ret`, where `ret` may name `vars` (a dependent
    /// pattern whose elements the results stand for).
    fn body_against(&mut self, b: &Body, vars: &[Var], ret: &[Type], what: &str) -> R<()> {
        let mark = self.log.len();
        self.stms(&b.stms)?;
        self.agree_dependent(vars, ret, &b.result, &Subst::new(), what)?;
        self.unbind_to(mark);
        Ok(())
    }

    fn lambda(&mut self, lam: &Lambda, params: &[Type]) -> R<HashSet<Var>> {
        if lam.params.len() != params.len() {
            return Err(format!(
                "lambda takes {} parameters, expected {}",
                lam.params.len(),
                params.len()
            ));
        }
        for (i, (p, t)) in lam.params.iter().zip(params).enumerate() {
            self.agree(t, &p.ty, &format!("lambda parameter {i}"))?;
        }
        // The results are arrays in the enclosing scope: their dims must be in scope here.
        for t in &lam.ret {
            self.check_type(t, &HashMap::new())?;
        }
        let mark = self.log.len();
        self.level += 1;
        let before = self.consumed.clone();
        let r = (|| {
            self.bind_params(&lam.params)?;
            let tys = self.body(&lam.body)?;
            if tys.len() != lam.ret.len() {
                return Err(format!(
                    "lambda body gives {} values, its return type lists {}",
                    tys.len(),
                    lam.ret.len()
                ));
            }
            for (i, (t, a)) in lam.ret.iter().zip(&tys).enumerate() {
                self.agree(t, a, &format!("lambda result {i}"))?;
            }
            Ok(())
        })();
        self.level -= 1;
        self.unbind_to(mark);
        r?;
        let consumed: HashSet<Var> = lam
            .params
            .iter()
            .map(|p| p.var)
            .filter(|v| self.consumed.contains(v) && !before.contains(v))
            .collect();
        Ok(consumed)
    }

    /// Row types of the SOAC input arrays, checking their outer size against `w`.
    fn soac_inputs(&self, w: &Atom, arrs: &[Var]) -> R<Vec<Type>> {
        self.expect_atom(w, PrimType::I64, "the width")?;
        let wd = atom_dim(w);
        arrs.iter()
            .map(|a| {
                let t = self.var_ty(*a)?;
                let row = row_ty(&t)
                    .ok_or_else(|| format!("input `{}` is not an array", self.name(*a)))?;
                if let (Some(Dim::Const(x)), Some(Dim::Const(y))) = (wd, shape_of(&t).first()) {
                    if x != *y {
                        return Err(format!(
                            "input `{}` has outer size {y}, not {x}",
                            self.name(*a)
                        ));
                    }
                }
                Ok(row)
            })
            .collect()
    }

    fn outer(w: &Atom, t: &Type) -> Type {
        let d = atom_dim(w).unwrap_or(Dim::Const(0));
        let mut shape = vec![d];
        shape.extend_from_slice(shape_of(t));
        make_ty(t.elem(), shape)
    }

    fn stm(&mut self, s: &Stm) -> R<()> {
        // Pattern types are checked in the scope before the statement (plus earlier elements).
        let mut extra = HashMap::new();
        for p in &s.pat {
            self.check_type(&p.ty, &extra)?;
            extra.insert(p.var, p.ty.clone());
        }
        let (tys, roots) = self.exp(s)?;
        self.agree_pat(&s.pat, &tys)?;
        for (i, p) in s.pat.iter().enumerate() {
            let r = roots.get(i).cloned().flatten();
            self.bind(p.var, p.ty.clone(), r)?;
        }
        Ok(())
    }

    /// The result types of an expression, and for each result the arrays it aliases (if any).
    fn exp(&mut self, s: &Stm) -> R<Results> {
        let pat = &s.pat;
        let alias = |v: &Var, this: &Self| this.env.get(v).map(|i| i.roots.clone());
        let one = |t: Type| Ok((vec![t], vec![None]));
        match &s.exp {
            Exp::Atom(a) => {
                let t = self.atom_ty(a)?;
                let r = match a {
                    Atom::Var(v) => alias(v, self),
                    Atom::Const(_) => None,
                };
                Ok((vec![t], vec![r]))
            }
            Exp::UnOp(op, t, a) => {
                self.expect_atom(a, *t, "the operand")?;
                let ok = match op {
                    UnOp::Neg | UnOp::Abs | UnOp::Sgn => t.is_numeric(),
                    UnOp::Not => !matches!(t, PrimType::Float(_)),
                };
                if !ok {
                    return Err(format!("{op:?} is not defined on `{t}`"));
                }
                one(Type::Prim(*t))
            }
            Exp::BinOp(op, t, a, b) => {
                self.expect_atom(a, *t, "the left operand")?;
                self.expect_atom(b, *t, "the right operand")?;
                let ok = match op {
                    BinOp::LogAnd | BinOp::LogOr => *t == PrimType::Bool,
                    BinOp::And | BinOp::Or | BinOp::Xor => !matches!(t, PrimType::Float(_)),
                    BinOp::Shl | BinOp::Shr => matches!(t, PrimType::Int(_)),
                    _ => t.is_numeric(),
                };
                if !ok {
                    return Err(format!("{op:?} is not defined on `{t}`"));
                }
                one(Type::Prim(*t))
            }
            Exp::Cmp(_, t, a, b) => {
                self.expect_atom(a, *t, "the left operand")?;
                self.expect_atom(b, *t, "the right operand")?;
                one(Type::Prim(PrimType::Bool))
            }
            Exp::Convert { from, to, arg } => {
                self.expect_atom(arg, *from, "the converted value")?;
                one(Type::Prim(*to))
            }
            Exp::Math(f, t, args) => {
                if args.len() != math_arity(*f) {
                    return Err(format!(
                        "{f:?} takes {} arguments, found {}",
                        math_arity(*f),
                        args.len()
                    ));
                }
                let float = matches!(t, PrimType::Float(_));
                let int = matches!(t, PrimType::Int(_));
                let bits = |t: &PrimType| match t {
                    PrimType::Float(ft) => unsigned_of_width(ft.bits()),
                    _ => None,
                };
                let (arg, res) = match f {
                    MathFn::Clz | MathFn::Ctz | MathFn::Popc if int => (*t, PrimType::I32),
                    MathFn::IsNan | MathFn::IsInf if float => (*t, PrimType::Bool),
                    MathFn::ToBits if float => {
                        (*t, PrimType::Int(bits(t).ok_or("bad float width")?))
                    }
                    MathFn::FromBits if float => {
                        (PrimType::Int(bits(t).ok_or("bad float width")?), *t)
                    }
                    MathFn::Clz | MathFn::Ctz | MathFn::Popc | MathFn::IsNan | MathFn::IsInf => {
                        return Err(format!("{f:?} is not defined on `{t}`"));
                    }
                    MathFn::ToBits | MathFn::FromBits => {
                        return Err(format!("{f:?} is not defined on `{t}`"));
                    }
                    _ if float => (*t, *t),
                    _ => return Err(format!("{f:?} is not defined on `{t}`")),
                };
                for a in args {
                    self.expect_atom(a, arg, "the argument")?;
                }
                one(Type::Prim(res))
            }
            Exp::Select(c, a, b) => {
                self.expect_atom(c, PrimType::Bool, "the condition")?;
                let t = self.prim_atom(a, "the first alternative")?;
                self.expect_atom(b, t, "the second alternative")?;
                one(Type::Prim(t))
            }
            Exp::Index { arr, idx } => {
                let t = self.index_type(*arr, idx)?;
                let r = if t.rank() > 0 { alias(arr, self) } else { None };
                Ok((vec![t], vec![r]))
            }
            Exp::Update { arr, idx, value } => {
                let t = self.var_ty(*arr)?;
                let slot = self.index_type(*arr, idx)?;
                let vt = self.atom_ty(value)?;
                self.agree(&slot, &vt, "the written value")?;
                if let Atom::Var(v) = value {
                    let arr_roots = alias(arr, self).unwrap_or_default();
                    if alias(v, self).unwrap_or_default().iter().any(|r| arr_roots.contains(r)) {
                        return Err("the written value aliases the updated array".into());
                    }
                }
                self.consume(*arr)?;
                one(t)
            }
            Exp::Iota { n, start, step, it } => {
                self.expect_atom(n, PrimType::I64, "the length")?;
                self.expect_atom(start, PrimType::Int(*it), "the start")?;
                self.expect_atom(step, PrimType::Int(*it), "the step")?;
                let d = atom_dim(n).ok_or("bad length")?;
                one(Type::Array { elem: PrimType::Int(*it), shape: vec![d] })
            }
            Exp::Replicate { shape, value } => {
                if shape.is_empty() {
                    return Err("replicate with an empty shape".into());
                }
                for d in shape {
                    self.check_dim(d, &HashMap::new())?;
                }
                let vt = self.atom_ty(value)?;
                let mut sh = shape.clone();
                sh.extend_from_slice(shape_of(&vt));
                one(make_ty(vt.elem(), sh))
            }
            Exp::Rearrange { arr, perm } => {
                let (elem, shape) = self.array_var(*arr, "the rearranged value")?;
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..shape.len()).collect::<Vec<_>>() {
                    return Err(format!("{perm:?} is not a permutation of {} dims", shape.len()));
                }
                let sh = perm.iter().map(|&p| shape[p]).collect();
                Ok((vec![Type::Array { elem, shape: sh }], vec![alias(arr, self)]))
            }
            Exp::Reshape { arr, shape } => {
                let (elem, old) = self.array_var(*arr, "the reshaped value")?;
                if shape.is_empty() {
                    return Err("reshape to an empty shape".into());
                }
                for d in shape {
                    self.check_dim(d, &HashMap::new())?;
                }
                // The element counts are checked at run time (a preceding assertion may make a
                // statically wrong reshape unreachable).
                let _ = old;
                Ok((vec![Type::Array { elem, shape: shape.clone() }], vec![alias(arr, self)]))
            }
            Exp::Concat { axis, arrs, len } => {
                let first = arrs.first().ok_or("concat of no arrays")?;
                let (elem, shape) = self.array_var(*first, "a concatenated value")?;
                if *axis >= shape.len() {
                    return Err(format!(
                        "concat along axis {axis} of a rank-{} array",
                        shape.len()
                    ));
                }
                self.check_dim(len, &HashMap::new())?;
                let mut total = Some(0i64);
                for a in arrs {
                    let (e, sh) = self.array_var(*a, "a concatenated value")?;
                    let mut expect = shape.clone();
                    expect[*axis] = sh.get(*axis).copied().unwrap_or(Dim::Const(0));
                    self.agree(
                        &make_ty(elem, expect),
                        &make_ty(e, sh.clone()),
                        "concatenated array",
                    )?;
                    total = match (total, sh.get(*axis)) {
                        (Some(t), Some(Dim::Const(c))) => Some(t + c),
                        _ => None,
                    };
                }
                if let (Some(t), Dim::Const(l)) = (total, len) {
                    if t != *l {
                        return Err(format!("concat of {t} elements declared as {l}"));
                    }
                }
                let mut sh = shape;
                sh[*axis] = *len;
                one(Type::Array { elem, shape: sh })
            }
            Exp::ArrayLit { elems, elem_ty } => {
                self.check_type(elem_ty, &HashMap::new())?;
                for (i, e) in elems.iter().enumerate() {
                    let t = self.atom_ty(e)?;
                    self.agree(elem_ty, &t, &format!("element {i}"))?;
                }
                let mut sh = vec![Dim::Const(elems.len() as i64)];
                sh.extend_from_slice(shape_of(elem_ty));
                one(make_ty(elem_ty.elem(), sh))
            }
            Exp::Copy(v) => one(self.var_ty(*v)?),
            Exp::Apply { fun, args } => {
                let consumed = self.fun(*fun)?;
                let f = &self.prog.funs[*fun];
                if args.len() != f.params.len() {
                    return Err(format!(
                        "`{}` takes {} arguments, found {}",
                        f.name,
                        f.params.len(),
                        args.len()
                    ));
                }
                let vars: Vec<Var> = f.params.iter().map(|p| p.var).collect();
                let tys: Vec<Type> = f.params.iter().map(|p| p.ty.clone()).collect();
                self.agree_dependent(&vars, &tys, args, &Subst::new(), "argument")?;
                let mut s = Subst::new();
                for (p, a) in f.params.iter().zip(args) {
                    if let Some(d) = atom_dim(a) {
                        s.insert(p.var, d);
                    }
                }
                for (j, r) in f.body.result.iter().enumerate().take(f.existentials) {
                    if let (Atom::Var(v), Some(p)) = (r, pat.get(j)) {
                        s.entry(*v).or_insert(Dim::Var(p.var));
                    }
                }
                for i in consumed {
                    if let Some(Atom::Var(v)) = args.get(i) {
                        self.consume(*v)?;
                    }
                }
                let tys = f.ret.iter().map(|t| subst_ty(&s, t)).collect::<Vec<_>>();
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::If { cond, then_body, else_body, ret } => {
                self.expect_atom(cond, PrimType::Bool, "the condition")?;
                let vars: Vec<Var> = pat.iter().map(|p| p.var).collect();
                let extra: HashMap<Var, Type> = pat.iter().map(|p| (p.var, p.ty.clone())).collect();
                for t in ret {
                    self.check_type(t, &extra)?;
                }
                // `ret` is the statement's pattern types, which may name earlier elements.
                let before = self.consumed.clone();
                self.body_against(then_body, &vars, ret, "`then` result")?;
                let after_then = std::mem::replace(&mut self.consumed, before);
                self.body_against(else_body, &vars, ret, "`else` result")?;
                self.consumed.extend(after_then);
                let n = ret.len();
                Ok((ret.clone(), vec![None; n]))
            }
            Exp::Loop { params, form, body } => self.exp_loop(pat, params, form, body),
            Exp::Map { w, lam, arrs } => {
                let rows = self.soac_inputs(w, arrs)?;
                let consumed = self.lambda(lam, &rows)?;
                for (p, a) in lam.params.iter().zip(arrs) {
                    if consumed.contains(&p.var) {
                        self.consume(*a)?;
                    }
                }
                let tys: Vec<Type> = lam.ret.iter().map(|t| Self::outer(w, t)).collect();
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
                let rows = self.soac_inputs(w, arrs)?;
                if neutral.len() != arrs.len() {
                    return Err(format!(
                        "{} neutral elements for {} arrays",
                        neutral.len(),
                        arrs.len()
                    ));
                }
                for (i, (n, t)) in neutral.iter().zip(&rows).enumerate() {
                    let nt = self.atom_ty(n)?;
                    self.agree(t, &nt, &format!("neutral element {i}"))?;
                }
                let mut ps = rows.clone();
                ps.extend(rows.iter().cloned());
                if !self.lambda(lam, &ps)?.is_empty() {
                    return Err("an operator lambda consumes its parameter".into());
                }
                if lam.ret.len() != rows.len() {
                    return Err(format!(
                        "operator returns {} values, expected {}",
                        lam.ret.len(),
                        rows.len()
                    ));
                }
                for (i, (r, t)) in lam.ret.iter().zip(&rows).enumerate() {
                    self.agree(t, r, &format!("operator result {i}"))?;
                }
                let tys: Vec<Type> = if matches!(s.exp, Exp::Scan { .. }) {
                    rows.iter().map(|t| Self::outer(w, t)).collect()
                } else {
                    rows
                };
                let n = tys.len();
                Ok((tys, vec![None; n]))
            }
            Exp::Scatter { dest, idx, vals, w } => {
                self.expect_atom(w, PrimType::I64, "the width")?;
                let dt = self.var_ty(*dest)?;
                if idx.is_empty() || idx.len() > dt.rank() {
                    return Err(format!(
                        "{} index arrays for a rank-{} destination",
                        idx.len(),
                        dt.rank()
                    ));
                }
                let wt = Self::outer(w, &Type::Prim(PrimType::I64));
                for i in idx {
                    let t = self.var_ty(*i)?;
                    self.agree(&wt, &t, "index array")?;
                }
                let slot = make_ty(dt.elem(), shape_of(&dt)[idx.len()..].to_vec());
                let vt = self.var_ty(*vals)?;
                self.agree(&Self::outer(w, &slot), &vt, "the values")?;
                self.consume(*dest)?;
                one(dt)
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                self.expect_atom(w, PrimType::I64, "the width")?;
                let k = dest.len();
                if k == 0 || neutral.len() != k || vs.len() != k {
                    return Err(format!(
                        "{k} destinations, {} neutral elements, {} value arrays",
                        neutral.len(),
                        vs.len()
                    ));
                }
                let it = self.var_ty(*is)?;
                self.agree(&Self::outer(w, &Type::Prim(PrimType::I64)), &it, "the bin indices")?;
                let mut rows = Vec::new();
                let mut tys = Vec::new();
                for (i, d) in dest.iter().enumerate() {
                    let dt = self.var_ty(*d)?;
                    let row = row_ty(&dt).ok_or("a histogram destination is not an array")?;
                    let vt = self.var_ty(vs[i])?;
                    self.agree(&Self::outer(w, &row), &vt, &format!("value array {i}"))?;
                    let nt = self.atom_ty(&neutral[i])?;
                    self.agree(&row, &nt, &format!("neutral element {i}"))?;
                    rows.push(row);
                    tys.push(dt);
                }
                let mut ps = rows.clone();
                ps.extend(rows.iter().cloned());
                if !self.lambda(lam, &ps)?.is_empty() {
                    return Err("an operator lambda consumes its parameter".into());
                }
                for (i, (r, t)) in lam.ret.iter().zip(&rows).enumerate() {
                    self.agree(t, r, &format!("operator result {i}"))?;
                }
                for d in dest {
                    self.consume(*d)?;
                }
                Ok((tys, vec![None; k]))
            }
            Exp::Assert { cond, msg, vals } => {
                self.expect_atom(cond, PrimType::Bool, "the condition")?;
                for v in vals {
                    self.prim_atom(v, "an assertion value")?;
                }
                let holes = msg.matches("{}").count();
                if holes != vals.len() {
                    return Err(format!("message has {holes} `{{}}` but {} values", vals.len()));
                }
                Ok((Vec::new(), Vec::new()))
            }
        }
    }

    fn exp_loop(
        &mut self,
        pat: &[Param],
        params: &[(Param, Atom)],
        form: &LoopForm,
        body: &Body,
    ) -> R<Results> {
        let ps: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
        let vars: Vec<Var> = ps.iter().map(|p| p.var).collect();
        let tys: Vec<Type> = ps.iter().map(|p| p.ty.clone()).collect();
        let inits: Vec<Atom> = params.iter().map(|(_, a)| *a).collect();
        self.agree_dependent(&vars, &tys, &inits, &Subst::new(), "initial value")?;
        let mark = self.log.len();
        self.level += 1;
        let before = self.consumed.clone();
        let r = (|| {
            self.bind_params(&ps)?;
            match form {
                LoopForm::For { i, it, bound } => {
                    self.expect_atom(bound, PrimType::Int(*it), "the loop bound")?;
                    self.bind(*i, Type::Prim(PrimType::Int(*it)), None)?;
                }
                LoopForm::While(c) => {
                    let p = ps.iter().find(|p| p.var == *c).ok_or_else(|| {
                        format!("the `while` condition `{}` is not a loop parameter", self.name(*c))
                    })?;
                    if p.ty != Type::Prim(PrimType::Bool) {
                        return Err("the `while` condition must be a `bool`".into());
                    }
                }
            }
            self.body_against(body, &vars, &tys, "loop result")
        })();
        self.level -= 1;
        self.unbind_to(mark);
        r?;
        let consumed_params: Vec<bool> = vars.iter().map(|v| self.consumed.contains(v)).collect();
        self.consumed.retain(|v| before.contains(v) || !vars.contains(v));
        for (c, a) in consumed_params.iter().zip(&inits) {
            if let (true, Atom::Var(v)) = (c, a) {
                self.consume(*v)?;
            }
        }
        // The pattern stands for the parameters.
        let mut s = Subst::new();
        for (v, p) in vars.iter().zip(pat) {
            s.insert(*v, Dim::Var(p.var));
        }
        if pat.len() != tys.len() {
            return Err(format!(
                "pattern has {} elements, the loop gives {}",
                pat.len(),
                tys.len()
            ));
        }
        let out: Vec<Type> = tys.iter().map(|t| subst_ty(&s, t)).collect();
        let n = out.len();
        Ok((out, vec![None; n]))
    }

    /// The type of `arr[idx]`.
    fn index_type(&self, arr: Var, idx: &[DimIndex]) -> R<Type> {
        let (elem, shape) = self.array_var(arr, "the indexed value")?;
        if idx.len() > shape.len() {
            return Err(format!("{} indices for a rank-{} array", idx.len(), shape.len()));
        }
        let mut out = Vec::new();
        for i in idx {
            match i {
                DimIndex::Fix(a) => self.expect_atom(a, PrimType::I64, "an index")?,
                DimIndex::Slice { start, len, stride } => {
                    self.expect_atom(start, PrimType::I64, "a slice start")?;
                    self.expect_atom(len, PrimType::I64, "a slice length")?;
                    self.expect_atom(stride, PrimType::I64, "a slice stride")?;
                    out.push(atom_dim(len).ok_or("bad slice length")?);
                }
            }
        }
        out.extend_from_slice(&shape[idx.len()..]);
        Ok(make_ty(elem, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::lower::builder::*;
    use crate::prim::PrimValue;

    fn f32t() -> Type {
        Type::Prim(PrimType::F32)
    }

    fn arr(elem: PrimType, dims: &[Dim]) -> Type {
        Type::Array { elem, shape: dims.to_vec() }
    }

    fn var(v: Var) -> Atom {
        Atom::Var(v)
    }

    fn program(b: Builder, funs: Vec<FunDef>) -> Program {
        Program { funs, entries: Vec::new(), names: b.names }
    }

    fn fun(name: &str, params: Vec<Param>, body: Body, ret: Vec<Type>) -> FunDef {
        FunDef { name: name.into(), params, existentials: 0, ret, body, span: Span::DUMMY }
    }

    /// `fun f (n: i64, xs: [n]f32) = <stms built by `k`>`, validated.
    fn check(
        k: impl FnOnce(&mut Builder, Var, Var) -> (Vec<Atom>, Vec<Type>),
    ) -> Result<(), String> {
        let mut b = Builder::new();
        let n = b.param("n", i64t());
        let xs = b.param("xs", arr(PrimType::F32, &[Dim::Var(n.var)]));
        let (res, ret) = k(&mut b, n.var, xs.var);
        let body = b.close(res);
        let f = fun("f", vec![n, xs], body, ret);
        validate(&program(b, vec![f]))
    }

    fn err(r: Result<(), String>, needle: &str) {
        match r {
            Ok(()) => panic!("expected an error containing {needle:?}"),
            Err(m) => assert!(m.contains(needle), "{m:?} does not contain {needle:?}"),
        }
    }

    #[test]
    fn accepts_simple_function() {
        let r = check(|b, n, xs| {
            let i = b.binop(BinOp::Sub, PrimType::I64, var(n), i64c(1));
            let x = b.let1("x", f32t(), Exp::Index { arr: xs, idx: vec![DimIndex::Fix(i)] });
            (vec![var(x)], vec![f32t()])
        });
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn rejects_unbound_and_rebound_variables() {
        err(
            check(|b, _, _| {
                let ghost = b.fresh("ghost");
                let x = b.let1("x", f32t(), Exp::Atom(var(ghost)));
                (vec![var(x)], vec![f32t()])
            }),
            "`ghost_2` is not in scope",
        );
        err(
            check(|b, n, _| {
                let p = Param { var: n, ty: i64t() };
                b.push(vec![p], Exp::Atom(i64c(1)));
                (vec![var(n)], vec![i64t()])
            }),
            "bound more than once",
        );
    }

    #[test]
    fn rejects_bad_dims() {
        err(
            check(|b, _, xs| {
                let ghost = b.fresh("m");
                let _ = b.let1("y", arr(PrimType::F32, &[Dim::Var(ghost)]), Exp::Copy(xs));
                (vec![], vec![])
            }),
            "dim `m_2` is not in scope",
        );
        err(
            check(|b, _, xs| {
                let x = b.let1("x", f32t(), Exp::Atom(Atom::Const(PrimValue::F32(1.0))));
                let y = b.let1("y", arr(PrimType::F32, &[Dim::Var(x)]), Exp::Copy(xs));
                (vec![var(y)], vec![f32t()])
            }),
            "not `i64`",
        );
    }

    #[test]
    fn rejects_pattern_type_mismatches() {
        err(
            check(|b, n, _| {
                let x = b.let1("x", f32t(), Exp::Atom(var(n)));
                (vec![var(x)], vec![f32t()])
            }),
            "expected `i64`, found `f32`",
        );
        err(
            check(|b, _, xs| {
                let x =
                    b.let1("x", arr(PrimType::F32, &[Dim::Const(1), Dim::Const(2)]), Exp::Copy(xs));
                (vec![var(x)], vec![f32t()])
            }),
            "expected `[n_0]f32`, found `[1][2]f32`",
        );
        err(
            check(|b, _, _| {
                let it = Exp::Iota { n: i64c(3), start: i64c(0), step: i64c(1), it: IntType::I64 };
                let x = b.let1("x", arr(PrimType::I64, &[Dim::Const(4)]), it);
                (vec![var(x)], vec![arr(PrimType::I64, &[Dim::Const(4)])])
            }),
            "expected `[3]i64`, found `[4]i64`",
        );
        err(
            check(|b, n, _| {
                let x = b.let1("x", f32t(), Exp::BinOp(BinOp::Add, PrimType::F32, var(n), var(n)));
                (vec![var(x)], vec![f32t()])
            }),
            "the left operand must have type `f32`, found `i64`",
        );
    }

    #[test]
    fn rejects_bad_lambdas() {
        err(
            check(|b, n, xs| {
                let p = b.param("x", f32t());
                let q = b.param("y", f32t());
                let lam = Lambda {
                    params: vec![p.clone(), q],
                    body: Body { stms: vec![], result: vec![var(p.var)] },
                    ret: vec![f32t()],
                };
                let t = arr(PrimType::F32, &[Dim::Var(n)]);
                let y = b.let1("y", t.clone(), Exp::Map { w: var(n), lam, arrs: vec![xs] });
                (vec![var(y)], vec![t])
            }),
            "lambda takes 2 parameters, expected 1",
        );
        err(
            check(|b, n, xs| {
                let p = b.param("x", i64t());
                let lam = Lambda {
                    params: vec![p.clone()],
                    body: Body { stms: vec![], result: vec![var(p.var)] },
                    ret: vec![i64t()],
                };
                let t = arr(PrimType::I64, &[Dim::Var(n)]);
                let y = b.let1("y", t.clone(), Exp::Map { w: var(n), lam, arrs: vec![xs] });
                (vec![var(y)], vec![t])
            }),
            "lambda parameter 0: expected `f32`, found `i64`",
        );
        err(
            check(|b, n, xs| {
                let p = b.param("x", f32t());
                let q = b.param("y", f32t());
                let lam = Lambda {
                    params: vec![p.clone(), q],
                    body: Body { stms: vec![], result: vec![var(p.var)] },
                    ret: vec![f32t()],
                };
                let r = b.let1(
                    "r",
                    f32t(),
                    Exp::Reduce {
                        w: var(n),
                        lam,
                        neutral: vec![],
                        arrs: vec![xs],
                        commutative: false,
                    },
                );
                (vec![var(r)], vec![f32t()])
            }),
            "0 neutral elements for 1 arrays",
        );
        // A map result whose size is computed inside the lambda.
        err(
            check(|b, n, xs| {
                let p = b.param("x", f32t());
                let k = b.fresh("k");
                let inner = arr(PrimType::I64, &[Dim::Var(k)]);
                let lam = Lambda {
                    params: vec![p],
                    body: Body {
                        stms: vec![Stm {
                            pat: vec![Param { var: k, ty: i64t() }],
                            exp: Exp::Atom(i64c(2)),
                            span: Span::DUMMY,
                        }],
                        result: vec![var(k)],
                    },
                    ret: vec![inner],
                };
                let t = arr(PrimType::I64, &[Dim::Var(n), Dim::Var(k)]);
                let _ = b.let1("y", t, Exp::Map { w: var(n), lam, arrs: vec![xs] });
                (vec![], vec![])
            }),
            "is not in scope",
        );
    }

    #[test]
    fn rejects_bad_calls() {
        let mut b = Builder::new();
        let x = b.param("x", f32t());
        let callee = fun(
            "g",
            vec![x.clone()],
            Body { stms: vec![], result: vec![var(x.var)] },
            vec![f32t()],
        );
        let r = b.let1("r", f32t(), Exp::Apply { fun: 0, args: vec![] });
        let body = b.close(vec![var(r)]);
        let caller = fun("f", vec![], body, vec![f32t()]);
        err(validate(&program(b, vec![callee.clone(), caller])), "`g` takes 1 arguments, found 0");

        let mut b = Builder::new();
        b.names.resize(1, "x".into());
        let r = b.let1("r", f32t(), Exp::Apply { fun: 0, args: vec![i64c(1)] });
        let body = b.close(vec![var(r)]);
        let caller = fun("f", vec![], body, vec![f32t()]);
        err(validate(&program(b, vec![callee, caller])), "argument 0: expected `f32`, found `i64`");
    }

    #[test]
    fn rejects_bad_loops_and_ifs() {
        err(
            check(|b, n, _| {
                let acc = b.param("acc", f32t());
                let i = b.fresh("i");
                let body = Body { stms: vec![], result: vec![var(i)] };
                let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
                let pacc = b.param("r", f32t());
                let rv = pacc.var;
                b.push(
                    vec![pacc],
                    Exp::Loop { params: vec![(acc, Atom::Const(PrimValue::F32(0.0)))], form, body },
                );
                (vec![var(rv)], vec![f32t()])
            }),
            "loop result 0: expected `f32`, found `i64`",
        );
        err(
            check(|b, n, _| {
                let c = b.param("c", Type::Prim(PrimType::Bool));
                let body = Body { stms: vec![], result: vec![Atom::Const(PrimValue::Bool(false))] };
                let pr = b.param("r", Type::Prim(PrimType::Bool));
                let rv = pr.var;
                b.push(
                    vec![pr],
                    Exp::Loop { params: vec![(c, var(n))], form: LoopForm::While(n), body },
                );
                (vec![var(rv)], vec![Type::Prim(PrimType::Bool)])
            }),
            "initial value 0: expected `bool`, found `i64`",
        );
        err(
            check(|b, n, _| {
                let then_body = Body { stms: vec![], result: vec![var(n)] };
                let else_body =
                    Body { stms: vec![], result: vec![Atom::Const(PrimValue::F32(1.0))] };
                let r = b.let1(
                    "r",
                    i64t(),
                    Exp::If { cond: boolc(true), then_body, else_body, ret: vec![i64t()] },
                );
                (vec![var(r)], vec![i64t()])
            }),
            "`else` result 0: expected `i64`, found `f32`",
        );
    }

    #[test]
    fn if_may_return_sizes_it_binds() {
        let r = check(|b, n, xs| {
            let k = b.param("k", i64t());
            let kv = k.var;
            let ys = b.param("ys", arr(PrimType::F32, &[Dim::Var(kv)]));
            let ysv = ys.var;
            b.open();
            let e = b.let1(
                "e",
                arr(PrimType::F32, &[Dim::Const(0)]),
                Exp::ArrayLit { elems: vec![], elem_ty: f32t() },
            );
            let else_body = b.close(vec![i64c(0), var(e)]);
            let then_body = Body { stms: vec![], result: vec![var(n), var(xs)] };
            let ret = vec![i64t(), arr(PrimType::F32, &[Dim::Var(kv)])];
            b.push(vec![k, ys], Exp::If { cond: boolc(true), then_body, else_body, ret });
            (vec![var(ysv)], vec![arr(PrimType::F32, &[Dim::Var(kv)])])
        });
        // The result names `k`, which is not a parameter: it must be an existential.
        err(r, "neither a parameter nor an existential result");
    }

    #[test]
    fn checks_consumption() {
        err(
            check(|b, _, xs| {
                let t = arr(PrimType::F32, &[Dim::Var(Var(0))]);
                let ys = b.let1(
                    "ys",
                    t.clone(),
                    Exp::Update {
                        arr: xs,
                        idx: vec![DimIndex::Fix(i64c(0))],
                        value: Atom::Const(PrimValue::F32(1.0)),
                    },
                );
                let z =
                    b.let1("z", f32t(), Exp::Index { arr: xs, idx: vec![DimIndex::Fix(i64c(0))] });
                let _ = ys;
                (vec![var(z)], vec![f32t()])
            }),
            "`xs_1` is used after `xs_1` was consumed",
        );
        // Aliases share the consumption.
        err(
            check(|b, n, xs| {
                let t = arr(PrimType::F32, &[Dim::Var(n)]);
                let alias = b.let1("alias", t.clone(), Exp::Atom(var(xs)));
                let _ = b.let1(
                    "ys",
                    t.clone(),
                    Exp::Update {
                        arr: alias,
                        idx: vec![DimIndex::Fix(i64c(0))],
                        value: Atom::Const(PrimValue::F32(1.0)),
                    },
                );
                (vec![var(xs)], vec![t])
            }),
            "was consumed",
        );
        // Consuming a variable from outside a loop.
        err(
            check(|b, n, xs| {
                let t = arr(PrimType::F32, &[Dim::Var(n)]);
                let acc = b.param("acc", f32t());
                let i = b.fresh("i");
                b.open();
                let _ = b.let1(
                    "ys",
                    t.clone(),
                    Exp::Update { arr: xs, idx: vec![DimIndex::Fix(i64c(0))], value: var(acc.var) },
                );
                let body = b.close(vec![var(acc.var)]);
                let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
                let r = b.param("r", f32t());
                let rv = r.var;
                b.push(
                    vec![r],
                    Exp::Loop { params: vec![(acc, Atom::Const(PrimValue::F32(0.0)))], form, body },
                );
                (vec![var(rv)], vec![f32t()])
            }),
            "consumed inside a loop or lambda but bound outside it",
        );
        // Updating a loop parameter is fine, and consumes the initial value.
        err(
            check(|b, n, xs| {
                let t = arr(PrimType::F32, &[Dim::Var(n)]);
                let acc = b.param("acc", t.clone());
                let i = b.fresh("i");
                b.open();
                let ys = b.let1(
                    "ys",
                    t.clone(),
                    Exp::Update {
                        arr: acc.var,
                        idx: vec![DimIndex::Fix(var(i))],
                        value: Atom::Const(PrimValue::F32(0.0)),
                    },
                );
                let body = b.close(vec![var(ys)]);
                let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
                let r = b.param("r", t.clone());
                b.push(vec![r], Exp::Loop { params: vec![(acc, var(xs))], form, body });
                (vec![var(xs)], vec![t])
            }),
            "`xs_1` is used after `xs_1` was consumed",
        );
    }

    #[test]
    fn checks_assert_and_entries() {
        err(
            check(|b, n, _| {
                b.push(
                    vec![],
                    Exp::Assert { cond: boolc(false), msg: "{} and {}".into(), vals: vec![var(n)] },
                );
                (vec![var(n)], vec![i64t()])
            }),
            "message has 2 `{}` but 1 values",
        );
        let mut b = Builder::new();
        let n = b.param("n", i64t());
        let xs = b.param("xs", arr(PrimType::F32, &[Dim::Const(3)]));
        let body = Body { stms: vec![], result: vec![var(n.var)] };
        let f = fun("f", vec![n, xs], body, vec![i64t()]);
        let mut p = program(b, vec![f]);
        p.entries.push(EntryPoint {
            name: "main".into(),
            fun: 0,
            params: vec![EntryType {
                elem: PrimType::F32,
                rank: 1,
                unique: false,
                display: "[]f32".into(),
            }],
            results: vec![EntryType {
                elem: PrimType::I64,
                rank: 0,
                unique: false,
                display: "i64".into(),
            }],
            span: Span::DUMMY,
        });
        err(validate(&p), "must take its dims from the leading size parameters");
        p.entries[0].results[0].elem = PrimType::F32;
        p.funs[0].params[1].ty = arr(PrimType::F32, &[Dim::Var(Var(0))]);
        err(validate(&p), "result type `i64` is not `i64`");
    }
}
