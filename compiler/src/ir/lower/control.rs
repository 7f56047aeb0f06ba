//! Control flow: `if`, `match` (a chain of `If`s on pattern tests) and loops.

use super::pat::leaf_shapes;
use crate::types::Type as SType;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::builder::{array_ty, boolc, dim_atom, i64t, shape};
use super::rewrite::Subst;
use super::sval::{has_arrow, Env, SFun, SVal};
use super::{internal, unsupported, LResult, Lowerer};
use crate::diag::Span;
use crate::ir::{Atom, Body, CmpOp, Dim, DimIndex, Exp, LoopForm, Param, Type, Var};
use crate::prim::{IntType, PrimType, PrimValue};
use crate::syntax::ast::{Expr, Literal, LoopForm as SLoopForm, Pat, PatKind};

impl<'a> Lowerer<'a> {
    /// Lower `e` into a new body; on error the body is discarded.
    pub(crate) fn branch(&mut self, e: &'a Expr, env: &Env<'a>) -> LResult<(Body, SVal<'a>)> {
        let mark = self.b.depth();
        self.b.open();
        match self.expr(e, env) {
            Ok(v) => Ok((self.b.close(Vec::new()), v)),
            Err(err) => {
                self.b.truncate(mark);
                Err(err)
            }
        }
    }

    pub(crate) fn lower_if(
        &mut self,
        c: &'a Expr,
        t: &'a Expr,
        f: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let cv = self.expr(c, env)?;
        let (ca, _) = self.scalar(&cv, c.span)?;
        match ca {
            Atom::Const(PrimValue::Bool(true)) => return self.expr(t, env),
            Atom::Const(PrimValue::Bool(false)) => return self.expr(f, env),
            _ => {}
        }
        let then_b = self.branch(t, env)?;
        let else_b = self.branch(f, env)?;
        self.join(ca, then_b, else_b)
    }

    /// Emit `if cond then .. else ..` from two lowered branches; dims on which the branches
    /// disagree (or that are computed inside them) become existential results.
    pub(crate) fn join(
        &mut self,
        cond: Atom,
        then_b: (Body, SVal<'a>),
        else_b: (Body, SVal<'a>),
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let (mut tbody, tv) = then_b;
        let (mut ebody, ev) = else_b;
        if tv.contains_fun() || ev.contains_fun() {
            return Err(unsupported(span, "a conditional that returns a function"));
        }
        let tl = tv.leaves();
        let el = ev.leaves();
        if tl.len() != el.len() {
            return Err(internal(span, "branches of different shapes"));
        }
        let mut inner: HashSet<Var> = HashSet::new();
        for s in tbody.stms.iter().chain(&ebody.stms) {
            inner.extend(s.pat.iter().map(|p| p.var));
        }
        let mut ex_pairs: Vec<(Dim, Dim)> = Vec::new();
        let mut ex_params: Vec<Param> = Vec::new();
        let mut leaf_types = Vec::new();
        for ((_, tt), (_, et)) in tl.iter().zip(&el) {
            if tt.rank() != et.rank() || tt.elem() != et.elem() {
                return Err(internal(span, "branches of different types"));
            }
            let mut dims = Vec::new();
            for (a, b) in shape(tt).iter().zip(shape(et)) {
                let is_inner = |d: &Dim| matches!(d, Dim::Var(v) if inner.contains(v));
                if a == b && !is_inner(a) {
                    dims.push(*a);
                    continue;
                }
                let k = match ex_pairs.iter().position(|p| p == &(*a, *b)) {
                    Some(k) => k,
                    None => {
                        ex_pairs.push((*a, *b));
                        ex_params.push(self.b.param("d", i64t()));
                        ex_pairs.len() - 1
                    }
                };
                dims.push(Dim::Var(ex_params[k].var));
            }
            leaf_types.push(array_ty(tt.elem(), dims));
        }
        tbody.result =
            ex_pairs.iter().map(|(a, _)| dim_atom(*a)).chain(tl.iter().map(|(a, _)| *a)).collect();
        ebody.result =
            ex_pairs.iter().map(|(_, b)| dim_atom(*b)).chain(el.iter().map(|(a, _)| *a)).collect();
        let mut pat = ex_params;
        let mut leaves = Vec::new();
        for t in leaf_types {
            let p = self.b.param("r", t.clone());
            leaves.push((Atom::Var(p.var), t));
            pat.push(p);
        }
        let ret: Vec<Type> = pat.iter().map(|p| p.ty.clone()).collect();
        self.b.push(pat, Exp::If { cond, then_body: tbody, else_body: ebody, ret });
        tv.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "branch shape"))
    }

