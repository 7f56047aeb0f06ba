//! Patterns and shapes: binding source patterns to static values, the leaf layout of a checker
//! type, and the run-time size checks that ascriptions and size parameters need.

use super::builder::{self, array_ty, atom_dim, dim_atom, i64t, shape};
use super::sval::{Env, SVal};
use super::{internal, unsupported, DimName, LResult, Lowerer};
use crate::ir::{Atom, BinOp, CmpOp, Dim, Exp, Type};
use crate::prim::{IntType, PrimType};
use crate::syntax::ast::{Pat, PatKind, SizeOp};
use crate::types::{Size, Type as SType};

/// The variable a parameter pattern binds, if it is one (possibly ascribed).
pub fn simple_var(p: &Pat) -> Option<&str> {
    match &p.kind {
        PatKind::Var(n) => Some(n),
        PatKind::Ascribed(p, _) => simple_var(p),
        _ => None,
    }
}

/// The type of a sum value's tag.
pub const TAG_TYPE: PrimType = PrimType::Int(IntType::I8);

/// Build a static value of (first-order) type `ty` from its leaves in canonical order.
pub fn build_sval<'a>(
    ty: &SType,
    leaves: &mut impl Iterator<Item = (Atom, Type)>,
) -> Option<SVal<'a>> {
    Some(match ty {
        SType::Prim(_) => {
            let (a, t) = leaves.next()?;
            SVal::Leaf(a, t)
        }
        SType::Array { elem, .. } => build_sval(elem, leaves)?,
        SType::Tuple(ts) => {
            SVal::Tuple(ts.iter().map(|t| build_sval(t, leaves)).collect::<Option<_>>()?)
        }
        SType::Record(fs) => SVal::Record(
            fs.iter()
                .map(|(n, t)| Some((n.clone(), build_sval(t, leaves)?)))
                .collect::<Option<_>>()?,
        ),
        SType::Sum(cs) => {
            let (a, t) = leaves.next()?;
            let payloads = cs
                .values()
                .map(|ts| ts.iter().map(|t| build_sval(t, leaves)).collect::<Option<Vec<_>>>())
                .collect::<Option<_>>()?;
            SVal::Sum {
                ctors: cs.keys().cloned().collect(),
                tag: Box::new(SVal::Leaf(a, t)),
                payloads,
            }
        }
        SType::Arrow { .. } | SType::Var(_) => return None,
    })
}

fn size_name(s: &Size) -> DimName {
    match s {
        Size::Var(n) => DimName::Named(n.clone()),
        Size::Const(c) => DimName::Const(*c),
        Size::Unknown(_) => DimName::Anon,
        s @ (Size::Poly(_) | Size::Opaque(..)) => DimName::Computed(s.clone()),
    }
}

/// The leaves of a value of type `inst` (in canonical order): element type and dims, the dims
/// named as in `raw` (the same type before instantiation of type variables) where it says.
/// Why an array of `()` cannot be lowered: it is represented by its (no) leaves.
const UNIT_ARRAY: &str = "an array of `()` (its sizes alone, with no data)";

pub fn leaf_shapes(
    raw: Option<&SType>,
    inst: &SType,
) -> Result<Vec<(PrimType, Vec<DimName>)>, String> {
    let mut out = Vec::new();
    walk(raw, inst, &[], &mut out)?;
    Ok(out)
}

