//! Lowering: checked AST → core IR (monomorphise, defunctionalise, flatten tuples, ANF, shapes).
//!
//! Lowering evaluates the checked program over *static values* ([`sval::SVal`]): every source
//! variable stands for a tree of IR atoms mirroring its type, or for a static function. Applying
//! a static function specialises it:
//! * a user's top-level function whose parameters and result are first-order becomes one IR
//!   `FunDef` per monomorphic instance (memoised by definition and instantiated type), with its
//!   sizes as explicit leading `i64` parameters and sizes it invents as existential results;
//! * everything else (higher-order functions, closures, operator sections, compositions, and
//!   the prelude's small helpers) is inlined at the application with the static values
//!   substituted: defunctionalisation by specialisation, which terminates because Futhark has no
//!   recursion (a depth limit guards it anyway);
//! * intrinsics (`map`, `reduce`, `zip`, `f32.sqrt`, ...) emit IR directly; a function argument
//!   of a SOAC becomes an IR `Lambda` by applying it to fresh parameters in a new body.
//!
//! Shapes are computed from IR values: every array leaf carries an IR type whose dims are
//! constants or `i64` variables in scope, and the checker's sizes are used only to bind size
//! parameters and to emit the run-time checks that ascriptions, coercions and size-parameter
//! agreement need (an `Assert` naming both sizes, then a `Reshape`, so types stay truthful).
//! Sizes that only the computation determines become existential results: of a function, of an
//! `if` whose branches disagree, of a loop whose arrays change size (a loop size that turns out
//! invariant is substituted away again).
//!
//! A `map` whose function computes its result's size: the statements computing the size are
//! hoisted out of the lambda when they do not depend on its parameters; otherwise the size is
//! taken from the function's result on the first element, and every element's result is checked
//! against it (`size mismatch` for an irregular array), so no IR construct is needed for it.
//!
//! As in Futhark, the user's `def main` is an entry point too. Lowering ends by removing dead
//! statements that cannot fail (the residue of size and bounds computations).

mod arrays;
mod autodiff;
pub mod builder;
mod control;
mod erf_tables;
mod expr;
mod intrinsic;
mod ops;
mod pat;
pub(crate) mod rewrite;
mod soac;
mod special;
pub mod sval;

/// Dead-code removal, shared with the optimiser that runs after differentiation.
pub use rewrite::dce;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::{
    Atom, BinOp, Body, CmpOp, Dim, EntryPoint, EntryShape, EntryType, Exp, FunDef, Param, Program,
    Type, Var,
};
use crate::prim::{PrimType, PrimValue};
use crate::syntax::ast::{Dec, NodeId, Pat, PatKind, ValDec};
use crate::types::{CheckedProgram, Size, Type as SType};
use builder::{i64t, Builder};
use sval::{has_arrow, match_type, split_arrows, Env, SVal};

/// Lower a checked program to the core IR.
pub fn lower(checked: &CheckedProgram) -> Result<Program, Vec<Diagnostic>> {
    let mut l = Lowerer::new(checked);
    let mut errors = Vec::new();
    // As in Futhark, the user's (last) `def main` is an entry point too.
    let main_dec = checked
        .program
        .decs
        .iter()
        .enumerate()
        .skip(checked.prelude_decs)
        .filter(|(_, d)| matches!(d, Dec::Val(v) if v.name == "main"))
        .map(|(i, _)| i)
        .next_back();
    for (i, dec) in checked.program.decs.iter().enumerate().skip(checked.prelude_decs) {
        let Dec::Val(v) = dec else { continue };
        let r = if v.entry || Some(i) == main_dec { l.entry(i, v) } else { l.plain_def(i, v) };
        if let Err(d) = r {
            errors.push(d);
            l.b.reset();
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    l.finish()
}

pub(crate) type LResult<T> = Result<T, Diagnostic>;

/// `unsupported: ...` at `span`.
pub(crate) fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("unsupported: {what}"))
}

/// An internal inconsistency between the checker's output and what lowering expects.
pub(crate) fn internal(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("unsupported: {what} (internal lowering error)"))
}

/// Nesting limit for expressions and inlined calls together: deeper programs get an error
/// instead of exhausting the stack.
const MAX_DEPTH: usize = 300;