    // --- match -----------------------------------------------------------------------------

    pub(crate) fn lower_match(
        &mut self,
        x: &'a Expr,
        cases: &'a [(Pat, Expr)],
        e: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let v = self.expr(x, env)?;
        if cases.is_empty() {
            return Err(internal(e.span, "`match` without cases"));
        }
        self.match_cases(&v, cases, env)
    }

    pub(crate) fn match_cases(
        &mut self,
        v: &SVal<'a>,
        cases: &'a [(Pat, Expr)],
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let Some(((p, body), rest)) = cases.split_first() else {
            return Err(internal(self.b.span, "`match` without cases"));
        };
        // The last case needs no test (the checker ensures the cases are exhaustive).
        let test = if rest.is_empty() { boolc(true) } else { self.pat_test(p, v)? };
        if test == boolc(true) {
            let env2 = self.bind_refutable(p, v.clone(), env)?;
            return self.expr(body, &env2);
        }
        let mark = self.b.depth();
        self.b.open();
        let then_v = self.bind_refutable(p, v.clone(), env).and_then(|env2| self.expr(body, &env2));
        let then_v = match then_v {
            Ok(x) => x,
            Err(err) => {
                self.b.truncate(mark);
                return Err(err);
            }
        };
        let then_body = self.b.close(Vec::new());
        self.b.open();
        let else_v = match self.match_cases(v, rest, env) {
            Ok(x) => x,
            Err(err) => {
                self.b.truncate(mark);
                return Err(err);
            }
        };
        let else_body = self.b.close(Vec::new());
        self.join(test, (then_body, then_v), (else_body, else_v))
    }

    /// Whether `v` matches `p` (a `bool` atom).
    pub(crate) fn pat_test(&mut self, p: &'a Pat, v: &SVal<'a>) -> LResult<Atom> {
        let span = p.span;
        match (&p.kind, v) {
            (PatKind::Var(_) | PatKind::Wildcard, _) => Ok(boolc(true)),
            (PatKind::Ascribed(inner, _), _) => self.pat_test(inner, v),
            (PatKind::Tuple(ps), SVal::Tuple(vs)) if ps.len() == vs.len() => {
                let mut acc = boolc(true);
                for (p, v) in ps.iter().zip(vs) {
                    let c = self.pat_test(p, v)?;
                    acc = self.b.and(acc, c);
                }
                Ok(acc)
            }
            (PatKind::Tuple(ps), _) if ps.len() == 1 => self.pat_test(&ps[0], v),
            (PatKind::Record(fs), SVal::Record(vs)) => {
                let mut acc = boolc(true);
                for (n, p) in fs {
                    let v = vs.get(n).ok_or_else(|| internal(span, format!("no field `{n}`")))?;
                    let c = self.pat_test(p, v)?;
                    acc = self.b.and(acc, c);
                }
                Ok(acc)
            }
            (PatKind::Literal(lit), SVal::Leaf(a, Type::Prim(t))) => {
                let c =
                    literal_value(lit, *t).ok_or_else(|| internal(span, "literal pattern type"))?;
                Ok(self.b.cmp(CmpOp::Eq, *t, *a, Atom::Const(c)))
            }
            (PatKind::Constr(name, ps), SVal::Sum { ctors, tag, payloads }) => {
                let k = ctors
                    .iter()
                    .position(|c| c == name)
                    .ok_or_else(|| internal(span, "unknown constructor"))?;
                let SVal::Leaf(ta, _) = &**tag else { return Err(internal(span, "sum tag")) };
                let kc = Atom::Const(PrimValue::int(IntType::I8, k as i128));
                let mut acc = self.b.cmp(CmpOp::Eq, super::pat::TAG_TYPE, *ta, kc);
                let payload = payloads.get(k).ok_or_else(|| internal(span, "sum payload"))?;
                for (p, v) in ps.iter().zip(payload) {
                    let c = self.pat_test(p, v)?;
                    acc = self.b.and(acc, c);
                }
                Ok(acc)
            }
            _ => Err(internal(span, "pattern does not fit the matched value")),
        }
    }

