//! Statements, control flow and calls. Variables are unique in a program and recursion is
//! refused, so the environment is one flat vector indexed by variable; SOACs live in `soac.rs`.

use std::rc::Rc;

use super::array::{self, check_index, shape_str, Array, Ix, Meter, StackError, Stacker, Val};
use super::liveness::{BodyAnn, StmAnn};
use super::prim_ops;
use super::Limits;
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, Atom, Body, Dim, DimIndex, Exp, LoopForm, Param, Type, Var};
use crate::prim::{PrimType, PrimValue};

/// Errors are boxed: they are rare, and a small `Result` keeps the hot paths fast.
pub(crate) type Res<T> = Result<T, Box<Diagnostic>>;

/// The values an expression produces: most produce one, so that case does not allocate.
pub(crate) enum Out {
    One(Val),
    Many(Vec<Val>),
}

pub(crate) struct Interp<'p> {
    pub prog: &'p ir::Program,
    pub funs: &'p [BodyAnn],
    pub env: Vec<Option<Val>>,
    pub meter: Rc<Meter>,
    /// Which functions are running (to refuse recursion, which the flat environment cannot hold).
    active: Vec<bool>,
    depth: usize,
    steps: u64,
    limits: Limits,
}

#[cold]
#[inline(never)]
pub(crate) fn err(span: Span, msg: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::runtime(span, msg))
}

/// Text of a value inside a message: `3`, `1.5`, `true`, `[1, 2, 3]` (long arrays shortened).
pub(crate) fn value_text(v: &Val) -> String {
    fn prim(p: PrimValue) -> String {
        match p {
            PrimValue::F16(x) => x.to_f32().to_string(),
            PrimValue::F32(x) => x.to_string(),
            PrimValue::F64(x) => x.to_string(),
            PrimValue::Bool(b) => b.to_string(),
            _ => p.as_i128().map_or_else(String::new, |i| i.to_string()),
        }
    }
    fn arr(a: &Array, shape: &[i64], start: usize) -> String {
        let (Some(&d), rest) = (shape.first(), shape.get(1..).unwrap_or(&[])) else {
            return a.get(start).map_or_else(String::new, prim);
        };
        let inner: usize = rest.iter().map(|&x| x as usize).product();
        let shown = (d as usize).min(8);
        let mut parts: Vec<String> = (0..shown).map(|j| arr(a, rest, start + j * inner)).collect();
        if shown < d as usize {
            parts.push("...".to_string());
        }
        format!("[{}]", parts.join(", "))
    }
    match v {
        Val::Prim(p) => prim(*p),
        Val::Arr(a) => arr(a, a.shape(), 0),
    }
}