fn walk(
    raw: Option<&SType>,
    inst: &SType,
    outer: &[DimName],
    out: &mut Vec<(PrimType, Vec<DimName>)>,
) -> Result<(), String> {
    match inst {
        SType::Prim(p) => out.push((*p, outer.to_vec())),
        SType::Array { shape, elem, .. } => {
            let (rshape, relem) = match raw {
                Some(SType::Array { shape: rs, elem: re, .. }) => (Some(rs), Some(&**re)),
                _ => (None, None),
            };
            let mut dims = outer.to_vec();
            for (i, s) in shape.iter().enumerate() {
                dims.push(match rshape.and_then(|rs| rs.get(i)) {
                    Some(r) => size_name(r),
                    None => match s {
                        Size::Const(c) => DimName::Const(*c),
                        _ => DimName::Anon,
                    },
                });
            }
            let relem = match rshape {
                Some(rs) if rs.len() == shape.len() => relem,
                _ => None,
            };
            walk(relem, elem, &dims, out)?;
        }
        SType::Tuple(ts) if ts.is_empty() && !outer.is_empty() => {
            // Its values would carry no data, so nothing would carry its sizes either.
            return Err(UNIT_ARRAY.into());
        }
        SType::Tuple(ts) => {
            let rs = match raw {
                Some(SType::Tuple(rs)) if rs.len() == ts.len() => Some(rs),
                _ => None,
            };
            for (i, t) in ts.iter().enumerate() {
                walk(rs.and_then(|r| r.get(i)), t, outer, out)?;
            }
        }
        SType::Record(fs) => {
            for (n, t) in fs {
                let r = match raw {
                    Some(SType::Record(rs)) => rs.get(n),
                    _ => None,
                };
                walk(r, t, outer, out)?;
            }
        }
        SType::Sum(cs) => {
            out.push((TAG_TYPE, outer.to_vec()));
            for (n, ts) in cs {
                let rs = match raw {
                    Some(SType::Sum(rc)) => rc.get(n),
                    _ => None,
                };
                for (i, t) in ts.iter().enumerate() {
                    walk(rs.and_then(|r| r.get(i)), t, outer, out)?;
                }
            }
        }
        SType::Arrow { .. } => return Err("a function where a first-order value is needed".into()),
        SType::Var(_) => return Err("a value of ambiguous type".into()),
    }
    Ok(())
}

