//! The state of the differentiation pass: fresh variables with their types, a stack of open
//! statement lists, constant-folding scalar helpers, renamed copies of bodies, and the inlining
//! of calls inside differentiated lambdas.

use std::collections::HashMap;

use super::walk;
use super::{internal, unsupported, R};
use crate::diag::Span;
use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

pub struct Ad {
    pub names: Vec<String>,
    pub types: HashMap<Var, Type>,
    stack: Vec<Vec<Stm>>,
    pub span: Span,
    /// Free arrays of the `map` lambda being differentiated whose adjoint contributions are
    /// collected as (index, value) pairs instead of by the `Index` rule.
    pub sparse: std::collections::HashSet<Var>,
    /// The contributions to those arrays' adjoints found so far in the scope being reversed.
    pub contribs: Vec<Contrib>,
}

/// `adj(arr)[idx] += val`: a read of a sparse array, reversed. `val` has the type of what was
/// read (an element, or a row when `idx` is shorter than the array's rank).
#[derive(Clone, Debug)]
pub struct Contrib {
    pub arr: Var,
    pub idx: Vec<Atom>,
    pub val: Atom,
    pub ty: Type,
}

impl Contrib {
    /// Its indices, then its value: how a scope returns it.
    pub fn atoms(&self) -> impl Iterator<Item = Atom> + '_ {
        self.idx.iter().copied().chain(std::iter::once(self.val))
    }
}

/// The constant `v` of float type `t` (or an integer/bool zero for other types).
pub fn fconst(t: PrimType, v: f64) -> Atom {
    Atom::Const(match t {
        PrimType::Float(ft) => PrimValue::float(ft, v),
        PrimType::Int(it) => PrimValue::int(it, v as i128),
        PrimType::Bool => PrimValue::Bool(v != 0.0),
    })
}

pub fn is_const(a: &Atom, v: f64) -> bool {
    matches!(a, Atom::Const(c) if c.as_f64() == Some(v) || c.as_i128() == Some(v as i128) && v.fract() == 0.0)
}

pub fn is_float(t: &Type) -> bool {
    matches!(t.elem(), PrimType::Float(_))
}

pub fn shape_of(t: &Type) -> Vec<Dim> {
    match t {
        Type::Prim(_) => Vec::new(),
        Type::Array { shape, .. } => shape.clone(),
    }
}

pub fn mk_ty(elem: PrimType, shape: Vec<Dim>) -> Type {
    if shape.is_empty() {
        Type::Prim(elem)
    } else {
        Type::Array { elem, shape }
    }
}

pub fn row_of(t: &Type) -> Type {
    let s = shape_of(t);
    mk_ty(t.elem(), s.get(1..).unwrap_or(&[]).to_vec())
}

pub fn dim_atom(d: Dim) -> Atom {
    match d {
        Dim::Const(c) => Atom::Const(PrimValue::I64(c)),
        Dim::Var(v) => Atom::Var(v),
    }
}

pub fn atom_dim(a: Atom) -> Option<Dim> {
    match a {
        Atom::Var(v) => Some(Dim::Var(v)),
        Atom::Const(PrimValue::I64(c)) => Some(Dim::Const(c)),
        Atom::Const(_) => None,
    }
}

pub fn i64c(v: i64) -> Atom {
    Atom::Const(PrimValue::I64(v))
}

impl Ad {
    pub fn new(names: Vec<String>, types: HashMap<Var, Type>) -> Ad {
        Ad {
            names,
            types,
            stack: vec![Vec::new()],
            span: Span::DUMMY,
            sparse: Default::default(),
            contribs: Vec::new(),
        }
    }

    pub fn fresh(&mut self, name: &str, ty: Type) -> Var {
        let v = Var(self.names.len() as u32);
        self.names.push(name.to_string());
        self.types.insert(v, ty);
        v
    }

    pub fn name(&self, v: Var) -> String {
        self.names.get(v.0 as usize).cloned().unwrap_or_else(|| "v".into())
    }

