//! Expressions: evaluation of the checked AST over static values, emitting IR as it goes.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::builder::{self, array_ty, atom_dim, boolc, dim_atom, i64c, shape};
use super::pat::leaf_shapes;
use super::sval::{match_type, Env, SFun, SVal};
use super::{internal, intrinsic, unsupported, DimName, LResult, Lowerer};
use crate::diag::Span;
use crate::ir::{Atom, BinOp, CmpOp, Dim, DimIndex, Exp, Type, UnOp};
use crate::prim::{IntType, PrimType, PrimValue};
use crate::syntax::ast::{self, Expr, ExprKind, Literal, RangeEnd, RecordField};
use crate::types::Type as SType;

/// The built-in binary operators (overloaded by the checker on their operand types).
pub const BUILTIN_OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "//", "%%", "**", "&", "|", "^", "<<", ">>", ">>>", "==", "!=", "<",
    "<=", ">", ">=", "&&", "||", "|>", "<|", ">->", "<-<", "++",
];

impl<'a> Lowerer<'a> {
    pub(crate) fn expr(&mut self, e: &'a Expr, env: &Env<'a>) -> LResult<SVal<'a>> {
        self.nested(e.span, |l| {
            let saved = l.b.span;
            // A chain of `let`s (and `assert`s) is lowered in a loop, not by recursion.
            let (mut e, mut env) = (e, env.clone());
            let r = loop {
                // Code inlined from the prelude keeps the span of the user's call, so that
                // run-time errors point into the user's program.
                if e.span.start < crate::syntax::PRELUDE_BASE {
                    l.b.span = e.span;
                }
                match l.binding_step(e, &env) {
                    Ok(Some((body, env2))) => {
                        e = body;
                        env = env2;
                    }
                    Ok(None) => break l.expr_inner(e, &env),
                    Err(err) => break Err(err),
                }
            };
            l.b.span = saved;
            r
        })
    }

    /// For a binding construct (`let`, local function, `let a[i] = v`, `assert`): perform the
    /// binding and return the body with its environment; `None` for other expressions.
    fn binding_step(&mut self, e: &'a Expr, env: &Env<'a>) -> LResult<Option<(&'a Expr, Env<'a>)>> {
        let span = self.b.span;
        Ok(Some(match &e.kind {
            ExprKind::Let { sizes, pat, rhs, body } => {
                let v = self.expr(rhs, env)?;
                let (v, env2) = if sizes.is_empty() {
                    (v, env.clone())
                } else {
                    // `let [n] ...` binds `n` anew, even where an outer `n` exists.
                    let mut fresh = env.clone();
                    for (n, _) in sizes {
                        fresh = fresh.unbind(n);
                    }
                    let t = self.pat_type(pat)?;
                    self.check_sizes(t, v, &fresh, "value")?
                };
                (&**body, self.bind_pat(pat, v, &env2)?)
            }
            ExprKind::LetFun { name, type_params, params, rhs, body, .. } => {
                let v = if params.is_empty() {
                    self.expr(rhs, env)?
                } else {
                    let sizes = type_params
                        .iter()
                        .filter_map(|p| match p {
                            ast::TypeParam::Size { name, .. } => Some(name.clone()),
                            ast::TypeParam::Type { .. } => None,
                        })
                        .collect();
                    SVal::Fun(Rc::new(SFun::Closure {
                        name: name.clone(),
                        sizes,
                        params,
                        body: rhs,
                        env: env.clone(),
                    }))
                };
                (&**body, env.bind(name, v))
            }
            ExprKind::LetWith { name, indices, value, body, .. } => {
                let arr = env
                    .lookup(name)
                    .cloned()
                    .ok_or_else(|| internal(span, format!("unknown variable `{name}`")))?;
                let new = self.update(arr, indices, value, env)?;
                (&**body, env.bind(name, new))
            }
            ExprKind::Assert(c, x) => {
                let cv = self.expr(c, env)?;
                let (ca, _) = self.scalar(&cv, span)?;
                if c.span.start < crate::syntax::PRELUDE_BASE {
                    self.b.span = c.span;
                }
                let msg = format!("assertion failed: {}", describe(c));
                self.b.assert(ca, msg, Vec::new());
                self.b.span = span;
                (&**x, env.clone())
            }
            _ => return Ok(None),
        }))
    }

    /// The checker's type of an expression node, with the current instantiation applied.
    pub(crate) fn node_type(&self, e: &Expr, env: &Env<'a>) -> LResult<SType> {
        Ok(env.resolve(self.expr_type(e.id, e.span)?))
    }

    /// A scalar value as an atom.
    pub(crate) fn scalar(&self, v: &SVal<'a>, span: Span) -> LResult<(Atom, PrimType)> {
        match v {
            SVal::Leaf(a, Type::Prim(p)) => Ok((*a, *p)),
            SVal::Leaf(..) => Err(unsupported(span, "an operation on whole arrays (use `map`)")),
            _ => Err(internal(span, "a scalar was expected")),
        }
    }

    /// An integer scalar as an `i64` atom (indices and sizes may have any integer type).
    pub(crate) fn int_to_i64(&mut self, v: &SVal<'a>, span: Span) -> LResult<Atom> {
        let (a, t) = self.scalar(v, span)?;
        match t {
            PrimType::Int(_) => Ok(self.b.convert(t, PrimType::I64, a)),
            _ => Err(internal(span, "an integer was expected")),
        }
    }

    fn expr_inner(&mut self, e: &'a Expr, env: &Env<'a>) -> LResult<SVal<'a>> {
        let span = self.b.span;
        match &e.kind {
            ExprKind::Literal(lit) => self.literal(lit, e, env),
            ExprKind::Var(name) => {
                let ty = self.node_type(e, env)?;
                self.lookup(name, ty, env, span)
            }
            ExprKind::Tuple(es) => {
                Ok(SVal::Tuple(es.iter().map(|x| self.expr(x, env)).collect::<LResult<_>>()?))
            }
            ExprKind::Record(fields) => {
                let mut m = BTreeMap::new();
                for f in fields {
                    let (n, x) = match f {
                        RecordField::Explicit(n, x) | RecordField::Implicit(n, x) => (n, x),
                    };
                    let v = self.expr(x, env)?;
                    m.insert(n.clone(), v);
                }
                Ok(SVal::Record(m))
            }
            ExprKind::ArrayLit(es) => self.array_lit(es, e, env),
            ExprKind::Range { start, second, end, kind } => {
                self.range(start, second.as_deref(), end, *kind, env)
            }
            ExprKind::Project(x, f) => {
                let v = self.expr(x, env)?;
                project(v, f, span)
            }
            ExprKind::Index(x, idxs) => {
                let v = self.expr(x, env)?;
                self.index(v, idxs, env)
            }
            ExprKind::Apply(f, x) => {
                let fv = self.expr(f, env)?;
                let xv = self.expr(x, env)?;
                self.apply_val(fv, xv, span)
            }
            ExprKind::BinOp { op, lhs, rhs, .. } => self.binop_expr(op, lhs, rhs, e, env),
            ExprKind::Neg(x) => {
                let v = self.expr(x, env)?;
                let (a, t) = self.scalar(&v, span)?;
                Ok(SVal::Leaf(self.b.unop(UnOp::Neg, t, a), Type::Prim(t)))
            }
            ExprKind::Not(x) => {
                let v = self.expr(x, env)?;
                let (a, t) = self.scalar(&v, span)?;
                Ok(SVal::Leaf(self.b.unop(UnOp::Not, t, a), Type::Prim(t)))
            }
            ExprKind::OpSection(op) => {
                let ty = self.node_type(e, env)?;
                self.op_fun(op, ty, env, span)
            }
            ExprKind::LeftSection(op, x) => {
                let xt = self.node_type(x, env)?;
                let ty = arrow(xt, self.node_type(e, env)?);
                let f = self.op_fun(op, ty, env, span)?;
                let xv = self.expr(x, env)?;
                self.apply_val(f, xv, span)
            }
            ExprKind::RightSection(op, x) => {
                let xt = self.node_type(x, env)?;
                let ty = match self.node_type(e, env)? {
                    SType::Arrow { from, to, .. } => arrow(*from, arrow(xt, *to)),
                    t => t,
                };
                let f = self.op_fun(op, ty, env, span)?;
                let SVal::Fun(f) = f else { return Err(internal(span, "operator section")) };
                let xv = self.expr(x, env)?;
                Ok(SVal::Fun(Rc::new(SFun::Partial { f: Rc::new(SFun::Flip(f)), args: vec![xv] })))
            }
            ExprKind::ProjectSection(fs) => Ok(SVal::Fun(Rc::new(SFun::Project(fs.clone())))),
            ExprKind::Lambda { params, body, .. } => Ok(SVal::Fun(Rc::new(SFun::Closure {
                name: "lambda".into(),
                sizes: Vec::new(),
                params,
                body,
                env: env.clone(),
            }))),
            ExprKind::If(c, t, f) => self.lower_if(c, t, f, env),
            ExprKind::Let { .. } | ExprKind::LetFun { .. } | ExprKind::LetWith { .. } => {
                match self.binding_step(e, env)? {
                    Some((body, env2)) => self.expr(body, &env2),
                    None => Err(internal(span, "binding")),
                }
            }
            ExprKind::Update(x, idxs, v) => {
                let arr = self.expr(x, env)?;
                self.update(arr, idxs, v, env)
            }
            ExprKind::RecordUpdate(x, path, v) => {
                let r = self.expr(x, env)?;
                let v = self.expr(v, env)?;
                record_update(r, path, v, span)
            }
            ExprKind::Loop { pat, init, form, body } => {
                self.lower_loop(pat, init.as_deref(), form, body, env)
            }
            ExprKind::Match(x, cases) => self.lower_match(x, cases, e, env),
            ExprKind::Ascript(x, _) | ExprKind::Coerce(x, _) => {
                let v = self.expr(x, env)?;
                let t = self.expr_type(e.id, span)?;
                let (v, _) = self.check_sizes(t, v, env, "value")?;
                Ok(v)
            }
            ExprKind::Assert(..) => match self.binding_step(e, env)? {
                Some((body, env2)) => self.expr(body, &env2),
                None => Err(internal(span, "assertion")),
            },
            ExprKind::Constr(name, es) => self.constr(name, es, e, env),
        }
    }

    fn literal(&mut self, lit: &Literal, e: &Expr, env: &Env<'a>) -> LResult<SVal<'a>> {
        let t = match self.node_type(e, env)? {
            SType::Prim(p) => p,
            t => return Err(internal(e.span, format!("literal of type `{t}`"))),
        };
        let v = match (lit, t) {
            (Literal::Int(v, _), PrimType::Int(it)) => PrimValue::int(it, *v),
            (Literal::Int(v, _), PrimType::Float(ft)) => PrimValue::float(ft, *v as f64),
            (Literal::Float(v, _), PrimType::Float(ft)) => PrimValue::float(ft, *v),
            (Literal::Bool(b), PrimType::Bool) => PrimValue::Bool(*b),
            _ => return Err(internal(e.span, format!("literal of type `{t}`"))),
        };
        Ok(SVal::Leaf(Atom::Const(v), Type::Prim(t)))
    }

    /// The value of a name: a local, a top-level definition or an intrinsic.
    pub(crate) fn lookup(
        &mut self,
        name: &str,
        ty: SType,
        env: &Env<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        if let Some(v) = env.lookup(name) {
            return Ok(v.clone());
        }
        if let Some(dec) = self.top_level(name, env.top) {
            return self.top_ref(dec, ty, span);
        }
        if let Some(arity) = intrinsic::arity(name) {
            if arity == 0 {
                return self.intrinsic(name, Vec::new(), span);
            }
            return Ok(SVal::Fun(Rc::new(SFun::Intrinsic { name: name.to_string(), arity })));
        }
        Err(internal(span, format!("unknown variable `{name}`")))
    }

    /// A reference to a top-level definition used at type `ty`.
    fn top_ref(&mut self, dec: usize, ty: SType, span: Span) -> LResult<SVal<'a>> {
        let v = self.valdec(dec).ok_or_else(|| internal(span, "not a value definition"))?;
        if !v.params.is_empty() {
            return Ok(SVal::Fun(Rc::new(SFun::Top { dec, ty })));
        }
        if !self.is_prelude(dec) && self.first_order(dec, &ty) {
            let inst = self.instance(dec, &ty, span)?;
            return self.call_instance(&inst, Vec::new(), span);
        }
        self.inline_top(dec, &ty, Vec::new(), span)
    }

    /// An operator as a function value: a user's definition of it, or the built-in.
    fn op_fun(&mut self, op: &str, ty: SType, env: &Env<'a>, span: Span) -> LResult<SVal<'a>> {
        if BUILTIN_OPS.contains(&op) && !self.user_defined(op, env) {
            return Ok(SVal::Fun(Rc::new(SFun::Op(op.to_string()))));
        }
        self.lookup(op, ty, env, span)
    }

    fn user_defined(&self, op: &str, env: &Env<'a>) -> bool {
        env.lookup(op).is_some() || self.top_level(op, env.top).is_some()
    }

    fn binop_expr(
        &mut self,
        op: &str,
        lhs: &'a Expr,
        rhs: &'a Expr,
        e: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        if BUILTIN_OPS.contains(&op) && !self.user_defined(op, env) {
            if op == "&&" || op == "||" {
                return self.short_circuit(op == "&&", lhs, rhs, env);
            }
            let a = self.expr(lhs, env)?;
            let b = self.expr(rhs, env)?;
            return self.binop_vals(op, a, b, span);
        }
        let ty = arrow(
            self.node_type(lhs, env)?,
            arrow(self.node_type(rhs, env)?, self.node_type(e, env)?),
        );
        let f = self.lookup(op, ty, env, span)?;
        let a = self.expr(lhs, env)?;
        let b = self.expr(rhs, env)?;
        let g = self.apply_val(f, a, span)?;
        self.apply_val(g, b, span)
    }

    /// `a && b` / `a || b`: `b` is evaluated only when needed.
    fn short_circuit(
        &mut self,
        and: bool,
        lhs: &'a Expr,
        rhs: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let av = self.expr(lhs, env)?;
        let (a, _) = self.scalar(&av, lhs.span)?;
        let mark = self.b.depth();
        self.b.open();
        let bv = match self.expr(rhs, env) {
            Ok(v) => v,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let (b, _) = self.scalar(&bv, rhs.span)?;
        let body = self.b.close(vec![b]);
        let bool_t = Type::Prim(PrimType::Bool);
        if body.stms.is_empty() {
            let op = if and { BinOp::LogAnd } else { BinOp::LogOr };
            let r = self.b.binop(op, PrimType::Bool, a, b);
            return Ok(SVal::Leaf(r, bool_t));
        }
        let short = crate::ir::Body { stms: Vec::new(), result: vec![boolc(!and)] };
        let (then_body, else_body) = if and { (body, short) } else { (short, body) };
        let v = self.b.let1(
            "c",
            bool_t.clone(),
            Exp::If { cond: a, then_body, else_body, ret: vec![bool_t.clone()] },
        );
        Ok(SVal::Leaf(Atom::Var(v), bool_t))
    }

    // --- application -----------------------------------------------------------------------

    pub(crate) fn apply_val(&mut self, f: SVal<'a>, x: SVal<'a>, span: Span) -> LResult<SVal<'a>> {
        match f {
            SVal::Fun(g) => self.apply_fun(g, x, span),
            _ => Err(internal(span, "application of a non-function")),
        }
    }

    pub(crate) fn apply_fun(
        &mut self,
        f: Rc<SFun<'a>>,
        x: SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let (g, mut args) = match &*f {
            SFun::Partial { f: g, args } => (g.clone(), args.clone()),
            _ => (f.clone(), Vec::new()),
        };
        args.push(x);
        if args.len() >= self.arity(&g) {
            self.call(&g, args, span)
        } else {
            Ok(SVal::Fun(Rc::new(SFun::Partial { f: g, args })))
        }
    }

    /// Apply a function to several arguments in turn.
    pub(crate) fn apply_args(
        &mut self,
        f: &SVal<'a>,
        args: Vec<SVal<'a>>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let mut cur = f.clone();
        for a in args {
            cur = self.apply_val(cur, a, span)?;
        }
        Ok(cur)
    }

    fn arity(&self, f: &SFun<'a>) -> usize {
        match f {
            SFun::Closure { params, .. } => params.len().max(1),
            SFun::Top { dec, .. } => self.valdec(*dec).map_or(1, |v| v.params.len().max(1)),
            SFun::Intrinsic { arity, .. } => (*arity).max(1),
            SFun::Op(_) | SFun::Flip(_) => 2,
            SFun::Project(_) | SFun::Compose { .. } => 1,
            SFun::Partial { f, args } => self.arity(f).saturating_sub(args.len()).max(1),
        }
    }

    /// Call a function with exactly its arity's arguments.
    fn call(&mut self, f: &Rc<SFun<'a>>, args: Vec<SVal<'a>>, span: Span) -> LResult<SVal<'a>> {
        match &**f {
            SFun::Closure { params, body, env, sizes, .. } => {
                let (params, body, mut env) = (*params, *body, env.clone());
                for n in sizes {
                    env = env.unbind(n);
                }
                self.nested(span, |l| {
                    let mut env = env;
                    for (p, a) in params.iter().zip(args) {
                        env = l.bind_pat(p, a, &env)?;
                    }
                    l.expr(body, &env)
                })
            }
            SFun::Top { dec, ty } => {
                if !self.is_prelude(*dec) && self.first_order(*dec, ty) {
                    let inst = self.instance(*dec, ty, span)?;
                    self.call_instance(&inst, args, span)
                } else {
                    self.inline_top(*dec, ty, args, span)
                }
            }
            SFun::Intrinsic { name, .. } => self.intrinsic(name, args, span),
            SFun::Op(op) => {
                let mut it = args.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return Err(internal(span, "operator arity"));
                };
                self.binop_vals(op, a, b, span)
            }
            SFun::Project(fs) => {
                let mut v = args.into_iter().next().ok_or_else(|| internal(span, "projection"))?;
                for f in fs {
                    v = project(v, f, span)?;
                }
                Ok(v)
            }
            SFun::Flip(g) => {
                let mut it = args.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return Err(internal(span, "flipped arity"));
                };
                let p = self.apply_fun(g.clone(), b, span)?;
                self.apply_val(p, a, span)
            }
            SFun::Compose { first, then } => {
                let x = args.into_iter().next().ok_or_else(|| internal(span, "composition"))?;
                let y = self.apply_fun(first.clone(), x, span)?;
                self.apply_fun(then.clone(), y, span)
            }
            SFun::Partial { f: g, args: given } => {
                let mut all = given.clone();
                all.extend(args);
                self.call(g, all, span)
            }
        }
    }

    /// Inline a top-level definition: its body, with its parameters bound to the arguments.
    pub(crate) fn inline_top(
        &mut self,
        dec: usize,
        ty: &SType,
        args: Vec<SVal<'a>>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let v = self.valdec(dec).ok_or_else(|| internal(span, "not a value definition"))?;
        let mut tsubst = HashMap::new();
        if let Some(Some(s)) = self.cp.schemes.get(dec) {
            match_type(&s.ty, ty, &mut tsubst);
        }
        self.nested(span, |l| {
            let mut env = Env::top_level(dec, tsubst);
            for (p, a) in v.params.iter().zip(args) {
                env = l.bind_pat(p, a, &env)?;
            }
            l.expr(&v.body, &env)
        })
    }

    // --- arrays ----------------------------------------------------------------------------

    fn array_lit(&mut self, es: &'a [Expr], e: &'a Expr, env: &Env<'a>) -> LResult<SVal<'a>> {
        let span = self.b.span;
        if es.is_empty() {
            let t = self.node_type(e, env)?;
            let row = match &t {
                SType::Array { shape, elem, .. } => {
                    SType::array_of(shape[1..].to_vec(), (**elem).clone())
                }
                _ => return Err(internal(span, "array literal of non-array type")),
            };
            let shapes = leaf_shapes(None, &row).map_err(|m| unsupported(span, m))?;
            let mut leaves = Vec::new();
            for (elem, dims) in shapes {
                let dims: Vec<Dim> = dims.iter().map(|d| self.dim_of_name(d, env)).collect();
                let elem_ty = array_ty(elem, dims.clone());
                let mut sh = vec![Dim::Const(0)];
                sh.extend(dims);
                let ty = array_ty(elem, sh);
                let v = self.b.let1("t", ty.clone(), Exp::ArrayLit { elems: Vec::new(), elem_ty });
                leaves.push((Atom::Var(v), ty));
            }
            return super::pat::build_sval(&row, &mut leaves.into_iter())
                .ok_or_else(|| internal(span, "array literal shape"));
        }
        let vals: Vec<SVal<'a>> = es.iter().map(|x| self.expr(x, env)).collect::<LResult<_>>()?;
        let first = vals[0].clone();
        let per: Vec<Vec<(Atom, Type)>> = vals.iter().map(|v| v.leaves()).collect();
        let n = per[0].len();
        let mut leaves = Vec::new();
        for k in 0..n {
            let elem_ty = per[0][k].1.clone();
            let mut elems = Vec::new();
            for (j, ls) in per.iter().enumerate() {
                let (a, t) =
                    ls.get(k).cloned().ok_or_else(|| internal(span, "array literal element"))?;
                let a =
                    if j == 0 { a } else { self.coerce_leaf(a, &t, &elem_ty, "array element")? };
                elems.push(a);
            }
            let ty = builder::outer_ty(Dim::Const(es.len() as i64), &elem_ty);
            let v = self.b.let1("t", ty.clone(), Exp::ArrayLit { elems, elem_ty });
            leaves.push((Atom::Var(v), ty));
        }
        first.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "array literal shape"))
    }

    /// The IR dim for a size named in a checker type: a size in scope, a constant, or 0 for a
    /// size nothing determines (only the element type matters then, as in empty literals).
    fn dim_of_name(&self, d: &DimName, env: &Env<'a>) -> Dim {
        match d {
            DimName::Const(c) => Dim::Const(*c),
            DimName::Named(n) => match env.lookup(n) {
                Some(SVal::Leaf(a, Type::Prim(PrimType::Int(IntType::I64)))) => {
                    atom_dim(*a).unwrap_or(Dim::Const(0))
                }
                _ => Dim::Const(0),
            },
            DimName::Anon => Dim::Const(0),
        }
    }

    /// `start..end`, `start..second...end`, `start..<end`, `start..>end`, with Futhark's
    /// validity rules: the step must be nonzero and point from `start` towards `end`, and `end`
    /// must not lie behind `start` (`3..>3` and `3..<3` are empty, `3..<2` is invalid).
    fn range(
        &mut self,
        start: &'a Expr,
        second: Option<&'a Expr>,
        end: &'a Expr,
        kind: RangeEnd,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let sv = self.expr(start, env)?;
        let (s, t) = self.scalar(&sv, span)?;
        let PrimType::Int(it) = t else { return Err(internal(span, "range of non-integers")) };
        let ev = self.expr(end, env)?;
        let (e, _) = self.scalar(&ev, span)?;
        let second = match second {
            Some(x) => {
                let v = self.expr(x, env)?;
                Some(self.scalar(&v, span)?.0)
            }
            None => None,
        };
        let one = Atom::Const(PrimValue::int(it, 1));
        let negone = Atom::Const(PrimValue::int(it, -1));
        let (step, step_zero) = match second {
            Some(x) => {
                let d = self.b.binop(BinOp::Sub, t, x, s);
                (d, self.b.cmp(CmpOp::Eq, t, s, x))
            }
            None => (if kind == RangeEnd::DownToExclusive { negone } else { one }, boolc(false)),
        };
        let sign = self.b.unop(UnOp::Sgn, t, step);
        let (distance, wrong_dir, bounds_invalid) = match kind {
            RangeEnd::DownToExclusive => {
                let w = self.b.cmp(CmpOp::Eq, t, sign, one);
                let d = self.b.binop(BinOp::Sub, t, s, e);
                let d = self.b.convert(t, PrimType::I64, d);
                (d, w, self.b.cmp(CmpOp::Lt, t, s, e))
            }
            RangeEnd::UpToExclusive => {
                let w = self.b.cmp(CmpOp::Eq, t, sign, negone);
                let d = self.b.binop(BinOp::Sub, t, e, s);
                let d = self.b.convert(t, PrimType::I64, d);
                (d, w, self.b.cmp(CmpOp::Lt, t, e, s))
            }
            RangeEnd::Inclusive => {
                let down = self.b.cmp(CmpOp::Eq, t, sign, negone);
                let inv_down = self.b.cmp(CmpOp::Lt, t, s, e);
                let inv_up = self.b.cmp(CmpOp::Lt, t, e, s);
                let invalid = self.b.select(down, inv_down, inv_up, PrimType::Bool);
                let dd = self.b.binop(BinOp::Sub, t, s, e);
                let du = self.b.binop(BinOp::Sub, t, e, s);
                let d = self.b.select(down, dd, du, t);
                let d = self.b.convert(t, PrimType::I64, d);
                (self.b.binop(BinOp::Add, PrimType::I64, d, i64c(1)), boolc(false), invalid)
            }
        };
        let step_invalid = self.b.binop(BinOp::LogOr, PrimType::Bool, wrong_dir, step_zero);
        let invalid = self.b.binop(BinOp::LogOr, PrimType::Bool, step_invalid, bounds_invalid);
        let valid = self.b.unop(UnOp::Not, PrimType::Bool, invalid);
        let (text, vals) = match (kind, second) {
            (RangeEnd::Inclusive, Some(x)) => ("{}..{}...{}", vec![s, x, e]),
            (RangeEnd::Inclusive, None) => ("{}...{}", vec![s, e]),
            (RangeEnd::UpToExclusive, Some(x)) => ("{}..{}..<{}", vec![s, x, e]),
            (RangeEnd::UpToExclusive, None) => ("{}..<{}", vec![s, e]),
            (RangeEnd::DownToExclusive, Some(x)) => ("{}..{}..>{}", vec![s, x, e]),
            (RangeEnd::DownToExclusive, None) => ("{}..>{}", vec![s, e]),
        };
        self.b.assert(valid, format!("invalid range {text}"), vals);
        let step64 = self.b.convert(t, PrimType::I64, step);
        let sign64 = self.b.convert(t, PrimType::I64, sign);
        let pos_step = self.b.binop(BinOp::Mul, PrimType::I64, step64, sign64);
        // Rounding-up division of a non-negative distance by a positive step.
        let n = if pos_step == i64c(1) {
            distance
        } else {
            let num = self.b.binop(BinOp::Add, PrimType::I64, distance, pos_step);
            let num = self.b.binop(BinOp::Sub, PrimType::I64, num, i64c(1));
            self.b.binop(BinOp::Quot, PrimType::I64, num, pos_step)
        };
        let d = atom_dim(n).ok_or_else(|| internal(span, "range length"))?;
        let ty = Type::Array { elem: t, shape: vec![d] };
        let v = self.b.let1("t", ty.clone(), Exp::Iota { n, start: s, step, it });
        Ok(SVal::Leaf(Atom::Var(v), ty))
    }

    /// The IR indices for `idxs` on an array of shape `dims`, with Futhark's slice rules and
    /// bounds checks for slices (plain indices are checked by `Index` itself).
    fn dim_indices(
        &mut self,
        dims: &[Dim],
        idxs: &'a [ast::DimIndex],
        env: &Env<'a>,
    ) -> LResult<Vec<DimIndex>> {
        let span = self.b.span;
        if idxs.len() > dims.len() {
            return Err(internal(span, "too many indices"));
        }
        let mut out = Vec::new();
        let mut parts: Vec<String> = Vec::new();
        let mut vals: Vec<Atom> = Vec::new();
        let mut ok = boolc(true);
        let mut any_slice = false;
        let mut fixed: Vec<(Atom, Atom)> = Vec::new();
        let i64p = PrimType::I64;
        for (di, d) in idxs.iter().zip(dims) {
            let w = dim_atom(*d);
            match di {
                ast::DimIndex::Fix(x) => {
                    let v = self.expr(x, env)?;
                    let a = self.int_to_i64(&v, x.span)?;
                    fixed.push((a, w));
                    parts.push("{}".into());
                    vals.push(a);
                    out.push(DimIndex::Fix(a));
                }
                ast::DimIndex::Slice { start, end, stride } => {
                    any_slice = true;
                    let opt = |l: &mut Self, x: &'a Option<Expr>| -> LResult<Option<Atom>> {
                        match x {
                            Some(x) => {
                                let v = l.expr(x, env)?;
                                Ok(Some(l.int_to_i64(&v, x.span)?))
                            }
                            None => Ok(None),
                        }
                    };
                    let i = opt(self, start)?;
                    let j = opt(self, end)?;
                    let s = opt(self, stride)?.unwrap_or(i64c(1));
                    let sign = self.b.unop(UnOp::Sgn, i64p, s);
                    let back = self.b.cmp(CmpOp::Eq, i64p, sign, i64c(-1));
                    let wm1 = self.b.binop(BinOp::Sub, i64p, w, i64c(1));
                    let i = match i {
                        Some(i) => i,
                        None => self.b.select(back, wm1, i64c(0), i64p),
                    };
                    let j = match j {
                        Some(j) => j,
                        None => self.b.select(back, i64c(-1), w, i64p),
                    };
                    // A zero stride is an error before the length is computed (which divides).
                    let nonzero = self.b.cmp(CmpOp::Neq, i64p, s, i64c(0));
                    let mut text = String::new();
                    let mut svals = Vec::new();
                    if start.is_some() || (end.is_none() && stride.is_none()) {
                        text.push_str("{}");
                        svals.push(i);
                    }
                    text.push(':');
                    if end.is_some() {
                        text.push_str("{}");
                        svals.push(j);
                    }
                    if stride.is_some() {
                        text.push_str(":{}");
                        svals.push(s);
                    }
                    let msg_now = {
                        let mut p = parts.clone();
                        p.push(text.clone());
                        p
                    };
                    let mut v_now = vals.clone();
                    v_now.extend(svals.iter().copied());
                    let shape_holes: String = dims[..idxs.len()].iter().map(|_| "[{}]").collect();
                    v_now.extend(dims[..idxs.len()].iter().map(|d| dim_atom(*d)));
                    self.b.assert(
                        nonzero,
                        format!(
                            "index [{}] out of bounds for array of shape {shape_holes}",
                            msg_now.join(", ")
                        ),
                        v_now,
                    );
                    if s == i64c(1) {
                        // The common forward slice: `i <= j <= w`, or empty.
                        let n = self.b.binop(BinOp::Sub, i64p, j, i);
                        let empty = self.b.cmp(CmpOp::Eq, i64p, n, i64c(0));
                        let a = self.b.cmp(CmpOp::Le, i64p, i64c(0), i);
                        let b = self.b.cmp(CmpOp::Le, i64p, i, j);
                        let c = self.b.cmp(CmpOp::Le, i64p, j, w);
                        let x = self.b.and(a, b);
                        let x = self.b.and(x, c);
                        let c = self.b.binop(BinOp::LogOr, PrimType::Bool, empty, x);
                        ok = self.b.and(ok, c);
                        parts.push(text);
                        vals.extend(svals);
                        out.push(DimIndex::Slice { start: i, len: n, stride: s });
                        continue;
                    }
                    let jmi = self.b.binop(BinOp::Sub, i64p, j, i);
                    let adj = self.b.binop(BinOp::Sub, i64p, s, sign);
                    let num = self.b.binop(BinOp::Add, i64p, jmi, adj);
                    let n = self.b.binop(BinOp::Quot, i64p, num, s);
                    let empty = self.b.cmp(CmpOp::Eq, i64p, n, i64c(0));
                    let m = self.b.binop(BinOp::Sub, i64p, n, i64c(1));
                    let mts = self.b.binop(BinOp::Mul, i64p, m, s);
                    let last = self.b.binop(BinOp::Add, i64p, i, mts);
                    let last_lo = self.b.cmp(CmpOp::Le, i64p, i64c(0), last);
                    let fw = {
                        let a = self.b.cmp(CmpOp::Le, i64p, i64c(0), i);
                        let b = self.b.cmp(CmpOp::Le, i64p, i, j);
                        let c = self.b.cmp(CmpOp::Lt, i64p, last, w);
                        let x = self.b.and(a, b);
                        let x = self.b.and(x, last_lo);
                        self.b.and(x, c)
                    };
                    let bw = {
                        let a = self.b.cmp(CmpOp::Le, i64p, i64c(-1), j);
                        let b = self.b.cmp(CmpOp::Le, i64p, j, i);
                        let c = self.b.cmp(CmpOp::Le, i64p, last, w);
                        let x = self.b.and(a, b);
                        let x = self.b.and(x, last_lo);
                        self.b.and(x, c)
                    };
                    let slice_ok = self.b.select(back, bw, fw, PrimType::Bool);
                    let c = self.b.binop(BinOp::LogOr, PrimType::Bool, empty, slice_ok);
                    ok = self.b.and(ok, c);
                    parts.push(text);
                    vals.extend(svals);
                    out.push(DimIndex::Slice { start: i, len: n, stride: s });
                }
            }
        }
        if any_slice {
            // Plain indices are checked together with the slices, for one message.
            for (a, w) in fixed {
                let lo = self.b.cmp(CmpOp::Le, i64p, i64c(0), a);
                let hi = self.b.cmp(CmpOp::Lt, i64p, a, w);
                let c = self.b.and(lo, hi);
                ok = self.b.and(ok, c);
            }
            let shape_holes: String = dims[..idxs.len()].iter().map(|_| "[{}]").collect();
            vals.extend(dims[..idxs.len()].iter().map(|d| dim_atom(*d)));
            self.b.assert(
                ok,
                format!(
                    "index [{}] out of bounds for array of shape {shape_holes}",
                    parts.join(", ")
                ),
                vals,
            );
        }
        Ok(out)
    }

    /// The type of `arr[idx]` for an array of type `t`.
    pub(crate) fn indexed_type(t: &Type, idx: &[DimIndex]) -> Type {
        let sh = shape(t);
        let mut out = Vec::new();
        for i in idx {
            if let DimIndex::Slice { len, .. } = i {
                out.push(atom_dim(*len).unwrap_or(Dim::Const(0)));
            }
        }
        out.extend_from_slice(sh.get(idx.len()..).unwrap_or(&[]));
        array_ty(t.elem(), out)
    }

    fn index(
        &mut self,
        arr: SVal<'a>,
        idxs: &'a [ast::DimIndex],
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let leaves = arr.leaves();
        let Some((_, t0)) = leaves.first() else { return Ok(arr) };
        let dims = shape(t0).to_vec();
        let idx = self.dim_indices(&dims, idxs, env)?;
        self.index_leaves(&arr, &idx)
    }

    /// Index every leaf of an array value with the same indices.
    pub(crate) fn index_leaves(&mut self, arr: &SVal<'a>, idx: &[DimIndex]) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
            let Atom::Var(v) = a else { return Err(internal(span, "indexing a constant")) };
            let rt = Self::indexed_type(t, idx);
            let r = self.b.let1("elem", rt.clone(), Exp::Index { arr: v, idx: idx.to_vec() });
            Ok((Atom::Var(r), rt))
        };
        arr.map_leaves(&mut f)
    }

    fn update(
        &mut self,
        arr: SVal<'a>,
        idxs: &'a [ast::DimIndex],
        value: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
        let span = self.b.span;
        let leaves = arr.leaves();
        let Some((_, t0)) = leaves.first() else { return Ok(arr) };
        let dims = shape(t0).to_vec();
        let idx = self.dim_indices(&dims, idxs, env)?;
        let v = self.expr(value, env)?;
        let vleaves = v.leaves();
        if vleaves.len() != leaves.len() {
            return Err(internal(span, "updated value shape"));
        }
        let mut new = Vec::new();
        for ((a, t), (x, xt)) in leaves.into_iter().zip(vleaves) {
            let Atom::Var(av) = a else { return Err(internal(span, "updating a constant")) };
            let slot = Self::indexed_type(&t, &idx);
            let x = self.coerce_leaf(x, &xt, &slot, "the written value")?;
            let r =
                self.b.let1("t", t.clone(), Exp::Update { arr: av, idx: idx.clone(), value: x });
            new.push((Atom::Var(r), t));
        }
        arr.rebuild(&mut new.into_iter()).ok_or_else(|| internal(span, "updated value shape"))
    }

    // --- operators -------------------------------------------------------------------------

    pub(crate) fn binop_vals(
        &mut self,
        op: &str,
        a: SVal<'a>,
        b: SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        match op {
            "|>" => self.apply_val(b, a, span),
            "<|" => self.apply_val(a, b, span),
            ">->" | "<-<" => {
                let (SVal::Fun(f), SVal::Fun(g)) = (a, b) else {
                    return Err(internal(span, "composition of non-functions"));
                };
                let (first, then) = if op == ">->" { (f, g) } else { (g, f) };
                Ok(SVal::Fun(Rc::new(SFun::Compose { first, then })))
            }
            "++" => self.intrinsic("concat", vec![a, b], span),
            "==" | "!=" => {
                let eq = self.equal(&a, &b, span)?;
                let r = if op == "==" { eq } else { self.b.unop(UnOp::Not, PrimType::Bool, eq) };
                Ok(SVal::Leaf(r, Type::Prim(PrimType::Bool)))
            }
            _ => {
                let (x, t) = self.scalar(&a, span)?;
                let (y, _) = self.scalar(&b, span)?;
                let (r, rt) = self.prim_binop(op, t, x, y, span)?;
                Ok(SVal::Leaf(r, Type::Prim(rt)))
            }
        }
    }

    /// Structural equality: scalars compared directly, arrays by shape and then elementwise.
    fn equal(&mut self, a: &SVal<'a>, b: &SVal<'a>, span: Span) -> LResult<Atom> {
        let la = a.leaves();
        let lb = b.leaves();
        if la.len() != lb.len() {
            return Err(internal(span, "comparison of differently shaped values"));
        }
        let mut acc = boolc(true);
        for ((x, tx), (y, ty)) in la.into_iter().zip(lb) {
            let c = match (&tx, &ty) {
                (Type::Prim(p), Type::Prim(_)) => self.b.cmp(CmpOp::Eq, *p, x, y),
                _ => self.array_equal(x, &tx, y, &ty, span)?,
            };
            acc = self.b.and(acc, c);
        }
        Ok(acc)
    }

    fn array_equal(&mut self, x: Atom, tx: &Type, y: Atom, ty: &Type, span: Span) -> LResult<Atom> {
        if tx.rank() != ty.rank() {
            return Ok(boolc(false));
        }
        let i64p = PrimType::I64;
        let mut same = boolc(true);
        for (d, e) in shape(tx).iter().zip(shape(ty)) {
            let c = self.b.cmp(CmpOp::Eq, i64p, dim_atom(*d), dim_atom(*e));
            same = self.b.and(same, c);
        }
        if same == boolc(false) {
            return Ok(same);
        }
        let elem = tx.elem();
        let mark = self.b.depth();
        self.b.open();
        let r = (|| -> LResult<Atom> {
            let mut total = i64c(1);
            for d in shape(tx) {
                total = self.b.binop(BinOp::Mul, i64p, total, dim_atom(*d));
            }
            let td = atom_dim(total).ok_or_else(|| internal(span, "array size"))?;
            let flat = Type::Array { elem, shape: vec![td] };
            let mut flatten = |a: Atom, t: &Type| {
                let v = self.b.var_of(a, t, "t");
                if shape(t) == [td] {
                    v
                } else {
                    self.b.let1("t", flat.clone(), Exp::Reshape { arr: v, shape: vec![td] })
                }
            };
            let xf = flatten(x, tx);
            let yf = flatten(y, ty);
            let p = self.b.param("x", Type::Prim(elem));
            let q = self.b.param("y", Type::Prim(elem));
            let lam = self.b.lambda::<super::Diagnostic>(vec![p, q], |b, ps| {
                let c = b.cmp(CmpOp::Eq, elem, Atom::Var(ps[0].var), Atom::Var(ps[1].var));
                Ok((vec![c], vec![Type::Prim(PrimType::Bool)]))
            })?;
            let bools = Type::Array { elem: PrimType::Bool, shape: vec![td] };
            let eqs = self.b.let1("eqs", bools, Exp::Map { w: total, lam, arrs: vec![xf, yf] });
            let all = self.and_lambda();
            let r = self.b.let1(
                "all",
                Type::Prim(PrimType::Bool),
                Exp::Reduce {
                    w: total,
                    lam: all,
                    neutral: vec![boolc(true)],
                    arrs: vec![eqs],
                    commutative: true,
                },
            );
            Ok(Atom::Var(r))
        })();
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let then_body = self.b.close(vec![r]);
        if same == boolc(true) {
            // Shapes are statically equal: no need for the branch.
            self.b.current_mut().extend(then_body.stms);
            return Ok(r);
        }
        let bool_t = Type::Prim(PrimType::Bool);
        let else_body = crate::ir::Body { stms: Vec::new(), result: vec![boolc(false)] };
        let v = self.b.let1(
            "eq",
            bool_t.clone(),
            Exp::If { cond: same, then_body, else_body, ret: vec![bool_t] },
        );
        Ok(Atom::Var(v))
    }

    /// `\a b -> a && b`.
    pub(crate) fn and_lambda(&mut self) -> crate::ir::Lambda {
        let bool_t = Type::Prim(PrimType::Bool);
        let p = self.b.param("a", bool_t.clone());
        let q = self.b.param("b", bool_t.clone());
        let (pv, qv) = (p.var, q.var);
        self.b.open();
        let r = self.b.let1(
            "t",
            bool_t.clone(),
            Exp::BinOp(BinOp::LogAnd, PrimType::Bool, Atom::Var(pv), Atom::Var(qv)),
        );
        let body = self.b.close(vec![Atom::Var(r)]);
        crate::ir::Lambda { params: vec![p, q], body, ret: vec![bool_t] }
    }

    // --- sums ------------------------------------------------------------------------------

    /// `#name e1 e2`: a sum value with this constructor's payload and placeholders for the rest.
    fn constr(
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

    /// Some value of type `t` (zeros; arrays of zeros with the sizes in scope, or empty).
    pub(crate) fn placeholder(
        &mut self,
        t: &SType,
        env: &Env<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
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

fn arrow(from: SType, to: SType) -> SType {
    SType::Arrow { param: None, from: Box::new(from), to: Box::new(to) }
}

/// `v.f`: a record field or a tuple component.
pub(crate) fn project<'a>(v: SVal<'a>, f: &str, span: Span) -> LResult<SVal<'a>> {
    match v {
        SVal::Record(mut fs) => {
            fs.remove(f).ok_or_else(|| internal(span, format!("no field `{f}`")))
        }
        SVal::Tuple(mut vs) => {
            let i: usize = f.parse().map_err(|_| internal(span, format!("no field `{f}`")))?;
            if i < vs.len() {
                Ok(vs.swap_remove(i))
            } else {
                Err(internal(span, format!("no field `{f}`")))
            }
        }
        _ => Err(internal(span, format!("projection of `{f}` from a non-record"))),
    }
}

fn record_update<'a>(r: SVal<'a>, path: &[String], v: SVal<'a>, span: Span) -> LResult<SVal<'a>> {
    let Some((f, rest)) = path.split_first() else { return Ok(v) };
    match r {
        SVal::Record(mut fs) => {
            let old = fs.remove(f).ok_or_else(|| internal(span, format!("no field `{f}`")))?;
            let new = record_update(old, rest, v, span)?;
            fs.insert(f.clone(), new);
            Ok(SVal::Record(fs))
        }
        SVal::Tuple(mut vs) => {
            let i: usize = f.parse().map_err(|_| internal(span, format!("no field `{f}`")))?;
            let old =
                vs.get(i).cloned().ok_or_else(|| internal(span, format!("no field `{f}`")))?;
            vs[i] = record_update(old, rest, v, span)?;
            Ok(SVal::Tuple(vs))
        }
        _ => Err(internal(span, "field update of a non-record")),
    }
}

/// The assertion message's description of a condition (message holes escaped).
fn describe(e: &Expr) -> String {
    crate::syntax::printer::print_expr(e).replace("{}", "{ }")
}