    /// Bind the variables of a `match` pattern (literals and constructors test, not bind).
    pub(crate) fn bind_refutable(
        &mut self,
        p: &'a Pat,
        v: SVal<'a>,
        env: &Env<'a>,
    ) -> LResult<Env<'a>> {
        match (&p.kind, v) {
            (PatKind::Literal(_), _) => Ok(env.clone()),
            (PatKind::Constr(name, ps), SVal::Sum { ctors, payloads, .. }) => {
                let k = ctors
                    .iter()
                    .position(|c| c == name)
                    .ok_or_else(|| internal(p.span, "unknown constructor"))?;
                let payload = payloads.into_iter().nth(k).unwrap_or_default();
                let mut env = env.clone();
                for (p, v) in ps.iter().zip(payload) {
                    env = self.bind_refutable(p, v, &env)?;
                }
                Ok(env)
            }
            (PatKind::Tuple(ps), SVal::Tuple(vs)) if ps.len() == vs.len() => {
                let mut env = env.clone();
                for (p, v) in ps.iter().zip(vs) {
                    env = self.bind_refutable(p, v, &env)?;
                }
                Ok(env)
            }
            (PatKind::Record(fs), SVal::Record(mut vs)) => {
                let mut env = env.clone();
                for (n, p) in fs {
                    let v =
                        vs.remove(n).ok_or_else(|| internal(p.span, format!("no field `{n}`")))?;
                    env = self.bind_refutable(p, v, &env)?;
                }
                Ok(env)
            }
            (PatKind::Ascribed(inner, _), v) if inner.is_refutable_form() => {
                let t = self.pat_type(p)?;
                let (v, env) = self.check_sizes(t, v, env, "value")?;
                self.bind_refutable(inner, v, &env)
            }
            (_, v) => self.bind_pat(p, v, env),
        }
    }

    // --- loops -----------------------------------------------------------------------------

    /// The current value of a loop pattern's variables (`loop (x, y) for ...` without `=`).
    pub(crate) fn pattern_value(&self, p: &'a Pat, env: &Env<'a>) -> LResult<SVal<'a>> {
        match &p.kind {
            PatKind::Var(n) => env
                .lookup(n)
                .cloned()
                .ok_or_else(|| internal(p.span, format!("unknown variable `{n}`"))),
            PatKind::Ascribed(inner, _) => self.pattern_value(inner, env),
            PatKind::Tuple(ps) => Ok(SVal::Tuple(
                ps.iter().map(|p| self.pattern_value(p, env)).collect::<LResult<_>>()?,
            )),
            PatKind::Record(fs) => Ok(SVal::Record(
                fs.iter()
                    .map(|(n, p)| Ok((n.clone(), self.pattern_value(p, env)?)))
                    .collect::<LResult<_>>()?,
            )),
            _ => Err(unsupported(p.span, "this loop pattern without an initial value")),
        }
    }

    pub(crate) fn lower_loop(
        &mut self,
        pat: &'a Pat,
        init: Option<&'a Expr>,
        form: &'a SLoopForm,
        body: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let init_v = match init {
            Some(e) => self.expr(e, env)?,
            None => self.pattern_value(pat, env)?,
        };
        if init_v.contains_fun() {
            return Err(unsupported(span, "a loop that carries a function"));
        }
        enum Form<'a> {
            For { var: &'a str, bound: Atom, it: IntType },
            ForIn { p: &'a Pat, xs: SVal<'a>, w: Atom },
            While { c0: Atom, cond: &'a Expr },
        }
        let f = match form {
            SLoopForm::For { var, bound, .. } => {
                let bv = self.expr(bound, env)?;
                let (a, t) = self.scalar(&bv, bound.span)?;
                let PrimType::Int(it) = t else { return Err(internal(span, "loop bound type")) };
                Form::For { var, bound: a, it }
            }
            SLoopForm::ForIn(p, xs) => {
                let xv = self.expr(xs, env)?;
                let leaves = xv.leaves();
                let Some((_, t)) = leaves.first() else {
                    return Err(unsupported(xs.span, "`for ... in` over an array of empty tuples"));
                };
                let w = shape(t)
                    .first()
                    .map(|d| dim_atom(*d))
                    .ok_or_else(|| internal(span, "`for in` over a scalar"))?;
                Form::ForIn { p, xs: xv, w }
            }
            SLoopForm::While(c) => {
                let env0 = self.bind_pat(pat, init_v.clone(), env)?;
                let cv = self.expr(c, &env0)?;
                let (c0, _) = self.scalar(&cv, c.span)?;
                Form::While { c0, cond: c }
            }
        };
        let leaves = init_v.leaves();
        // Parameters: the `while` condition, one size per array dimension (removed again below
        // where the size does not change), then the values.
        let mut params: Vec<(Param, Atom)> = Vec::new();
        let cond_param = if let Form::While { c0, .. } = &f {
            let p = self.b.param("cond", Type::Prim(PrimType::Bool));
            let v = p.var;
            params.push((p, *c0));
            Some(v)
        } else {
            None
        };
        let mut value_params = Vec::new();
        for (_, t) in &leaves {
            let mut dims = Vec::new();
            for d in shape(t) {
                let p = self.b.param("d", i64t());
                dims.push(Dim::Var(p.var));
                params.push((p, dim_atom(*d)));
            }
            value_params.push(array_ty(t.elem(), dims));
        }
        let first_value = params.len();
        let mut inner_leaves = Vec::new();
        for ((a, _), t) in leaves.iter().zip(value_params) {
            let p = self.b.param("acc", t.clone());
            inner_leaves.push((Atom::Var(p.var), t));
            params.push((p, *a));
        }
        let inner = init_v
            .rebuild(&mut inner_leaves.into_iter())
            .ok_or_else(|| internal(span, "loop shape"))?;

        let mark = self.b.depth();
        self.b.open();
        let r = (|| -> LResult<(Vec<Atom>, Var, LoopForm)> {
            let mut env_b = self.bind_pat(pat, inner, env)?;
            let (i, lform) = match &f {
                Form::For { var, bound, it } => {
                    let i = self.b.fresh(var);
                    env_b =
                        env_b.bind(var, SVal::Leaf(Atom::Var(i), Type::Prim(PrimType::Int(*it))));
                    (i, LoopForm::For { i, it: *it, bound: *bound })
                }
                Form::ForIn { p, xs, w } => {
                    let i = self.b.fresh("i");
                    let x = self.index_leaves(xs, &[DimIndex::Fix(Atom::Var(i))])?;
                    env_b = self.bind_pat(p, x, &env_b)?;
                    (i, LoopForm::For { i, it: IntType::I64, bound: *w })
                }
                Form::While { .. } => {
                    let c = cond_param.ok_or_else(|| internal(span, "while condition"))?;
                    (c, LoopForm::While(c))
                }
            };
            let new = self.expr(body, &env_b)?;
            let new_leaves = new.leaves();
            if new_leaves.len() != leaves.len() {
                return Err(internal(span, "loop body of a different shape"));
            }
            let mut result = Vec::new();
            if let Form::While { cond, .. } = &f {
                let env_c = self.bind_pat(pat, new.clone(), env)?;
                let cv = self.expr(cond, &env_c)?;
                result.push(self.scalar(&cv, cond.span)?.0);
            }
            for ((_, t), (_, t0)) in new_leaves.iter().zip(&leaves) {
                if t.rank() != t0.rank() {
                    return Err(internal(span, "loop body of a different rank"));
                }
                result.extend(shape(t).iter().map(|d| dim_atom(*d)));
            }
            result.extend(new_leaves.iter().map(|(a, _)| *a));
            Ok((result, i, lform))
        })();
        let (result, _, lform) = match r {
            Ok(x) => x,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let body = self.b.close(result);
        self.finish_loop(params, first_value, lform, body, &init_v, span, cond_param)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_loop(
        &mut self,
        mut params: Vec<(Param, Atom)>,
        mut first_value: usize,
        lform: LoopForm,
        mut body: Body,
        init_v: &SVal<'a>,
        span: Span,
        cond_param: Option<Var>,
    ) -> LResult<SVal<'a>> {
        // Sizes that the body returns unchanged (or that equal their initial value) are not loop
        // parameters after all: substitute the initial value.
        loop {
            let found = params.iter().enumerate().take(first_value).find(|(k, (p, init))| {
                Some(p.var) != cond_param
                    && (body.result.get(*k) == Some(&Atom::Var(p.var))
                        || body.result.get(*k) == Some(init))
            });
            let Some((k, _)) = found else { break };
            let (p, init) = params.remove(k);
            body.result.remove(k);
            first_value -= 1;
            let map: HashMap<Var, Atom> = [(p.var, init)].into_iter().collect();
            let s = Subst(&map);
            s.body(&mut body);
            for (q, _) in params.iter_mut() {
                s.ty(&mut q.ty);
            }
        }
        let mut pat = Vec::new();
        let mut rename: HashMap<Var, Dim> = HashMap::new();
        let mut leaves = Vec::new();
        for (k, (p, _)) in params.iter().enumerate() {
            let t = super::rewrite::subst_type_dims(&p.ty, &rename);
            let q = self.b.param(if k < first_value { "d" } else { "r" }, t.clone());
            rename.insert(p.var, Dim::Var(q.var));
            if k >= first_value {
                leaves.push((Atom::Var(q.var), t));
            }
            pat.push(q);
        }
        self.b.push(pat, Exp::Loop { params, form: lform, body });
        init_v.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "loop shape"))
    }
}

