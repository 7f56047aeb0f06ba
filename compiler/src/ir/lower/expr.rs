//! Expressions: evaluation of the checked AST over static values, emitting IR as it goes.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::builder::{atom_dim, boolc};
use super::sval::{match_type, Env, SFun, SVal};
use super::{internal, intrinsic, pat, unsupported, DimName, LResult, Lowerer};
use crate::diag::Span;
use crate::ir::{Atom, BinOp, Dim, Exp, Type, UnOp};
use crate::prim::{PrimType, PrimValue};
use crate::syntax::ast::{self, Expr, ExprKind, Literal, RecordField};
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
                    // Its own type parameters stay variables until a use binds them.
                    let generic =
                        if type_params.iter().any(|p| matches!(p, ast::TypeParam::Type { .. })) {
                            let mut t = self.expr_type(rhs.id, rhs.span)?.clone();
                            for p in params.iter().rev() {
                                let from = Box::new(self.pat_type(p)?.clone());
                                t = SType::Arrow { param: None, from, to: Box::new(t) };
                            }
                            Some(env.resolve(&t))
                        } else {
                            None
                        };
                    SVal::Fun(Rc::new(SFun::Closure {
                        name: name.clone(),
                        sizes,
                        params,
                        body: rhs,
                        env: env.clone(),
                        generic,
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
                generic: None,
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
            if let SVal::Fun(f) = v {
                if let SFun::Closure { name, sizes, params, body, env, generic: Some(g) } = &**f {
                    // A local function with type parameters, used at type `ty`.
                    let mut bound = HashMap::new();
                    match_type(g, &ty, &mut bound);
                    return Ok(SVal::Fun(Rc::new(SFun::Closure {
                        name: name.clone(),
                        sizes: sizes.clone(),
                        params,
                        body,
                        env: env.with_types(bound),
                        generic: None,
                    })));
                }
            }
            return Ok(v.clone());
        }
        if let Some(dec) = self.top_level(name, env.top) {
            return self.top_ref(dec, ty, span);
        }
        if name == "rep" {
            return self.rep(&ty, env, span);
        }
        if let Some(k) = unflatten_rank(name) {
            return self.unflatten_sizes(k, &ty, env, span);
        }
        if name == "scratch" {
            return self.scratch(&ty, env, span);
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

    /// The `k` leading sizes of the result of a function used at type `ty` whose result sizes
    /// only its context fixes (`rep`, `unflatten`), as the `i64` values they have in `env`
    /// (computed ones computed); `None` if one is not known there.
    fn result_sizes(&mut self, ty: &SType, k: usize, env: &Env<'a>) -> Option<Vec<SVal<'a>>> {
        let SType::Arrow { to, .. } = ty else { return None };
        let SType::Array { shape, .. } = &**to else { return None };
        let i64t = Type::Prim(PrimType::Int(crate::prim::IntType::I64));
        let mut dims = Vec::new();
        for d in shape.iter().take(k) {
            dims.push(SVal::Leaf(self.eval_size(d, env)?, i64t.clone()));
        }
        (dims.len() == k).then_some(dims)
    }

    /// `rep`: `replicate` with the size the checker inferred from the context, which must be a
    /// size in scope here (a size parameter, an `i64` variable) or a constant.
    fn rep(&mut self, ty: &SType, env: &Env<'a>, span: Span) -> LResult<SVal<'a>> {
        let Some(n) = self.result_sizes(ty, 1, env) else {
            return Err(unsupported(
                span,
                "the size of this replicate is not known here (write `replicate n e`)",
            ));
        };
        let arity = intrinsic::arity("replicate").unwrap_or(2);
        let f = Rc::new(SFun::Intrinsic { name: "replicate".to_string(), arity });
        Ok(SVal::Fun(Rc::new(SFun::Partial { f, args: n })))
    }

    /// `scratch` at type `ty` (`(n: i64) -> *[n]t`): `replicate n` of a zero of type `t`, whose
    /// sizes must be known here (`scratch n : [n][m]f32`).
    fn scratch(&mut self, ty: &SType, env: &Env<'a>, span: Span) -> LResult<SVal<'a>> {
        let SType::Arrow { to, .. } = ty else { return Err(internal(span, "scratch's type")) };
        let SType::Array { shape, elem, .. } = &**to else {
            return Err(internal(span, "scratch's type"));
        };
        let elem_ty = SType::array_of(shape[1..].to_vec(), (**elem).clone());
        if matches!(**elem, SType::Sum(_)) {
            return Err(unsupported(span, "`scratch` of a sum type"));
        }
        let unknown = || {
            unsupported(
                span,
                "the sizes of the elements of this `scratch` are not known here (give them with \
                 a type, e.g. `scratch n : [n][m]f32`)",
            )
        };
        let shapes =
            pat::leaf_shapes(Some(&elem_ty), &elem_ty).map_err(|m| unsupported(span, m))?;
        let mut leaves = Vec::new();
        for (p, names) in shapes {
            let mut dims = Vec::new();
            for name in &names {
                let d = match name {
                    DimName::Const(c) => Dim::Const(*c),
                    DimName::Named(n) => {
                        let size = crate::types::Size::Var(n.clone());
                        atom_dim(self.eval_size(&size, env).ok_or_else(unknown)?)
                            .ok_or_else(unknown)?
                    }
                    DimName::Computed(size) => {
                        atom_dim(self.eval_size(size, env).ok_or_else(unknown)?)
                            .ok_or_else(unknown)?
                    }
                    DimName::Anon => return Err(unknown()),
                };
                dims.push(d);
            }
            let zero = Atom::Const(crate::prim::PrimValue::zero(p));
            if dims.is_empty() {
                leaves.push((zero, Type::Prim(p)));
            } else {
                let t = Type::Array { elem: p, shape: dims.clone() };
                let v =
                    self.b.let1("zeros", t.clone(), Exp::Replicate { shape: dims, value: zero });
                leaves.push((Atom::Var(v), t));
            }
        }
        let zero = pat::build_sval(&elem_ty, &mut leaves.into_iter())
            .ok_or_else(|| internal(span, "scratch's element"))?;
        let f = Rc::new(SFun::Intrinsic { name: "scratch".to_string(), arity: 2 });
        Ok(SVal::Fun(Rc::new(SFun::Partial { f, args: vec![zero] })))
    }

    /// `unflatten` (or `unflatten_3d`, `unflatten_4d`) at type `ty`: the intrinsic applied to
    /// the `k` leading sizes of its result, which the context fixed (a type annotation, a
    /// return type, an array it is zipped with).
    fn unflatten_sizes(
        &mut self,
        k: usize,
        ty: &SType,
        env: &Env<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let Some(dims) = self.result_sizes(ty, k, env) else {
            return Err(unsupported(
                span,
                "the sizes of this `unflatten`'s result are not known here (give them with a type, \
                 e.g. `unflatten xs : [n][m]t`)",
            ));
        };
        let f = Rc::new(SFun::Intrinsic { name: "unflatten".to_string(), arity: k + 1 });
        Ok(SVal::Fun(Rc::new(SFun::Partial { f, args: dims })))
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
            SFun::Project(_) | SFun::Compose { .. } | SFun::Placeholder { .. } => 1,
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
            SFun::Placeholder { ty, env } => match ty {
                SType::Arrow { to, .. } => self.placeholder(to, env, span),
                _ => Err(internal(span, "placeholder of a non-function")),
            },
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

/// How many dimensions an `unflatten` intrinsic makes, by name.
fn unflatten_rank(name: &str) -> Option<usize> {
    match name {
        "unflatten" => Some(2),
        "unflatten_3d" => Some(3),
        "unflatten_4d" => Some(4),
        _ => None,
    }
}