/// Where the value of one dimension of an instance's parameter comes from.
#[derive(Clone, Debug, PartialEq)]
enum DimSrc {
    Const(i64),
    /// One of the instance's leading `i64` parameters.
    Slot(usize),
}

/// A size named in the checker's types, or a dimension hidden under an instantiated type
/// variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DimName {
    Named(String),
    Const(i64),
    /// A size computed from named ones (`[n*m]`): checked where a value meets it, once the names
    /// are in scope, and never bound.
    Computed(Size),
    Anon,
}

/// How an instance's IR parameters are laid out: its size parameters ("slots"), then each
/// source parameter's leaves.
#[derive(Clone, Debug)]
struct Layout {
    /// Display name of each slot, and the source parameter it is the value of, if any
    /// (`(n: i64) (xs: [n]f32)`).
    slots: Vec<(String, Option<usize>)>,
    /// Per source parameter, per leaf: element type and dims.
    params: Vec<Vec<(PrimType, Vec<DimSrc>)>>,
}

#[derive(Clone, Debug)]
struct Instance<'a> {
    fun: usize,
    layout: Layout,
    /// The result's shape (leaves are placeholders).
    result: SVal<'a>,
}

#[derive(Clone, Debug)]
enum InstState<'a> {
    InProgress,
    Done(Rc<Instance<'a>>),
}

pub(crate) struct Lowerer<'a> {
    cp: &'a CheckedProgram,
    pub(crate) b: Builder,
    funs: Vec<Option<FunDef>>,
    entries: Vec<EntryPoint>,
    instances: HashMap<(usize, String), InstState<'a>>,
    fun_names: HashSet<String>,
    /// Top-level declarations by name, in program order.
    by_name: HashMap<&'a str, Vec<usize>>,
    depth: usize,
}

impl<'a> Lowerer<'a> {
    fn new(cp: &'a CheckedProgram) -> Lowerer<'a> {
        let mut by_name: HashMap<&'a str, Vec<usize>> = HashMap::new();
        for (i, d) in cp.program.decs.iter().enumerate() {
            if let Dec::Val(v) = d {
                by_name.entry(v.name.as_str()).or_default().push(i);
            }
        }
        Lowerer {
            cp,
            b: Builder::new(),
            funs: Vec::new(),
            entries: Vec::new(),
            instances: HashMap::new(),
            fun_names: HashSet::new(),
            by_name,
            depth: 0,
        }
    }

    fn finish(self) -> Result<Program, Vec<Diagnostic>> {
        let mut funs = Vec::new();
        for f in self.funs {
            match f {
                Some(mut f) => {
                    rewrite::dce(&mut f.body);
                    funs.push(f)
                }
                None => {
                    return Err(vec![internal(
                        Span::DUMMY,
                        "a function instance was not completed",
                    )]);
                }
            }
        }
        Ok(Program { funs, entries: self.entries, names: self.b.names })
    }

    // --- checker tables --------------------------------------------------------------------

    pub(crate) fn expr_type(&self, id: NodeId, span: Span) -> LResult<&'a SType> {
        self.cp.expr_types.get(&id).ok_or_else(|| internal(span, "expression without a type"))
    }