impl<'a> Lowerer<'a> {
    // --- sums ------------------------------------------------------------------------------

    /// `#name e1 e2`: a sum value with this constructor's payload and placeholders for the rest.
    pub(crate) fn constr(
        &mut self,
        name: &str,
        es: &'a [Expr],
        e: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let t = self.node_type(e, env)?;
        let SType::Sum(cs) = &t else {
            return Err(internal(span, "constructor of a non-sum type"));
        };
        let args: Vec<SVal<'a>> = es.iter().map(|x| self.expr(x, env)).collect::<LResult<_>>()?;
        let ctors: Vec<String> = cs.keys().cloned().collect();
        let tag = ctors
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| internal(span, "unknown constructor"))?;
        if ctors.len() > 127 {
            return Err(unsupported(span, "sum types with more than 127 constructors"));
        }
        let mut payloads = Vec::new();
        let mut args = Some(args);
        for (i, ts) in cs.values().enumerate() {
            if i == tag {
                payloads.push(args.take().unwrap_or_default());
            } else {
                let mut p = Vec::new();
                for t in ts {
                    p.push(self.placeholder(t, env, span)?);
                }
                payloads.push(p);
            }
        }
        let tag = SVal::Leaf(
            Atom::Const(PrimValue::int(IntType::I8, tag as i128)),
            Type::Prim(super::pat::TAG_TYPE),
        );
        Ok(SVal::Sum { ctors, tag: Box::new(tag), payloads })
    }

    /// Some value of type `t` (zeros; arrays of zeros with the sizes in scope, or empty; for a
    /// function, one whose results are placeholders).
    pub(crate) fn placeholder(
        &mut self,
        t: &SType,
        env: &Env<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        if has_arrow(t) {
            return Ok(match t {
                SType::Arrow { .. } => {
                    SVal::Fun(Rc::new(SFun::Placeholder { ty: t.clone(), env: env.clone() }))
                }
                SType::Tuple(ts) => SVal::Tuple(
                    ts.iter().map(|t| self.placeholder(t, env, span)).collect::<LResult<_>>()?,
                ),
                SType::Record(fs) => SVal::Record(
                    fs.iter()
                        .map(|(n, t)| Ok((n.clone(), self.placeholder(t, env, span)?)))
                        .collect::<LResult<_>>()?,
                ),
                SType::Sum(cs) => {
                    let mut payloads = Vec::new();
                    for ts in cs.values() {
                        let p = ts.iter().map(|t| self.placeholder(t, env, span));
                        payloads.push(p.collect::<LResult<_>>()?);
                    }
                    let tag = SVal::Leaf(
                        Atom::Const(PrimValue::int(IntType::I8, 0)),
                        Type::Prim(super::pat::TAG_TYPE),
                    );
                    SVal::Sum { ctors: cs.keys().cloned().collect(), tag: Box::new(tag), payloads }
                }
                _ => return Err(unsupported(span, "an array of functions")),
            });
        }
        let shapes = leaf_shapes(None, t).map_err(|m| unsupported(span, m))?;
        let mut leaves = Vec::new();
        for (elem, dims) in shapes {
            let zero = Atom::Const(PrimValue::zero(elem));
            if dims.is_empty() {
                leaves.push((zero, Type::Prim(elem)));
            } else {
                let dims: Vec<Dim> = dims.iter().map(|d| self.dim_of_name(d, env)).collect();
                let ty = array_ty(elem, dims.clone());
                let v = self.b.let1("t", ty.clone(), Exp::Replicate { shape: dims, value: zero });
                leaves.push((Atom::Var(v), ty));
            }
        }
        super::pat::build_sval(t, &mut leaves.into_iter())
            .ok_or_else(|| internal(span, "placeholder shape"))
    }
}

/// A literal pattern as a value of type `t`.
fn literal_value(lit: &Literal, t: PrimType) -> Option<PrimValue> {
    Some(match (lit, t) {
        (Literal::Int(v, _), PrimType::Int(it)) => PrimValue::int(it, *v),
        (Literal::Int(v, _), PrimType::Float(ft)) => PrimValue::float(ft, *v as f64),
        (Literal::Float(v, _), PrimType::Float(ft)) => PrimValue::float(ft, *v),
        (Literal::Bool(b), PrimType::Bool) => PrimValue::Bool(*b),
        _ => return None,
    })
}