impl<'a> Lowerer<'a> {
    /// Bind a (irrefutable) pattern to a value.
    pub(crate) fn bind_pat(
        &mut self,
        p: &'a Pat,
        val: SVal<'a>,
        env: &Env<'a>,
    ) -> LResult<Env<'a>> {
        match &p.kind {
            PatKind::Var(n) => {
                self.name_leaves(n, &val);
                Ok(env.bind(n, val))
            }
            PatKind::Wildcard => Ok(env.clone()),
            PatKind::Tuple(ps) => match val {
                SVal::Tuple(vs) if vs.len() == ps.len() => {
                    let mut env = env.clone();
                    for (p, v) in ps.iter().zip(vs) {
                        env = self.bind_pat(p, v, &env)?;
                    }
                    Ok(env)
                }
                v if ps.len() == 1 => self.bind_pat(&ps[0], v, env),
                _ => Err(internal(p.span, "tuple pattern against a non-tuple")),
            },
            PatKind::Record(fs) => match val {
                SVal::Record(mut vs) => {
                    let mut env = env.clone();
                    for (n, p) in fs {
                        let v = vs.remove(n).ok_or_else(|| {
                            internal(p.span, format!("record without field `{n}`"))
                        })?;
                        env = self.bind_pat(p, v, &env)?;
                    }
                    Ok(env)
                }
                _ => Err(internal(p.span, "record pattern against a non-record")),
            },
            PatKind::Ascribed(inner, _) => {
                let t = self.pat_type(p)?;
                let (val, env) = self.check_sizes(t, val, env, "value")?;
                self.bind_pat(inner, val, &env)
            }
            // A type of one constructor: the pattern cannot fail (`let #point x y = p`).
            PatKind::Constr(name, ps) => match val {
                SVal::Sum { ctors, payloads, .. } if ctors.len() == 1 && &ctors[0] == name => {
                    let payload = payloads.into_iter().next().unwrap_or_default();
                    let mut env = env.clone();
                    for (p, v) in ps.iter().zip(payload) {
                        env = self.bind_pat(p, v, &env)?;
                    }
                    Ok(env)
                }
                _ => Err(unsupported(p.span, "a refutable pattern outside `match`")),
            },
            PatKind::Literal(_) => Err(unsupported(p.span, "a refutable pattern outside `match`")),
        }
    }

    /// Give unnamed IR variables the source name they are bound to, for readable printouts.
    fn name_leaves(&mut self, name: &str, val: &SVal<'a>) {
        for (a, _) in val.leaves() {
            if let Atom::Var(v) = a {
                self.b.rename_generic(v, name);
            }
        }
    }

    /// Check a value against a checker type's sizes: a size already in scope must equal the
    /// value's dimension (a run-time check, then a reshape so later code sees that size); a size
    /// not yet in scope is bound to it.
    pub(crate) fn check_sizes(
        &mut self,
        raw: &SType,
        val: SVal<'a>,
        env: &Env<'a>,
        what: &str,
    ) -> LResult<(SVal<'a>, Env<'a>)> {
        let inst = env.resolve(raw);
        let shapes = match leaf_shapes(Some(raw), &inst) {
            Ok(shapes) => shapes,
            Err(m) if m == UNIT_ARRAY => return Err(unsupported(self.b.span, m)),
            Err(_) => return Ok((val, env.clone())),
        };
        let leaves = val.leaves();
        if leaves.len() != shapes.len() {
            return Ok((val, env.clone()));
        }
        let mut env = env.clone();
        // Names not yet in scope are bound first (to the first dimension they name), so a size
        // computed from them (`[n*m]`) can be checked wherever it is in the value.
        let mut fresh: Vec<String> = Vec::new();
        for ((_, t), (_, names)) in leaves.iter().zip(&shapes) {
            for (d, name) in shape(t).iter().zip(names) {
                if let DimName::Named(n) = name {
                    if env.lookup(n).is_none() {
                        env = env.bind(n, SVal::Leaf(dim_atom(*d), i64t()));
                        fresh.push(n.clone());
                    }
                }
            }
        }
        let mut new_leaves = Vec::new();
        for ((a, t), (_, names)) in leaves.into_iter().zip(shapes) {
            let actual = shape(&t).to_vec();
            let mut want = actual.clone();
            let mut named_vals: Vec<(String, Atom)> = Vec::new();
            for (i, name) in names.iter().enumerate().take(actual.len()) {
                match name {
                    DimName::Named(n) => {
                        if let Some(SVal::Leaf(x, Type::Prim(PrimType::Int(IntType::I64)))) =
                            env.lookup(n)
                        {
                            if let Some(e) = atom_dim(*x) {
                                // Where this value names a size first, it is this dimension.
                                let binding = fresh.contains(n) && e == actual[i];
                                if super::is_source_name(n) && !binding {
                                    named_vals.push((n.clone(), *x));
                                }
                                want[i] = e;
                            }
                        }
                    }
                    DimName::Computed(size) => {
                        if let Some(x) = self.eval_size(size, &env) {
                            if let Some(e) = atom_dim(x) {
                                for n in size.names() {
                                    if let (true, Some(SVal::Leaf(v, _))) =
                                        (super::is_source_name(n), env.lookup(n))
                                    {
                                        named_vals.push((n.clone(), *v));
                                    }
                                }
                                want[i] = e;
                            }
                        }
                    }
                    DimName::Const(c) => want[i] = Dim::Const(*c),
                    DimName::Anon => {}
                }
            }
            if want == actual {
                new_leaves.push((a, t));
                continue;
            }
            let holes: String = actual.iter().map(|_| "[{}]").collect();
            let mut vals: Vec<Atom> = actual.iter().map(|d| dim_atom(*d)).collect();
            let invented =
                names.iter().any(|n| matches!(n, DimName::Named(n) if !super::is_source_name(n)));
            let msg = if invented {
                // The type names sizes the user never wrote: show the expected shape instead.
                vals.extend(want.iter().map(|d| dim_atom(*d)));
                format!("size mismatch: {what} of shape {holes} does not match the expected shape {holes}")
            } else {
                let mut msg =
                    format!("size mismatch: {what} of shape {holes} does not match `{inst}`");
                let mut seen = Vec::new();
                named_vals.retain(|(n, _)| {
                    let new = !seen.contains(n);
                    seen.push(n.clone());
                    new
                });
                for (k, (n, x)) in named_vals.iter().enumerate() {
                    msg.push_str(if k == 0 { " with " } else { ", " });
                    msg.push_str(&format!("{n} = {{}}"));
                    vals.push(*x);
                }
                msg
            };
            let want_ty = array_ty(t.elem(), want);
            let a2 = self.coerce_leaf_msg(a, &t, &want_ty, msg, vals)?;
            new_leaves.push((a2, want_ty));
        }
        let val = val
            .rebuild(&mut new_leaves.into_iter())
            .ok_or_else(|| internal(self.b.span, "value shape"))?;
        Ok((val, env))
    }

    /// The value of a size computed from others, as `i64` arithmetic on the sizes in scope;
    /// `None` if one of them is not in scope.
    pub(crate) fn eval_size(&mut self, s: &Size, env: &Env<'a>) -> Option<Atom> {
        let i64 = PrimType::Int(IntType::I64);
        match s {
            Size::Const(c) => Some(builder::i64c(*c)),
            Size::Var(n) => match env.lookup(n) {
                Some(SVal::Leaf(x, Type::Prim(PrimType::Int(IntType::I64)))) => Some(*x),
                _ => None,
            },
            Size::Unknown(_) => None,
            Size::Poly(p) => {
                let mut sum = builder::i64c(0);
                for (m, c) in p.terms() {
                    let mut term = builder::i64c(*c);
                    for factor in m {
                        let x = self.eval_size(factor, env)?;
                        term = self.b.binop(BinOp::Mul, i64, term, x);
                    }
                    sum = self.b.binop(BinOp::Add, i64, sum, term);
                }
                Some(sum)
            }
            Size::Opaque(op, a, b) => {
                let (x, y) = (self.eval_size(a, env)?, self.eval_size(b, env)?);
                let op = match op {
                    SizeOp::Add => BinOp::Add,
                    SizeOp::Sub => BinOp::Sub,
                    SizeOp::Mul => BinOp::Mul,
                    SizeOp::Div => BinOp::Div,
                    SizeOp::Mod => BinOp::Mod,
                };
                Some(self.b.binop(op, i64, x, y))
            }
        }
    }

    /// `a: from` as a value of type `to` (same rank and element type): checks that the dims that
    /// differ are equal at run time, then reshapes.
    pub(crate) fn coerce_leaf(
        &mut self,
        a: Atom,
        from: &Type,
        to: &Type,
        what: &str,
    ) -> LResult<Atom> {
        if shape(from) == shape(to) {
            return Ok(a);
        }
        let holes = |n: usize| -> String { (0..n).map(|_| "[{}]").collect() };
        let msg = format!(
            "size mismatch: {what} of shape {} does not match the expected shape {}",
            holes(from.rank()),
            holes(to.rank())
        );
        let mut vals: Vec<Atom> = shape(from).iter().map(|d| dim_atom(*d)).collect();
        vals.extend(shape(to).iter().map(|d| dim_atom(*d)));
        self.coerce_leaf_msg(a, from, to, msg, vals)
    }

    pub(crate) fn coerce_leaf_msg(
        &mut self,
        a: Atom,
        from: &Type,
        to: &Type,
        msg: String,
        vals: Vec<Atom>,
    ) -> LResult<Atom> {
        if shape(from) == shape(to) {
            return Ok(a);
        }
        if from.rank() != to.rank() || from.elem() != to.elem() {
            return Err(internal(self.b.span, "coercion between different types"));
        }
        let mut ok = builder::boolc(true);
        for (x, y) in shape(from).iter().zip(shape(to)) {
            if x != y {
                let c = self.b.cmp(CmpOp::Eq, PrimType::I64, dim_atom(*x), dim_atom(*y));
                ok = self.b.and(ok, c);
            }
        }
        self.b.assert(ok, msg, vals);
        let arr = self.b.var_of(a, from, "t");
        let v = self.b.let1("t", to.clone(), Exp::Reshape { arr, shape: shape(to).to_vec() });
        Ok(Atom::Var(v))
    }
}