impl<'p> Interp<'p> {
    pub fn new(
        prog: &'p ir::Program,
        funs: &'p [BodyAnn],
        env_size: usize,
        meter: Rc<Meter>,
        limits: Limits,
    ) -> Interp<'p> {
        Interp {
            prog,
            funs,
            env: vec![None; env_size],
            meter,
            active: vec![false; prog.funs.len()],
            depth: 0,
            steps: 0,
            limits,
        }
    }

    // ---- the environment ----

    pub fn read(&self, v: Var, span: Span) -> Res<&Val> {
        match self.env.get(v.0 as usize) {
            Some(Some(val)) => Ok(val),
            _ => Err(err(
                span,
                format!("internal error: variable `{}` ({}) has no value", self.prog.name(v), v.0),
            )),
        }
    }

    /// `v`'s value, moved out of the environment when the statement may consume it.
    pub fn take(&mut self, v: Var, ann: &StmAnn, span: Span) -> Res<Val> {
        if ann.moves.contains(&v) {
            match self.env.get_mut(v.0 as usize).and_then(Option::take) {
                Some(val) => Ok(val),
                None => self.read(v, span).cloned(),
            }
        } else {
            self.read(v, span).cloned()
        }
    }

    pub fn bind(&mut self, v: Var, val: Val, span: Span) -> Res<()> {
        match self.env.get_mut(v.0 as usize) {
            Some(slot) => {
                *slot = Some(val);
                Ok(())
            }
            None => Err(err(span, format!("internal error: variable {} out of range", v.0))),
        }
    }

    pub fn atom(&self, a: &Atom, span: Span) -> Res<Val> {
        match a {
            Atom::Const(p) => Ok(Val::Prim(*p)),
            Atom::Var(v) => self.read(*v, span).cloned(),
        }
    }

    pub fn prim(&self, a: &Atom, span: Span) -> Res<PrimValue> {
        match a {
            Atom::Const(p) => Ok(*p),
            Atom::Var(v) => match self.read(*v, span)? {
                Val::Prim(p) => Ok(*p),
                Val::Arr(a) => Err(err(
                    span,
                    format!(
                        "internal error: `{}` is an array of shape {} where a scalar is expected",
                        self.prog.name(*v),
                        shape_str(a.shape())
                    ),
                )),
            },
        }
    }

    /// An integer operand as a mathematical integer.
    pub fn int(&self, a: &Atom, span: Span) -> Res<i128> {
        let p = self.prim(a, span)?;
        p.as_i128().ok_or_else(|| {
            err(span, format!("internal error: {} where an integer is expected", p.ty()))
        })
    }

    /// A size or index operand (an `i64`, or another integer type that fits).
    pub fn i64(&self, a: &Atom, span: Span) -> Res<i64> {
        let i = self.int(a, span)?;
        i64::try_from(i)
            .map_err(|_| err(span, format!("internal error: size {i} does not fit i64")))
    }

    pub fn bool(&self, a: &Atom, span: Span) -> Res<bool> {
        match self.prim(a, span)? {
            PrimValue::Bool(b) => Ok(b),
            p => Err(err(span, format!("internal error: {} where a bool is expected", p.ty()))),
        }
    }

    pub fn array(&self, v: Var, span: Span) -> Res<&Array> {
        match self.read(v, span)? {
            Val::Arr(a) => Ok(a),
            Val::Prim(p) => Err(err(
                span,
                format!(
                    "internal error: `{}` is a {} where an array is expected",
                    self.prog.name(v),
                    p.ty()
                ),
            )),
        }
    }

    pub fn dim(&self, d: &Dim, span: Span) -> Res<i64> {
        match d {
            Dim::Const(c) => Ok(*c),
            Dim::Var(v) => self.i64(&Atom::Var(*v), span),
        }
    }

    /// A dimension if its variable has a value (declared result types may name variables that
    /// are out of scope at the check; those dimensions are not checked).
    pub fn dim_opt(&self, d: &Dim) -> Option<i64> {
        match d {
            Dim::Const(c) => Some(*c),
            Dim::Var(v) => match self.env.get(v.0 as usize) {
                Some(Some(Val::Prim(p))) => p.as_i128().and_then(|i| i64::try_from(i).ok()),
                _ => None,
            },
        }
    }

    pub fn dims(&self, ds: &[Dim], span: Span) -> Res<Vec<i64>> {
        ds.iter().map(|d| self.dim(d, span)).collect()
    }

    fn type_text(&self, t: &Type) -> String {
        match t {
            Type::Prim(p) => p.to_string(),
            Type::Array { elem, shape } => {
                let dims: String = shape
                    .iter()
                    .map(|d| match d {
                        Dim::Const(c) => format!("[{c}]"),
                        Dim::Var(v) => format!("[{}]", self.prog.name(*v)),
                    })
                    .collect();
                format!("{dims}{elem}")
            }
        }
    }

    /// Check `val` against `ty`: element type and rank (an internal error if they differ), then
    /// every dimension (a size mismatch naming both shapes). With `strict` off, dimensions whose
    /// variable has no value are skipped.
    pub fn check_type(
        &self,
        val: &Val,
        ty: &Type,
        what: &dyn Fn() -> String,
        strict: bool,
        span: Span,
    ) -> Res<()> {
        match (ty, val) {
            (Type::Prim(t), Val::Prim(p)) if p.ty() == *t => Ok(()),
            (Type::Array { elem, shape }, Val::Arr(a))
                if a.elem() == *elem && a.shape().len() == shape.len() =>
            {
                let want = |d: &Dim| {
                    if strict {
                        self.dim(d, span).map(Some)
                    } else {
                        Ok(self.dim_opt(d))
                    }
                };
                let mut ok = true;
                for (d, &got) in shape.iter().zip(a.shape()) {
                    ok &= want(d)?.is_none_or(|w| w == got);
                }
                if ok {
                    return Ok(());
                }
                let mut expected = Vec::with_capacity(shape.len());
                for (d, &got) in shape.iter().zip(a.shape()) {
                    expected.push(want(d)?.unwrap_or(got));
                }
                Err(err(
                    span,
                    format!(
                        "size mismatch: {}: expected shape {}, got {}",
                        what(),
                        shape_str(&expected),
                        shape_str(a.shape())
                    ),
                ))
            }
            _ => Err(err(
                span,
                format!(
                    "internal error: {} has type {}, but its declared type is {}",
                    what(),
                    val.type_str(),
                    self.type_text(ty)
                ),
            )),
        }
    }

    /// Bind a pattern to values, then check every element's declared type (whose dimensions may
    /// name earlier elements).
    pub fn bind_params(
        &mut self,
        params: &[Param],
        vals: Vec<Val>,
        what: &dyn Fn(&Param) -> String,
        span: Span,
    ) -> Res<()> {
        if params.len() != vals.len() {
            return Err(err(
                span,
                format!(
                    "internal error: {} values for {} variables ({})",
                    vals.len(),
                    params.len(),
                    params.first().map_or_else(String::new, what)
                ),
            ));
        }
        for (p, v) in params.iter().zip(vals) {
            self.bind(p.var, v, span)?;
        }
        self.check_params(params, what, span)
    }

    pub fn check_params(
        &self,
        params: &[Param],
        what: &dyn Fn(&Param) -> String,
        span: Span,
    ) -> Res<()> {
        for p in params {
            let v = self.read(p.var, span)?;
            self.check_type(v, &p.ty, &|| what(p), true, span)?;
        }
        Ok(())
    }

    fn drop_dead(&mut self, ann: &StmAnn) {
        for v in &ann.drops {
            if let Some(slot) = self.env.get_mut(v.0 as usize) {
                *slot = None;
            }
        }
    }

    // ---- bodies and statements ----

    /// Count `k` executed statements against the step limit.
    pub fn count_steps(&mut self, k: u64, span: Span) -> Res<()> {
        let before = self.steps;
        self.steps = self.steps.saturating_add(k);
        match self.limits.max_steps {
            Some(m) if self.steps > m => Err(err(
                span,
                format!(
                    "the program was stopped after {} steps (the interpreter's limit)",
                    before.max(m)
                ),
            )),
            _ => Ok(()),
        }
    }

    pub fn exec_body(&mut self, body: &'p Body, ann: &'p BodyAnn, span: Span) -> Res<Vec<Val>> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(err(
                span,
                format!(
                    "unsupported: calls and loops nested more than {} levels deep",
                    self.limits.max_depth
                ),
            ));
        }
        for (stm, sa) in body.stms.iter().zip(&ann.stms) {
            self.count_steps(1, stm.span)?;
            let out = self.exp(&stm.exp, sa, stm.span)?;
            let name = |p: &Param| format!("`{}`", self.prog.name(p.var));
            match out {
                Out::One(v) if stm.pat.len() == 1 => {
                    // One variable: its type cannot mention itself, so check before binding.
                    let p = &stm.pat[0];
                    self.check_type(&v, &p.ty, &|| name(p), true, stm.span)?;
                    self.bind(p.var, v, stm.span)?;
                }
                Out::One(v) => self.bind_params(&stm.pat, vec![v], &name, stm.span)?,
                Out::Many(vs) => self.bind_params(&stm.pat, vs, &name, stm.span)?,
            }
            self.drop_dead(sa);
        }
        let mut out = Vec::with_capacity(body.result.len());
        for (k, a) in body.result.iter().enumerate() {
            match a {
                Atom::Var(v) if ann.owned.get(k) == Some(&true) => {
                    match self.env.get_mut(v.0 as usize).and_then(Option::take) {
                        Some(val) => out.push(val),
                        None => out.push(self.read(*v, span)?.clone()),
                    }
                }
                _ => out.push(self.atom(a, span)?),
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn index(&self, idx: &[DimIndex], span: Span) -> Res<Vec<Ix>> {
        idx.iter()
            .map(|ix| {
                Ok(match ix {
                    DimIndex::Fix(a) => Ix::Fix(self.i64(a, span)?),
                    DimIndex::Slice { start, len, stride } => Ix::Slice {
                        start: self.i64(start, span)?,
                        len: self.i64(len, span)?,
                        stride: self.i64(stride, span)?,
                    },
                })
            })
            .collect()
    }

    /// The position of a single element selected by fixed, in-bounds indices of every dimension
    /// (the common case, without allocating); `None` otherwise.
    fn element_offset(&self, shape: &[i64], idx: &[DimIndex], span: Span) -> Res<Option<usize>> {
        if idx.len() != shape.len() {
            return Ok(None);
        }
        let mut off: usize = 0;
        for (ix, &d) in idx.iter().zip(shape) {
            let DimIndex::Fix(a) = ix else { return Ok(None) };
            let i = self.i64(a, span)?;
            if i < 0 || i >= d {
                return Ok(None);
            }
            off = off * d as usize + i as usize;
        }
        Ok(Some(off))
    }

    fn checked_type(
        &self,
        t: PrimType,
        p: PrimValue,
        op: &dyn std::fmt::Debug,
        span: Span,
    ) -> Res<()> {
        if p.ty() == t {
            Ok(())
        } else {
            Err(err(span, format!("internal error: `{op:?}` on {t} applied to a {}", p.ty())))
        }
    }

    fn exp(&mut self, e: &'p Exp, ann: &'p StmAnn, span: Span) -> Res<Out> {
        let prim = |r: Result<PrimValue, String>| match r {
            Ok(p) => Ok(Out::One(Val::Prim(p))),
            Err(m) => Err(err(span, m)),
        };
        match e {
            Exp::Atom(Atom::Var(v)) => Ok(Out::One(self.take(*v, ann, span)?)),
            Exp::Atom(a) => Ok(Out::One(self.atom(a, span)?)),
            Exp::UnOp(op, t, a) => {
                let x = self.prim(a, span)?;
                self.checked_type(*t, x, op, span)?;
                prim(prim_ops::unop(*op, x))
            }
            Exp::BinOp(op, t, a, b) => {
                let (x, y) = (self.prim(a, span)?, self.prim(b, span)?);
                self.checked_type(*t, x, op, span)?;
                prim(prim_ops::binop(*op, x, y))
            }
            Exp::Cmp(op, t, a, b) => {
                let (x, y) = (self.prim(a, span)?, self.prim(b, span)?);
                self.checked_type(*t, x, op, span)?;
                prim(prim_ops::cmp(*op, x, y).map(PrimValue::Bool))
            }
            Exp::Convert { from, to, arg } => {
                prim(prim_ops::convert(*from, *to, self.prim(arg, span)?))
            }
            Exp::Math(f, _, args) => {
                let xs = args.iter().map(|a| self.prim(a, span)).collect::<Res<Vec<_>>>()?;
                prim(prim_ops::math(*f, &xs))
            }
            Exp::Select(c, a, b) => {
                let chosen = if self.bool(c, span)? { a } else { b };
                Ok(Out::One(self.atom(chosen, span)?))
            }
            Exp::Index { .. }
            | Exp::Update { .. }
            | Exp::Iota { .. }
            | Exp::Replicate { .. }
            | Exp::Rearrange { .. }
            | Exp::Reshape { .. }
            | Exp::Concat { .. }
            | Exp::ArrayLit { .. } => self.array_exp(e, ann, span),
            Exp::Copy(v) => Ok(Out::One(self.take(*v, ann, span)?)),
            Exp::Apply { fun, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(match a {
                        Atom::Var(v) => self.take(*v, ann, span)?,
                        Atom::Const(p) => Val::Prim(*p),
                    });
                }
                Ok(Out::Many(self.call(*fun, vals, span)?))
            }
            Exp::If { cond, then_body, else_body, ret } => {
                let (body, k) =
                    if self.bool(cond, span)? { (then_body, 0) } else { (else_body, 1) };
                let sub = ann.subs.get(k).ok_or_else(|| err(span, "internal error: annotation"))?;
                let vals = self.exec_body(body, sub, span)?;
                // The statement's pattern checks the sizes; here only types and ranks.
                if ret.len() != vals.len()
                    || ret
                        .iter()
                        .zip(&vals)
                        .any(|(t, v)| t.elem() != v.elem() || t.rank() != v.shape().len())
                {
                    return Err(err(
                        span,
                        "internal error: `if` branch results do not match its type",
                    ));
                }
                Ok(Out::Many(vals))
            }
            Exp::Loop { params, form, body } => self.exec_loop(params, form, body, ann, span),
            Exp::Map { w, lam, arrs } => self.map(w, lam, arrs, ann, span),
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                self.reduce(w, lam, neutral, arrs, ann, span)
            }
            Exp::Scan { w, lam, neutral, arrs } => self.scan(w, lam, neutral, arrs, ann, span),
            Exp::Scatter { dest, idx, vals, w } => self.scatter(*dest, idx, *vals, w, ann, span),
            Exp::Hist { dest, lam, is, vs, w, .. } => self.hist(dest, lam, *is, vs, w, ann, span),
            Exp::Ad { .. } => Err(err(
                span,
                "internal error: `jvp`/`vjp` reached the interpreter undifferentiated",
            )),
            Exp::Assert { cond, msg, vals } => {
                if !self.bool(cond, span)? {
                    let vals = vals.iter().map(|a| self.atom(a, span)).collect::<Res<Vec<_>>>()?;
                    return Err(err(span, format_message(msg, &vals)));
                }
                Ok(Out::Many(Vec::new()))
            }
        }
    }

    /// The array expressions, apart from `exp` so that their locals stay out of the frames of
    /// nested evaluation (which recurses through `exp`).
    #[inline(never)]
    fn array_exp(&mut self, e: &'p Exp, ann: &'p StmAnn, span: Span) -> Res<Out> {
        match e {
            Exp::Index { arr, idx } => {
                let a = self.array(*arr, span)?;
                if let Some(off) = self.element_offset(a.shape(), idx, span)? {
                    let p = a.get(off).ok_or_else(|| err(span, "internal error: index"))?;
                    return Ok(Out::One(Val::Prim(p)));
                }
                let ix = self.index(idx, span)?;
                Ok(Out::One(a.index(&self.meter, &ix).map_err(|m| err(span, m))?))
            }
            Exp::Update { arr, idx, value } => {
                let scalar = match value {
                    Atom::Const(p) => Some(*p),
                    Atom::Var(v) => match self.read(*v, span)? {
                        Val::Prim(p) => Some(*p),
                        Val::Arr(_) => None,
                    },
                };
                if let Some(p) = scalar {
                    if let Some(off) =
                        self.element_offset(self.array(*arr, span)?.shape(), idx, span)?
                    {
                        let Val::Arr(mut a) = self.take(*arr, ann, span)? else {
                            return Err(err(span, "internal error: update of a scalar"));
                        };
                        let (data, base) = a.make_mut(&self.meter).map_err(|m| err(span, m))?;
                        if !data.set(base + off, p) {
                            return Err(err(
                                span,
                                format!(
                                    "internal error: cannot write a {} into an array of {}",
                                    p.ty(),
                                    a.elem()
                                ),
                            ));
                        }
                        return Ok(Out::One(Val::Arr(a)));
                    }
                }
                let ix = self.index(idx, span)?;
                check_index(self.array(*arr, span)?.shape(), &ix).map_err(|m| err(span, m))?;
                let mut value = match value {
                    Atom::Var(v) => self.take(*v, ann, span)?,
                    Atom::Const(p) => Val::Prim(*p),
                };
                let Val::Arr(mut a) = self.take(*arr, ann, span)? else {
                    return Err(err(span, "internal error: update of a scalar"));
                };
                // A row of the array written back into it would keep its buffer shared.
                if let Val::Arr(v) = &value {
                    if v.shares_buffer(&a) {
                        value = Val::Arr(v.materialize(&self.meter).map_err(|m| err(span, m))?);
                    }
                }
                a.update(&self.meter, &ix, &value).map_err(|m| err(span, m))?;
                Ok(Out::One(Val::Arr(a)))
            }
            Exp::Iota { n, start, step, it } => {
                let n = self.i64(n, span)?;
                let (start, step) = (self.int(start, span)?, self.int(step, span)?);
                let a = array::iota(&self.meter, n, start, step, *it).map_err(|m| err(span, m))?;
                Ok(Out::One(Val::Arr(a)))
            }
            Exp::Replicate { shape, value } => {
                let shape = self.dims(shape, span)?;
                let v = self.atom(value, span)?;
                let a = array::replicate(&self.meter, &shape, &v).map_err(|m| err(span, m))?;
                Ok(Out::One(Val::Arr(a)))
            }
            Exp::Rearrange { arr, perm } => {
                let a = self.array(*arr, span)?;
                Ok(Out::One(Val::Arr(a.rearrange(&self.meter, perm).map_err(|m| err(span, m))?)))
            }
            Exp::Reshape { arr, shape } => {
                let shape = self.dims(shape, span)?;
                let a = self.array(*arr, span)?;
                Ok(Out::One(Val::Arr(a.reshape(shape).map_err(|m| err(span, m))?)))
            }
            Exp::Concat { axis, arrs, len } => {
                let len = self.dim(len, span)?;
                let arrays = arrs.iter().map(|v| self.array(*v, span)).collect::<Res<Vec<_>>>()?;
                let a = array::concat(&self.meter, *axis, &arrays).map_err(|m| err(span, m))?;
                let got = a.shape().get(*axis).copied().unwrap_or(0);
                if got != len {
                    return Err(err(
                        span,
                        format!(
                            "size mismatch: concatenation has length {got} along dimension \
                             {axis}, but its type says {len}"
                        ),
                    ));
                }
                Ok(Out::One(Val::Arr(a)))
            }
            Exp::ArrayLit { elems, elem_ty } => {
                let mut st = Stacker::new(elem_ty.elem(), elems.len());
                for a in elems {
                    let v = self.atom(a, span)?;
                    st.push(&self.meter, &v).map_err(|e| match e {
                        StackError::Irregular(x, y) => err(
                            span,
                            format!(
                                "size mismatch: array literal elements have shapes {} and {}",
                                shape_str(&x),
                                shape_str(&y)
                            ),
                        ),
                        StackError::Other(m) => err(span, m),
                    })?;
                }
                let inner = match elem_ty {
                    Type::Prim(_) => Vec::new(),
                    Type::Array { shape, .. } => self.dims(shape, span)?,
                };
                Ok(Out::One(Val::Arr(st.finish(&self.meter, &inner).map_err(|m| err(span, m))?)))
            }
            // Copy-on-write makes sharing the buffer indistinguishable from copying it.
            _ => Err(err(span, "internal error: not an array expression")),
        }
    }

    #[inline(never)]
    fn exec_loop(
        &mut self,
        params: &'p [(Param, Atom)],
        form: &'p LoopForm,
        body: &'p Body,
        ann: &'p StmAnn,
        span: Span,
    ) -> Res<Out> {
        let sub = ann.subs.first().ok_or_else(|| err(span, "internal error: annotation"))?;
        let ps: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
        let mut inits = Vec::with_capacity(params.len());
        for (_, a) in params {
            inits.push(match a {
                Atom::Var(v) => self.take(*v, ann, span)?,
                Atom::Const(p) => Val::Prim(*p),
            });
        }
        let what = |p: &Param| format!("loop parameter `{}`", self.prog.name(p.var));
        self.bind_params(&ps, inits, &what, span)?;
        match form {
            LoopForm::For { i, it, bound } => {
                let n = self.int(bound, span)?;
                let mut k: i128 = 0;
                while k < n {
                    self.bind(*i, Val::Prim(PrimValue::int(*it, k)), span)?;
                    let vals = self.exec_body(body, sub, span)?;
                    let what = |p: &Param| format!("loop parameter `{}`", self.prog.name(p.var));
                    self.bind_params(&ps, vals, &what, span)?;
                    k += 1;
                }
            }
            LoopForm::While(c) => {
                while self.bool(&Atom::Var(*c), span)? {
                    let vals = self.exec_body(body, sub, span)?;
                    let what = |p: &Param| format!("loop parameter `{}`", self.prog.name(p.var));
                    self.bind_params(&ps, vals, &what, span)?;
                }
            }
        }
        let mut out = Vec::with_capacity(ps.len());
        for p in &ps {
            match self.env.get_mut(p.var.0 as usize).and_then(Option::take) {
                Some(v) => out.push(v),
                None => out.push(self.read(p.var, span)?.clone()),
            }
        }
        Ok(Out::Many(out))
    }

    /// Call function `fun`: check the arguments against its parameters and the results against
    /// its declared types. `span` is the call's.
    #[inline(never)]
    pub fn call(&mut self, fun: usize, args: Vec<Val>, span: Span) -> Res<Vec<Val>> {
        let prog = self.prog;
        let (Some(f), Some(ann)) = (prog.funs.get(fun), self.funs.get(fun)) else {
            return Err(err(span, format!("internal error: no function number {fun}")));
        };
        if self.active.get(fun) == Some(&true) {
            return Err(err(span, format!("unsupported: recursive call of `{}`", f.name)));
        }
        let what = |p: &Param| format!("argument `{}` of `{}`", prog.name(p.var), f.name);
        self.bind_params(&f.params, args, &what, span)?;
        self.active[fun] = true;
        let results = self.exec_body(&f.body, ann, span)?;
        self.active[fun] = false;
        // `ret` lists every result, the existential sizes first; tolerate it listing the values
        // only.
        let skip = if f.ret.len() == results.len() {
            0
        } else if f.ret.len() + f.existentials == results.len() {
            f.existentials
        } else {
            return Err(err(
                span,
                format!(
                    "internal error: `{}` returns {} values but declares {} result types",
                    f.name,
                    results.len(),
                    f.ret.len()
                ),
            ));
        };
        for (k, (t, v)) in f.ret.iter().zip(&results[skip..]).enumerate() {
            let what = || format!("result {} of `{}`", k + skip + 1, f.name);
            self.check_type(v, t, &what, false, span)
                .map_err(|d| Box::new(d.with_secondary(f.span, "declared here")))?;
        }
        Ok(results)
    }
}

/// Replace each `{}` in `msg` by the next value; an empty message is a plain assertion failure.
pub(crate) fn format_message(msg: &str, vals: &[Val]) -> String {
    if msg.is_empty() {
        return "assertion failed".to_string();
    }
    let mut out = String::with_capacity(msg.len());
    let mut vals = vals.iter();
    let mut rest = msg;
    while let Some(k) = rest.find("{}") {
        out.push_str(&rest[..k]);
        match vals.next() {
            Some(v) => out.push_str(&value_text(v)),
            None => out.push_str("{}"),
        }
        rest = &rest[k + 2..];
    }
    out.push_str(rest);
    out
}
