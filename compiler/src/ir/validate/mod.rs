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
        let shaped: usize = e.param_shapes.iter().map(EntryShape::leaves).sum();
        if shaped != e.params.len() || e.result_shape.leaves() != e.results.len() {
            return Err(format!(
                "entry `{}`: its source shapes make {shaped} parameters and {} results, not {} and {}",
                e.name,
                e.result_shape.leaves(),
                e.params.len(),
                e.results.len()
            ));
        }
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
}

mod exp;

#[cfg(test)]
mod tests;