    pub(crate) fn pat_type(&self, p: &Pat) -> LResult<&'a SType> {
        self.cp.pat_types.get(&p.id).ok_or_else(|| internal(p.span, "pattern without a type"))
    }

    fn valdec(&self, dec: usize) -> Option<&'a ValDec> {
        match self.cp.program.decs.get(dec) {
            Some(Dec::Val(v)) => Some(v),
            _ => None,
        }
    }

    /// The latest top-level definition called `name` visible from declarations `< top`.
    pub(crate) fn top_level(&self, name: &str, top: usize) -> Option<usize> {
        self.by_name.get(name)?.iter().rev().find(|&&i| i < top).copied()
    }

    pub(crate) fn is_prelude(&self, dec: usize) -> bool {
        dec < self.cp.prelude_decs
    }

    /// Guard recursion depth around `f`.
    pub(crate) fn nested<T>(
        &mut self,
        span: Span,
        f: impl FnOnce(&mut Self) -> LResult<T>,
    ) -> LResult<T> {
        if self.depth >= MAX_DEPTH {
            return Err(unsupported(span, "expression or call chain nested too deeply"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn unique_fun_name(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.fun_names.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.fun_names.insert(name.clone());
        name
    }

    // --- top-level definitions -------------------------------------------------------------

    /// A non-entry user definition: lowered as a function when it is monomorphic and
    /// first-order, so that `ogham show ir` shows it; otherwise only where it is used.
    fn plain_def(&mut self, i: usize, v: &'a ValDec) -> LResult<()> {
        let Some(Some(scheme)) = self.cp.schemes.get(i) else { return Ok(()) };
        if !scheme.type_params.is_empty() || !self.first_order(i, &scheme.ty) {
            return Ok(());
        }
        self.instance(i, &scheme.ty.clone(), v.span).map(|_| ())
    }

    /// Whether applying definition `dec` at type `ty` to all its parameters is first-order.
    pub(crate) fn first_order(&self, dec: usize, ty: &SType) -> bool {
        let Some(v) = self.valdec(dec) else { return false };
        let (params, ret) = split_arrows(ty, v.params.len());
        params.len() == v.params.len() && !params.iter().any(|t| has_arrow(t)) && !has_arrow(ret)
    }

    /// The IR function for definition `dec` at (instantiated) type `ty`, creating it if needed.
    fn instance(&mut self, dec: usize, ty: &SType, span: Span) -> LResult<Rc<Instance<'a>>> {
        let key = (dec, sval::erased(ty));
        match self.instances.get(&key) {
            Some(InstState::Done(inst)) => return Ok(inst.clone()),
            Some(InstState::InProgress) => {
                return Err(unsupported(span, "recursive definitions"));
            }
            None => {}
        }
        self.instances.insert(key.clone(), InstState::InProgress);
        let r = self.nested(span, |l| l.make_instance(dec, ty));
        match r {
            Ok(inst) => {
                let inst = Rc::new(inst);
                self.instances.insert(key, InstState::Done(inst.clone()));
                Ok(inst)
            }
            Err(e) => {
                self.instances.remove(&key);
                Err(e)
            }
        }
    }

    fn make_instance(&mut self, dec: usize, ty: &SType) -> LResult<Instance<'a>> {
        let v = self.valdec(dec).ok_or_else(|| internal(Span::DUMMY, "not a value definition"))?;
        let scheme = self.cp.schemes.get(dec).cloned().flatten();
        let mut tsubst = HashMap::new();
        if let Some(s) = &scheme {
            match_type(&s.ty, ty, &mut tsubst);
        }
        let (inst_params, _) = split_arrows(ty, v.params.len());
        let raw: Vec<&SType> = v.params.iter().map(|p| self.pat_type(p)).collect::<LResult<_>>()?;
        let layout = self.layout(v, &raw, &inst_params)?;

        let fun_index = self.funs.len();
        self.funs.push(None);
        let saved_span = std::mem::replace(&mut self.b.span, v.span);
        let mark = self.b.depth();
        self.b.open();
        let r = self.instance_body(dec, v, tsubst, &layout, &inst_params);
        let (params, result) = match r {
            Ok(x) => x,
            Err(e) => {
                self.b.truncate(mark);
                self.b.span = saved_span;
                return Err(e);
            }
        };
        let leaves = result.leaves();
        let (body, ret, existentials) = self.close_fun_body(&params, leaves);
        self.b.span = saved_span;
        let name = self.unique_fun_name(&v.name);
        self.funs[fun_index] = Some(FunDef { name, params, existentials, ret, body, span: v.span });
        Ok(Instance { fun: fun_index, layout, result })
    }

    /// Create the parameters of an instance and lower its body into the open body.
    fn instance_body(
        &mut self,
        dec: usize,
        v: &'a ValDec,
        tsubst: HashMap<crate::types::TyVar, SType>,
        layout: &Layout,
        inst_params: &[&SType],
    ) -> LResult<(Vec<Param>, SVal<'a>)> {
        let mut params = Vec::new();
        let mut slot_vars = Vec::new();
        for (name, _) in &layout.slots {
            let p = self.b.param(if is_source_name(name) { name } else { "d" }, i64t());
            slot_vars.push(p.var);
            params.push(p);
        }
        let mut env = Env::top_level(dec, tsubst);
        for ((name, _), var) in layout.slots.iter().zip(&slot_vars) {
            env = env.bind(name, SVal::Leaf(Atom::Var(*var), i64t()));
        }
        let mut args = Vec::new();
        for (k, leaves) in layout.params.iter().enumerate() {
            let pname = match v.params.get(k).map(|p| &p.kind) {
                Some(PatKind::Var(n)) => n.clone(),
                Some(PatKind::Ascribed(p, _)) => match &p.kind {
                    PatKind::Var(n) => n.clone(),
                    _ => "p".into(),
                },
                _ => "p".into(),
            };
            let mut ir_leaves = Vec::new();
            for (elem, dims) in leaves {
                let shape: Vec<Dim> = dims
                    .iter()
                    .map(|d| match d {
                        DimSrc::Const(c) => Dim::Const(*c),
                        DimSrc::Slot(s) => Dim::Var(slot_vars[*s]),
                    })
                    .collect();
                let p = self.b.param(&pname, builder::array_ty(*elem, shape));
                ir_leaves.push((Atom::Var(p.var), p.ty.clone()));
                params.push(p);
            }
            let ty =
                inst_params.get(k).copied().ok_or_else(|| internal(v.span, "parameter count"))?;
            let val = pat::build_sval(ty, &mut ir_leaves.into_iter())
                .ok_or_else(|| internal(v.span, "parameter shape"))?;
            args.push(val);
        }
        for (p, a) in v.params.iter().zip(args) {
            env = self.bind_pat(p, a, &env)?;
        }
        let result = self.expr(&v.body, &env)?;
        if result.contains_fun() {
            return Err(internal(v.span, "a first-order function returned a function"));
        }
        Ok((params, result))
    }

    /// Close the open function body returning `leaves`: dims that are not parameters become
    /// existential results, returned first.
    fn close_fun_body(
        &mut self,
        params: &[Param],
        leaves: Vec<(Atom, Type)>,
    ) -> (Body, Vec<Type>, usize) {
        let pvars: HashSet<Var> = params.iter().map(|p| p.var).collect();
        let mut ex: Vec<Var> = Vec::new();
        for (_, t) in &leaves {
            for d in builder::shape(t) {
                if let Dim::Var(v) = d {
                    if !pvars.contains(v) && !ex.contains(v) {
                        ex.push(*v);
                    }
                }
            }
        }
        let mut result: Vec<Atom> = ex.iter().map(|v| Atom::Var(*v)).collect();
        let mut ret: Vec<Type> = ex.iter().map(|_| i64t()).collect();
        for (a, t) in leaves {
            result.push(a);
            ret.push(t);
        }
        (self.b.close(result), ret, ex.len())
    }

    /// The parameter layout of an instance, from the raw parameter types (which name the
    /// definition's sizes) and the instantiated ones (which give the structure).
    fn layout(&self, v: &ValDec, raw: &[&SType], inst: &[&SType]) -> LResult<Layout> {
        let mut slots: Vec<(String, Option<usize>)> = Vec::new();
        let mut named: HashMap<String, usize> = HashMap::new();
        // `(n: i64)` parameters whose names sizes may use.
        let mut value_names: HashMap<String, usize> = HashMap::new();
        for (k, p) in v.params.iter().enumerate() {
            if let Some(n) = pat::simple_var(p) {
                if matches!(inst.get(k), Some(SType::Prim(PrimType::I64))) {
                    value_names.insert(n.to_string(), k);
                }
            }
        }
        let mut params = Vec::new();
        for (k, it) in inst.iter().enumerate() {
            let shapes =
                pat::leaf_shapes(raw.get(k).copied(), it).map_err(|m| unsupported(v.span, m))?;
            let mut leaves = Vec::new();
            for (elem, dims) in shapes {
                let mut ds = Vec::new();
                for d in dims {
                    ds.push(match d {
                        DimName::Const(c) => DimSrc::Const(c),
                        DimName::Named(n) => {
                            let s = *named.entry(n.clone()).or_insert_with(|| {
                                slots.push((n.clone(), value_names.get(&n).copied()));
                                slots.len() - 1
                            });
                            DimSrc::Slot(s)
                        }
                        // The checker saw that the arguments of a call have these sizes.
                        DimName::Computed(_) | DimName::Anon => {
                            slots.push(("d".into(), None));
                            DimSrc::Slot(slots.len() - 1)
                        }
                    });
                }
                leaves.push((elem, ds));
            }
            params.push(leaves);
        }
        Ok(Layout { slots, params })
    }

    /// Call an instance: compute its size arguments from the arguments' shapes (checking that
    /// sizes the definition names alike agree), then apply it.
    fn call_instance(
        &mut self,
        inst: &Instance<'a>,
        args: Vec<SVal<'a>>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let layout = &inst.layout;
        let mut slot_atoms: Vec<Option<Atom>> = vec![None; layout.slots.len()];
        for (s, (_, vp)) in layout.slots.iter().enumerate() {
            if let Some(k) = vp {
                if let Some(SVal::Leaf(a, _)) = args.get(*k) {
                    slot_atoms[s] = Some(*a);
                }
            }
        }
        let arg_leaves: Vec<Vec<(Atom, Type)>> = args.iter().map(|a| a.leaves()).collect();
        for (k, leaves) in arg_leaves.iter().enumerate() {
            let specs = layout.params.get(k).ok_or_else(|| internal(span, "argument count"))?;
            for ((_, t), (_, dims)) in leaves.iter().zip(specs) {
                for (d, src) in builder::shape(t).iter().zip(dims) {
                    if let DimSrc::Slot(s) = src {
                        if slot_atoms[*s].is_none() {
                            slot_atoms[*s] = Some(builder::dim_atom(*d));
                        }
                    }
                }
            }
        }
        let mut call_args: Vec<Atom> = Vec::new();
        for (s, a) in slot_atoms.iter().enumerate() {
            match a {
                Some(a) => call_args.push(*a),
                None => {
                    let name = &layout.slots[s].0;
                    return Err(unsupported(
                        span,
                        format!("size `{name}` cannot be determined from the arguments"),
                    ));
                }
            }
        }
        // Value arguments, coerced to the shapes the instance expects.
        for (k, leaves) in arg_leaves.into_iter().enumerate() {
            let specs = &layout.params[k];
            if leaves.len() != specs.len() {
                return Err(internal(span, "argument shape"));
            }
            for ((a, t), (elem, dims)) in leaves.into_iter().zip(specs) {
                let want: Vec<Dim> = dims
                    .iter()
                    .map(|d| match d {
                        DimSrc::Const(c) => Dim::Const(*c),
                        DimSrc::Slot(s) => {
                            builder::atom_dim(call_args[*s]).unwrap_or(Dim::Const(0))
                        }
                    })
                    .collect();
                let want_ty = builder::array_ty(*elem, want);
                let a = self.coerce_leaf(a, &t, &want_ty, "argument")?;
                call_args.push(a);
            }
        }
        let f = self
            .funs
            .get(inst.fun)
            .and_then(|f| f.as_ref())
            .ok_or_else(|| internal(span, "call of an unfinished function"))?;
        let ex = f.existentials;
        let mut subst: HashMap<Var, Dim> = HashMap::new();
        for (p, a) in f.params.iter().zip(&call_args) {
            if let Some(d) = builder::atom_dim(*a) {
                subst.insert(p.var, d);
            }
        }
        let ret = f.ret.clone();
        let body_ex: Vec<Option<Var>> = f.body.result.iter().take(ex).map(Atom::as_var).collect();
        let mut pat = Vec::new();
        for (j, bv) in body_ex.iter().enumerate() {
            let p = self.b.param("d", i64t());
            if let Some(bv) = bv {
                subst.entry(*bv).or_insert(Dim::Var(p.var));
            }
            let _ = j;
            pat.push(p);
        }
        let mut leaves = Vec::new();
        for t in ret.iter().skip(ex) {
            let t = rewrite::subst_type_dims(t, &subst);
            let p = self.b.param("r", t.clone());
            leaves.push((Atom::Var(p.var), t));
            pat.push(p);
        }
        self.b.span = span;
        self.b.push(pat, crate::ir::Exp::Apply { fun: inst.fun, args: call_args });
        inst.result.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "result shape"))
    }

    // --- entry points ----------------------------------------------------------------------

    fn entry(&mut self, i: usize, v: &'a ValDec) -> LResult<()> {
        let cp = self.cp;
        let scheme = cp
            .schemes
            .get(i)
            .and_then(|s| s.as_ref())
            .ok_or_else(|| internal(v.span, "entry point without a type"))?;
        if !scheme.type_params.is_empty() {
            return Err(unsupported(v.span, format!("polymorphic entry point `{}`", v.name)));
        }
        let (_, mut ret_ty) = split_arrows(&scheme.ty, v.params.len());
        // A function result takes further arguments (`entry main = map f`).
        let mut extra = Vec::new();
        while let SType::Arrow { from, to, .. } = ret_ty {
            extra.push(&**from);
            ret_ty = to;
        }
        let bad = |what: &str, t: &SType| {
            unsupported(v.span, format!("entry point `{}` {what} `{t}`: entry points take and return primitive values, arrays of them, and tuples, records and sum types of those", v.name))
        };
        // Parameters: each one's leaves (a tuple or record is its components, an array of
        // tuples the arrays of their components), sizes first, then values.
        let pat_types: Vec<&SType> =
            v.params.iter().map(|p| self.pat_type(p)).collect::<LResult<_>>()?;
        let mut ptys = Vec::new();
        let mut param_shapes = Vec::new();
        for t in pat_types.into_iter().chain(extra) {
            let (shape, leaves) =
                entry_leaves(t).ok_or_else(|| bad("takes a parameter of type", t))?;
            param_shapes.push(shape);
            ptys.push((t, leaves));
        }
        let (result_shape, rets) =
            entry_leaves(ret_ty).ok_or_else(|| bad("returns a value of type", ret_ty))?;
        let saved_span = std::mem::replace(&mut self.b.span, v.span);
        let mark = self.b.depth();
        self.b.open();
        let r = self.entry_body(i, v, &ptys);
        let (params, result) = match r {
            Ok(x) => x,
            Err(e) => {
                self.b.truncate(mark);
                self.b.span = saved_span;
                return Err(e);
            }
        };
        let leaves = result.leaves();
        if leaves.len() != rets.len() {
            self.b.truncate(mark);
            self.b.span = saved_span;
            return Err(internal(v.span, "entry result shape"));
        }
        let (body, ret, existentials) = self.close_fun_body(&params, leaves);
        self.b.span = saved_span;
        let name = self.unique_fun_name(&v.name);
        let fun = self.funs.len();
        self.funs.push(Some(FunDef { name, params, existentials, ret, body, span: v.span }));
        self.entries.push(EntryPoint {
            name: v.name.clone(),
            fun,
            params: ptys.into_iter().flat_map(|(_, leaves)| leaves).collect(),
            results: rets,
            param_shapes,
            result_shape,
            span: v.span,
        });
        Ok(())
    }

    fn entry_body(
        &mut self,
        i: usize,
        v: &'a ValDec,
        ptys: &[(&'a SType, Vec<EntryType>)],
    ) -> LResult<(Vec<Param>, SVal<'a>)> {
        let mut params = Vec::new();
        let mut dim_vars: Vec<Vec<Vec<Var>>> = Vec::new();
        for (t, leaves) in ptys {
            let names = pat::leaf_shapes(Some(t), t).map_err(|m| unsupported(v.span, m))?;
            let mut per_leaf = Vec::new();
            for (_, dims) in names.iter().take(leaves.len()) {
                let mut ds = Vec::new();
                for d in dims {
                    let name = match d {
                        DimName::Named(n) if is_source_name(n) => n.clone(),
                        _ => "d".to_string(),
                    };
                    let p = self.b.param(&name, i64t());
                    ds.push(p.var);
                    params.push(p);
                }
                per_leaf.push(ds);
            }
            dim_vars.push(per_leaf);
        }
        let mut env = Env::top_level(i, HashMap::new());
        let mut vals = Vec::new();
        for (k, ((t, leaves), ds)) in ptys.iter().zip(&dim_vars).enumerate() {
            let name = v.params.get(k).and_then(pat::simple_var).unwrap_or("p").to_string();
            let mut ir_leaves = Vec::new();
            for (et, ds) in leaves.iter().zip(ds) {
                let ty = builder::array_ty(et.elem, ds.iter().map(|d| Dim::Var(*d)).collect());
                let param = self.b.param(&name, ty.clone());
                ir_leaves.push((Atom::Var(param.var), ty));
                params.push(param);
            }
            let val = pat::build_sval(t, &mut ir_leaves.into_iter())
                .ok_or_else(|| internal(v.span, "entry parameter shape"))?;
            self.check_tags(&val, &name, v.span)?;
            vals.push(val);
        }
        // Sizes named alike must agree: the first parameter binds a size, later ones are checked
        // (and reshaped, so later code sees one size variable).
        let mut vals = vals.into_iter();
        let mut computed = Vec::new();
        for (p, (t, _)) in v.params.iter().zip(ptys) {
            let val = vals.next().ok_or_else(|| internal(v.span, "entry parameters"))?;
            let what = format!("argument `{}`", pat::simple_var(p).unwrap_or("_"));
            if has_computed_size(t) {
                computed.push((*t, val.clone(), what.clone()));
            }
            let (val, env2) = self.check_sizes(t, val, &env, &what)?;
            env = self.bind_pat(p, val, &env2)?;
        }
        // Computed sizes (`[n*m]`) again, now that every parameter has named its sizes.
        for (t, val, what) in computed {
            self.check_sizes(t, val, &env, &what)?;
        }
        let mut result = self.expr(&v.body, &env)?;
        // The further arguments of a function result.
        for (k, (val, (t, _))) in vals.zip(&ptys[v.params.len()..]).enumerate() {
            let (val, env2) =
                self.check_sizes(t, val, &env, &format!("argument {}", v.params.len() + k + 1))?;
            env = env2;
            result = self.apply_val(result, val, v.span)?;
        }
        Ok((params, result))
    }
}

impl<'a> Lowerer<'a> {
    /// Check that every constructor index in an entry argument names a constructor: the caller
    /// builds sum values from their parts, and a `match` relies on the index being one of them.
    fn check_tags(&mut self, val: &SVal<'a>, param: &str, span: Span) -> LResult<()> {
        match val {
            SVal::Sum { ctors, tag, payloads } => {
                let SVal::Leaf(t, ty) = &**tag else {
                    return Err(internal(span, "constructor index"));
                };
                let names: Vec<String> =
                    ctors.iter().enumerate().map(|(i, c)| format!("{i} (`#{c}`)")).collect();
                let msg = format!(
                    "argument `{param}` has a constructor index other than {}",
                    names.join(", ")
                );
                if ctors.len() > 127 {
                    return Err(unsupported(span, "sum types with more than 127 constructors"));
                }
                let ok = self.tags_in_range(*t, ty, ctors.len(), span)?;
                self.b.span = span;
                self.b.assert(ok, msg, Vec::new());
                for p in payloads.iter().flatten() {
                    self.check_tags(p, param, span)?;
                }
            }
            SVal::Tuple(vs) => vs.iter().try_for_each(|v| self.check_tags(v, param, span))?,
            SVal::Record(fs) => fs.values().try_for_each(|v| self.check_tags(v, param, span))?,
            SVal::Leaf(..) | SVal::Fun(_) => {}
        }
        Ok(())
    }

    /// Whether every element of `tag` (an `i8` or an array of them) is in `0..n`.
    fn tags_in_range(&mut self, tag: Atom, ty: &Type, n: usize, span: Span) -> LResult<Atom> {
        let i8t = pat::TAG_TYPE;
        let in_range = |b: &mut Builder, t: Atom| {
            let lo = b.cmp(CmpOp::Ge, i8t, t, Atom::Const(PrimValue::I8(0)));
            let hi = b.cmp(CmpOp::Lt, i8t, t, Atom::Const(PrimValue::I8(n as i8)));
            b.and(lo, hi)
        };
        let dims = builder::shape(ty).to_vec();
        if dims.is_empty() {
            return Ok(in_range(&mut self.b, tag));
        }
        let i64p = PrimType::I64;
        let mut total = builder::i64c(1);
        for d in &dims {
            total = self.b.binop(BinOp::Mul, i64p, total, builder::dim_atom(*d));
        }
        let td = builder::atom_dim(total).ok_or_else(|| internal(span, "array size"))?;
        let mut flat = self.b.var_of(tag, ty, "tags");
        if dims.len() > 1 {
            let t = builder::array_ty(i8t, vec![td]);
            flat = self.b.let1("tags", t, Exp::Reshape { arr: flat, shape: vec![td] });
        }
        let p = self.b.param("t", Type::Prim(i8t));
        let lam = self.b.lambda::<Diagnostic>(vec![p], |b, ps| {
            let c = in_range(b, Atom::Var(ps[0].var));
            Ok((vec![c], vec![Type::Prim(PrimType::Bool)]))
        })?;
        let bools = builder::array_ty(PrimType::Bool, vec![td]);
        let oks = self.b.let1("oks", bools, Exp::Map { w: total, lam, arrs: vec![flat] });
        Ok(self.all_true(total, oks))
    }
}

/// Does the type have a size computed from others (`[n*m]`) outside function types?
fn has_computed_size(t: &SType) -> bool {
    match t {
        SType::Array { shape, elem, .. } => {
            shape.iter().any(Size::is_computed) || has_computed_size(elem)
        }
        SType::Tuple(ts) => ts.iter().any(has_computed_size),
        SType::Record(fs) => fs.values().any(has_computed_size),
        SType::Sum(cs) => cs.values().flatten().any(has_computed_size),
        SType::Prim(_) | SType::Var(_) | SType::Arrow { .. } => false,
    }
}

/// How a type is passed to or from an entry point, and the values it is passed as: a primitive
/// or an array of primitives is one value; a tuple or record is its components' (records by
/// field name), and an array of tuples or records the arrays of their components, as lowering
/// represents them; a sum value is its constructor's index and every constructor's payload.
/// `None` for functions and type variables, which have no representation outside a program.
fn entry_leaves(t: &SType) -> Option<(EntryShape, Vec<EntryType>)> {
    fn walk(
        t: &SType,
        outer: &[Size],
        unique: bool,
        out: &mut Vec<EntryType>,
    ) -> Option<EntryShape> {
        Some(match t {
            SType::Prim(p) => {
                out.push(EntryType {
                    elem: *p,
                    rank: outer.len(),
                    unique,
                    display: entry_display(outer, *p, unique),
                });
                EntryShape::Leaf
            }
            SType::Array { shape, elem, unique: u } => {
                let mut dims = outer.to_vec();
                dims.extend(shape.iter().cloned());
                match walk(elem, &dims, unique || *u, out)? {
                    EntryShape::Leaf => EntryShape::Leaf,
                    inner => EntryShape::Array(shape.len(), Box::new(inner)),
                }
            }
            SType::Tuple(ts) => EntryShape::Tuple(
                ts.iter().map(|t| walk(t, outer, unique, out)).collect::<Option<_>>()?,
            ),
            SType::Record(fs) => EntryShape::Record(
                fs.iter()
                    .map(|(n, t)| Some((n.clone(), walk(t, outer, unique, out)?)))
                    .collect::<Option<_>>()?,
            ),
            SType::Sum(cs) => {
                out.push(EntryType {
                    elem: pat::TAG_TYPE,
                    rank: outer.len(),
                    unique,
                    display: entry_display(outer, pat::TAG_TYPE, unique),
                });
                EntryShape::Sum(
                    cs.iter()
                        .map(|(n, ts)| {
                            let ps = ts.iter().map(|t| walk(t, outer, unique, out));
                            Some((n.clone(), ps.collect::<Option<_>>()?))
                        })
                        .collect::<Option<_>>()?,
                )
            }
            SType::Arrow { .. } | SType::Var(_) => return None,
        })
    }
    let mut out = Vec::new();
    let shape = walk(t, &[], false, &mut out)?;
    Some((shape, out))
}

/// An entry type as the user would write it: sizes the checker invented print as `[]`.
fn entry_display(shape: &[Size], elem: PrimType, unique: bool) -> String {
    let mut out = String::from(if unique { "*" } else { "" });
    for s in shape {
        match s {
            Size::Var(n) if is_source_name(n) => out.push_str(&format!("[{n}]")),
            Size::Const(c) => out.push_str(&format!("[{c}]")),
            s if s.is_computed() && s.names().iter().all(|n| is_source_name(n)) => {
                out.push_str(&format!("[{s}]"))
            }
            _ => out.push_str("[]"),
        }
    }
    out.push_str(elem.name());
    out
}

/// Whether a name could have been written in source (not one the checker invented).
pub(crate) fn is_source_name(n: &str) -> bool {
    let mut cs = n.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'')
}

impl std::fmt::Debug for Lowerer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lowerer")
    }
}

#[cfg(test)]
mod tests;