    /// A fresh variable named after `v` with a suffix (`x_adj`, `x_tan`).
    pub fn fresh_like(&mut self, v: Var, suffix: &str, ty: Type) -> Var {
        let base = self.name(v);
        self.fresh(&format!("{base}{suffix}"), ty)
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Param {
        Param { var: self.fresh(name, ty.clone()), ty }
    }

    pub fn ty(&self, v: Var) -> R<Type> {
        self.types.get(&v).cloned().ok_or_else(|| internal(self.span, "a variable without a type"))
    }

    pub fn atom_ty(&self, a: &Atom) -> R<Type> {
        match a {
            Atom::Var(v) => self.ty(*v),
            Atom::Const(c) => Ok(Type::Prim(c.ty())),
        }
    }

    pub fn push(&mut self, pat: Vec<Param>, exp: Exp) {
        for p in &pat {
            self.types.insert(p.var, p.ty.clone());
        }
        walk::binder_types(&exp, &mut self.types);
        let stm = Stm { pat, exp, span: self.span };
        match self.stack.last_mut() {
            Some(s) => s.push(stm),
            None => self.stack.push(vec![stm]),
        }
    }

    pub fn push_stm(&mut self, s: Stm) {
        let span = self.span;
        self.span = s.span;
        self.push(s.pat, s.exp);
        self.span = span;
    }

    pub fn let1(&mut self, name: &str, ty: Type, exp: Exp) -> Var {
        let p = self.param(name, ty);
        let v = p.var;
        self.push(vec![p], exp);
        v
    }

    pub fn open(&mut self) {
        self.stack.push(Vec::new());
    }

    pub fn close(&mut self, result: Vec<Atom>) -> Body {
        let stms =
            if self.stack.len() > 1 { self.stack.pop().unwrap_or_default() } else { Vec::new() };
        Body { stms, result }
    }

    /// A lambda whose body `f` emits, given its fresh parameters.
    pub fn lambda(
        &mut self,
        params: Vec<Param>,
        ret: Vec<Type>,
        f: impl FnOnce(&mut Ad, &[Param]) -> R<Vec<Atom>>,
    ) -> R<Lambda> {
        self.open();
        let r = f(self, &params);
        let res = r.as_ref().ok().cloned().unwrap_or_default();
        let body = self.close(res);
        r?;
        Ok(Lambda { params, body, ret })
    }

    pub fn bin(&mut self, op: BinOp, t: PrimType, a: Atom, b: Atom) -> Atom {
        match op {
            BinOp::Add if is_const(&a, 0.0) => return b,
            BinOp::Add | BinOp::Sub if is_const(&b, 0.0) => return a,
            BinOp::Mul if is_const(&a, 1.0) => return b,
            // `x ** 1` is exactly `x` (the derivative of `x ** 2`).
            BinOp::Mul | BinOp::Div | BinOp::Pow if is_const(&b, 1.0) => return a,
            BinOp::Mul if is_const(&a, 0.0) || is_const(&b, 0.0) => {
                if matches!(t, PrimType::Int(_)) {
                    return fconst(t, 0.0);
                }
            }
            _ => {}
        }
        if let (Atom::Const(x), Atom::Const(y)) = (a, b) {
            if let (Some(x), Some(y), PrimType::Float(_)) = (x.as_f64(), y.as_f64(), t) {
                let v = match op {
                    BinOp::Add => Some(x + y),
                    BinOp::Sub => Some(x - y),
                    BinOp::Mul => Some(x * y),
                    BinOp::Div => Some(x / y),
                    _ => None,
                };
                if let Some(v) = v {
                    return fconst(t, v);
                }
            }
        }
        let name = match op {
            BinOp::Add => "sum",
            BinOp::Sub => "diff",
            BinOp::Mul => "prod",
            BinOp::Div => "quot",
            _ => "t",
        };
        Atom::Var(self.let1(name, Type::Prim(t), Exp::BinOp(op, t, a, b)))
    }

    pub fn add(&mut self, t: PrimType, a: Atom, b: Atom) -> Atom {
        self.bin(BinOp::Add, t, a, b)
    }
    pub fn sub(&mut self, t: PrimType, a: Atom, b: Atom) -> Atom {
        if is_const(&a, 0.0) {
            return self.neg(t, b);
        }
        self.bin(BinOp::Sub, t, a, b)
    }
    pub fn mul(&mut self, t: PrimType, a: Atom, b: Atom) -> Atom {
        if is_const(&a, -1.0) {
            return self.neg(t, b);
        }
        if is_const(&b, -1.0) {
            return self.neg(t, a);
        }
        self.bin(BinOp::Mul, t, a, b)
    }
    pub fn div(&mut self, t: PrimType, a: Atom, b: Atom) -> Atom {
        self.bin(BinOp::Div, t, a, b)
    }
    pub fn neg(&mut self, t: PrimType, a: Atom) -> Atom {
        if let Atom::Const(c) = a {
            if let Some(v) = c.as_f64() {
                return fconst(t, -v);
            }
        }
        Atom::Var(self.let1("neg", Type::Prim(t), Exp::UnOp(UnOp::Neg, t, a)))
    }
    pub fn math(&mut self, f: MathFn, t: PrimType, args: Vec<Atom>) -> Atom {
        Atom::Var(self.let1("t", Type::Prim(t), Exp::Math(f, t, args)))
    }
    pub fn cmp(&mut self, op: CmpOp, t: PrimType, a: Atom, b: Atom) -> Atom {
        Atom::Var(self.let1("c", Type::Prim(PrimType::Bool), Exp::Cmp(op, t, a, b)))
    }
    pub fn select(&mut self, t: PrimType, c: Atom, a: Atom, b: Atom) -> Atom {
        if a == b {
            return a;
        }
        Atom::Var(self.let1("sel", Type::Prim(t), Exp::Select(c, a, b)))
    }

    /// Zeros of type `ty` (a constant for scalars, a `replicate` for arrays).
    pub fn zeros(&mut self, ty: &Type) -> Atom {
        match ty {
            Type::Prim(t) => fconst(*t, 0.0),
            Type::Array { elem, shape } => Atom::Var(self.let1(
                "zeros",
                ty.clone(),
                Exp::Replicate { shape: shape.clone(), value: fconst(*elem, 0.0) },
            )),
        }
    }

    /// `a + b` elementwise for values of type `ty`.
    pub fn add_vals(&mut self, ty: &Type, a: Atom, b: Atom) -> R<Atom> {
        match ty {
            Type::Prim(t) => Ok(self.add(*t, a, b)),
            Type::Array { elem, shape } => {
                let (Atom::Var(av), Atom::Var(bv)) = (a, b) else {
                    return Err(internal(self.span, "array operand is a constant"));
                };
                let w = dim_atom(shape[0]);
                let row = row_of(ty);
                let pa = self.param("a", row.clone());
                let pb = self.param("b", row.clone());
                let e = *elem;
                let rt = row.clone();
                let lam = self.lambda(vec![pa, pb], vec![row], move |ad, ps| {
                    let r = ad.add_vals(&rt, Atom::Var(ps[0].var), Atom::Var(ps[1].var))?;
                    Ok(vec![r])
                })?;
                let _ = e;
                Ok(Atom::Var(self.let1("sum", ty.clone(), Exp::Map { w, lam, arrs: vec![av, bv] })))
            }
        }
    }

    /// `a * s` elementwise for an array (or scalar) `a` of type `ty` and a scalar `s`.
    pub fn scale_vals(&mut self, ty: &Type, a: Atom, s: Atom) -> R<Atom> {
        match ty {
            Type::Prim(t) => Ok(self.mul(*t, a, s)),
            Type::Array { shape, .. } => {
                let Atom::Var(av) = a else {
                    return Err(internal(self.span, "array operand is a constant"));
                };
                let w = dim_atom(shape[0]);
                let row = row_of(ty);
                let pa = self.param("a", row.clone());
                let rt = row.clone();
                let lam = self.lambda(vec![pa], vec![row], move |ad, ps| {
                    Ok(vec![ad.scale_vals(&rt, Atom::Var(ps[0].var), s)?])
                })?;
                Ok(Atom::Var(self.let1("scaled", ty.clone(), Exp::Map { w, lam, arrs: vec![av] })))
            }
        }
    }

    /// Make sure an atom is a variable.
    pub fn var_of(&mut self, a: Atom) -> R<Var> {
        match a {
            Atom::Var(v) => Ok(v),
            Atom::Const(c) => Ok(self.let1("c", Type::Prim(c.ty()), Exp::Atom(a))),
        }
    }

    /// A copy of `l` with every variable bound inside it renamed.
    pub fn rename_lambda(&mut self, l: &Lambda) -> Lambda {
        let mut l = l.clone();
        let mut binders = Vec::new();
        walk::lambda_vars(&mut l, &mut |v, b| {
            if b {
                binders.push(*v);
            }
        });
        let map = self.fresh_map(&binders);
        walk::lambda_vars(&mut l, &mut |v, _| {
            if let Some(w) = map.get(v) {
                *v = *w;
            }
        });
        self.retype(&map);
        l
    }

    /// A copy of `b` with every variable bound inside it renamed; `extra` maps free variables
    /// to replacements too.
    pub fn rename_body(&mut self, b: &Body, extra: &HashMap<Var, Var>) -> Body {
        let mut b = b.clone();
        let mut binders = Vec::new();
        walk::body_vars(&mut b, &mut |v, bd| {
            if bd {
                binders.push(*v);
            }
        });
        let mut map = self.fresh_map(&binders);
        self.retype(&map);
        map.extend(extra.iter().map(|(k, v)| (*k, *v)));
        walk::body_vars(&mut b, &mut |v, _| {
            if let Some(w) = map.get(v) {
                *v = *w;
            }
        });
        b
    }

    fn fresh_map(&mut self, binders: &[Var]) -> HashMap<Var, Var> {
        let mut map = HashMap::new();
        for v in binders {
            if map.contains_key(v) {
                continue;
            }
            let nv = Var(self.names.len() as u32);
            let name = self.name(*v);
            self.names.push(name);
            map.insert(*v, nv);
        }
        map
    }

    /// Give renamed variables the (renamed) types of the originals.
    fn retype(&mut self, map: &HashMap<Var, Var>) {
        for (old, new) in map {
            if let Some(t) = self.types.get(old).cloned() {
                let t = rename_ty(&t, map);
                self.types.insert(*new, t);
            }
        }
    }

    /// Expand every `jvp`/`vjp` in `body` (innermost first).
    pub fn expand_body(&mut self, body: Body, funs: &[FunDef]) -> R<Body> {
        self.open();
        for mut s in body.stms {
            let r = map_bodies(&mut s.exp, &mut |b| self.expand_body(b, funs));
            if let Err(e) = r {
                self.close(Vec::new());
                return Err(e);
            }
            if let Exp::Ad { mode, lam, args, seeds } = s.exp {
                self.span = s.span;
                let r = self.inline_body(lam.body, funs, 0).and_then(|b| {
                    let lam = Lambda { params: lam.params, body: b, ret: lam.ret };
                    match mode {
                        AdMode::Jvp => self.jvp(&lam, &args, &seeds),
                        AdMode::Vjp => self.vjp(&lam, &args, &seeds),
                    }
                });
                let res = match r {
                    Ok(r) => r,
                    Err(e) => {
                        self.close(Vec::new());
                        return Err(e);
                    }
                };
                if res.len() != s.pat.len() {
                    self.close(Vec::new());
                    return Err(internal(s.span, "result count"));
                }
                for (p, a) in s.pat.into_iter().zip(res) {
                    self.push(vec![p], Exp::Atom(a));
                }
            } else {
                self.push_stm(s);
            }
        }
        Ok(self.close(body.result))
    }

    /// `b` with every call replaced by a renamed copy of the callee's body.
    pub fn inline_body(&mut self, b: Body, funs: &[FunDef], depth: usize) -> R<Body> {
        if depth > 500 {
            return Err(unsupported(self.span, "calls nested too deep to differentiate"));
        }
        self.open();
        let r = self.inline_stms(b.stms, funs, depth);
        let body = self.close(b.result);
        r?;
        Ok(body)
    }

    fn inline_stms(&mut self, stms: Vec<Stm>, funs: &[FunDef], depth: usize) -> R<()> {
        for mut s in stms {
            map_bodies(&mut s.exp, &mut |b| self.inline_body(b, funs, depth + 1))?;
            let Exp::Apply { fun, args } = &s.exp else {
                self.push_stm(s);
                continue;
            };
            let f =
                funs.get(*fun).ok_or_else(|| internal(s.span, "call of an unknown function"))?;
            let copy = self.rename_lambda(&Lambda {
                params: f.params.clone(),
                body: f.body.clone(),
                ret: f.ret.clone(),
            });
            let span = self.span;
            self.span = s.span;
            for (p, a) in copy.params.iter().zip(args) {
                self.push(vec![p.clone()], Exp::Atom(*a));
            }
            self.span = span;
            let inner = self.inline_body(copy.body, funs, depth + 1)?;
            for st in inner.stms {
                self.push_stm(st);
            }
            for (p, a) in s.pat.into_iter().zip(inner.result) {
                self.push(vec![p], Exp::Atom(a));
            }
        }
        Ok(())
    }
}

pub fn rename_ty(t: &Type, map: &HashMap<Var, Var>) -> Type {
    match t {
        Type::Prim(_) => t.clone(),
        Type::Array { elem, shape } => Type::Array {
            elem: *elem,
            shape: shape
                .iter()
                .map(|d| match d {
                    Dim::Var(v) => Dim::Var(*map.get(v).unwrap_or(v)),
                    c => *c,
                })
                .collect(),
        },
    }
}

/// Replace each body directly inside `e` by `f`'s result.
pub fn map_bodies(e: &mut Exp, f: &mut impl FnMut(Body) -> R<Body>) -> R<()> {
    let mut go = |b: &mut Body| -> R<()> {
        let nb = f(std::mem::take(b))?;
        *b = nb;
        Ok(())
    };
    match e {
        Exp::If { then_body, else_body, .. } => {
            go(then_body)?;
            go(else_body)
        }
        Exp::Loop { body, .. } => go(body),
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. }
        | Exp::Ad { lam, .. } => go(&mut lam.body),
        _ => Ok(()),
    }
}
