//! The intrinsics (intrinsics.rs): their arities, the dispatch of a saturated call, and the
//! shape-manipulating built-ins (`zip`, `iota`, `replicate`, `transpose`, `flatten`,
//! `unflatten`, `concat`, `copy`). SOACs are in `soac`, numeric modules in `ops`.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::builder::{array_ty, atom_dim, dim_atom, i64c, outer_ty, shape};
use super::sval::SVal;
use super::{internal, LResult, Lowerer};
use crate::diag::Span;
use crate::intrinsics;
use crate::ir::{Atom, BinOp, CmpOp, Dim, Exp, Type};
use crate::prim::PrimType;

/// The number of arguments an intrinsic takes before it computes (0 for constants like
/// `f32.pi`), or `None` if `name` is not an intrinsic.
pub fn arity(name: &str) -> Option<usize> {
    static TABLE: OnceLock<HashMap<String, usize>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            intrinsics::all().into_iter().map(|i| (i.name, sig_arity(&i.sig))).collect()
        })
        .get(name)
        .copied()
}

/// Count the top-level arrows of a signature's type (after its `:` if it has type parameters).
fn sig_arity(sig: &str) -> usize {
    let mut depth = 0i32;
    let mut ty_start = 0;
    let bytes = sig.as_bytes();
    for (i, c) in sig.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ':' if depth == 0 => {
                ty_start = i + 1;
                break;
            }
            _ => {}
        }
    }
    let ty = &sig[ty_start..];
    let _ = bytes;
    let mut depth = 0i32;
    let mut n = 0;
    let tb = ty.as_bytes();
    for i in 0..tb.len() {
        match tb[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'-' if depth == 0 && tb.get(i + 1) == Some(&b'>') => n += 1,
            _ => {}
        }
    }
    n
}

impl<'a> Lowerer<'a> {
    /// Call an intrinsic with all its arguments.
    pub(crate) fn intrinsic(
        &mut self,
        name: &str,
        args: Vec<SVal<'a>>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let mut it = args.into_iter();
        let mut arg =
            || it.next().ok_or_else(|| internal(span, format!("too few arguments to `{name}`")));
        match name {
            "map" => {
                let f = arg()?;
                let xs = arg()?;
                self.map(&f, &xs, span)
            }
            "reduce" | "reduce_comm" => {
                let (op, ne, xs) = (arg()?, arg()?, arg()?);
                self.reduce(&op, &ne, &xs, name == "reduce_comm", false, span)
            }
            "scan" => {
                let (op, ne, xs) = (arg()?, arg()?, arg()?);
                self.reduce(&op, &ne, &xs, false, true, span)
            }
            "filter" => {
                let (p, xs) = (arg()?, arg()?);
                self.filter(&p, &xs, span)
            }
            "partition" => {
                let (p, xs) = (arg()?, arg()?);
                self.partition(&p, &xs, span)
            }
            "scatter" | "scatter_2d" | "scatter_3d" => {
                let (dest, is, vs) = (arg()?, arg()?, arg()?);
                self.scatter(dest, is, vs, span)
            }
            "reduce_by_index" => {
                let (dest, f, ne, is, vs) = (arg()?, arg()?, arg()?, arg()?, arg()?);
                self.hist(dest, &f, &ne, is, vs, span)
            }
            "hist" => {
                let (op, ne, k, is, vs) = (arg()?, arg()?, arg()?, arg()?, arg()?);
                let k = self.int_to_i64(&k, span)?;
                let kd = atom_dim(k).ok_or_else(|| internal(span, "histogram size"))?;
                let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
                    let ty = outer_ty(kd, t);
                    let v = self.b.let1(
                        "hist",
                        ty.clone(),
                        Exp::Replicate { shape: vec![kd], value: a },
                    );
                    Ok((Atom::Var(v), ty))
                };
                let dest = ne.map_leaves(&mut f)?;
                self.hist(dest, &op, &ne, is, vs, span)
            }
            "zip" | "zip3" | "zip4" | "zip5" => {
                let args: Vec<SVal<'a>> = it.collect();
                self.zip(args, span)
            }
            "unzip" | "unzip3" | "unzip4" | "unzip5" => arg(),
            "iota" => {
                let n = arg()?;
                let n = self.int_to_i64(&n, span)?;
                let d = atom_dim(n).ok_or_else(|| internal(span, "iota size"))?;
                let ty = Type::Array { elem: PrimType::I64, shape: vec![d] };
                let v = self.b.let1(
                    "iota",
                    ty.clone(),
                    Exp::Iota { n, start: i64c(0), step: i64c(1), it: crate::prim::IntType::I64 },
                );
                Ok(SVal::Leaf(Atom::Var(v), ty))
            }
            // `scratch` with the zero element `lookup` made for its type.
            "scratch" => {
                let (x, n) = (arg()?, arg()?);
                let n = self.int_to_i64(&n, span)?;
                let d = atom_dim(n).ok_or_else(|| internal(span, "scratch size"))?;
                self.replicate(d, &x)
            }
            "replicate" => {
                let (n, x) = (arg()?, arg()?);
                let n = self.int_to_i64(&n, span)?;
                let d = atom_dim(n).ok_or_else(|| internal(span, "replicate size"))?;
                self.replicate(d, &x)
            }
            "transpose" => {
                let a = arg()?;
                let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
                    let sh = shape(t);
                    if sh.len() < 2 {
                        return Err(internal(span, "transpose of a rank-1 array"));
                    }
                    let mut perm: Vec<usize> = (0..sh.len()).collect();
                    perm.swap(0, 1);
                    let new: Vec<Dim> = perm.iter().map(|&p| sh[p]).collect();
                    let ty = array_ty(t.elem(), new);
                    let arr = self.b.var_of(a, t, "t");
                    let v = self.b.let1("t", ty.clone(), Exp::Rearrange { arr, perm });
                    Ok((Atom::Var(v), ty))
                };
                a.map_leaves(&mut f)
            }
            "flatten" => {
                let a = arg()?;
                let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
                    let sh = shape(t).to_vec();
                    if sh.len() < 2 {
                        return Err(internal(span, "flatten of a rank-1 array"));
                    }
                    let n =
                        self.b.binop(BinOp::Mul, PrimType::I64, dim_atom(sh[0]), dim_atom(sh[1]));
                    let mut new = vec![atom_dim(n).ok_or_else(|| internal(span, "size"))?];
                    new.extend_from_slice(&sh[2..]);
                    let ty = array_ty(t.elem(), new.clone());
                    let arr = self.b.var_of(a, t, "t");
                    let v = self.b.let1("t", ty.clone(), Exp::Reshape { arr, shape: new });
                    Ok((Atom::Var(v), ty))
                };
                a.map_leaves(&mut f)
            }
            "unflatten" => {
                // The result's leading sizes (from its type, see `unflatten_sizes`), then the
                // array; their product must be the array's length.
                let mut args: Vec<SVal<'a>> = it.collect();
                let a = args.pop().ok_or_else(|| internal(span, "unflatten of nothing"))?;
                let mut dims = Vec::with_capacity(args.len());
                for d in &args {
                    dims.push(self.int_to_i64(d, span)?);
                }
                let mut total = *dims.first().ok_or_else(|| internal(span, "unflatten sizes"))?;
                for &d in &dims[1..] {
                    total = self.b.binop(BinOp::Mul, PrimType::I64, total, d);
                }
                let mut checked = false;
                let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
                    let sh = shape(t).to_vec();
                    let p = sh
                        .first()
                        .copied()
                        .ok_or_else(|| internal(span, "unflatten of a scalar"))?;
                    if !checked {
                        let ok = self.b.cmp(CmpOp::Eq, PrimType::I64, total, dim_atom(p));
                        let into = "[{}]".repeat(dims.len());
                        let mut vals = vec![dim_atom(p)];
                        vals.extend_from_slice(&dims);
                        self.b.assert(
                            ok,
                            format!("size mismatch: cannot unflatten an array of {{}} elements into {into}"),
                            vals,
                        );
                        checked = true;
                    }
                    let mut new = Vec::with_capacity(dims.len() + sh.len() - 1);
                    for &d in &dims {
                        new.push(atom_dim(d).ok_or_else(|| internal(span, "size"))?);
                    }
                    new.extend_from_slice(&sh[1..]);
                    let ty = array_ty(t.elem(), new.clone());
                    let arr = self.b.var_of(a, t, "t");
                    let v = self.b.let1("t", ty.clone(), Exp::Reshape { arr, shape: new });
                    Ok((Atom::Var(v), ty))
                };
                a.map_leaves(&mut f)
            }
            "concat" => {
                let (xs, ys) = (arg()?, arg()?);
                self.concat(&xs, &ys, span)
            }
            "jvp" | "vjp" | "jvp2" | "vjp2" => {
                let (f, x, seed) = (arg()?, arg()?, arg()?);
                self.autodiff(name, &f, &x, &seed, span)
            }
            "copy" => {
                let a = arg()?;
                let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
                    match (a, t) {
                        (Atom::Var(v), Type::Array { .. }) => {
                            let r = self.b.let1("t", t.clone(), Exp::Copy(v));
                            Ok((Atom::Var(r), t.clone()))
                        }
                        _ => Ok((a, t.clone())),
                    }
                };
                a.map_leaves(&mut f)
            }
            _ => {
                let args: Vec<SVal<'a>> = it.collect();
                self.numeric(name, args, span)
            }
        }
    }

    fn zip(&mut self, args: Vec<SVal<'a>>, span: Span) -> LResult<SVal<'a>> {
        let mut w: Option<Atom> = None;
        let mut out = Vec::new();
        for a in args {
            let leaves = a.leaves();
            let Some((_, t0)) = leaves.first() else {
                out.push(a);
                continue;
            };
            let d = shape(t0)
                .first()
                .map(|d| dim_atom(*d))
                .ok_or_else(|| internal(span, "zip of a scalar"))?;
            match w {
                None => {
                    w = Some(d);
                    out.push(a);
                }
                Some(w0) if w0 == d => out.push(a),
                Some(w0) => {
                    let ok = self.b.cmp(CmpOp::Eq, PrimType::I64, w0, d);
                    self.b.assert(
                        ok,
                        "size mismatch: `zip` of arrays of lengths {} and {}".into(),
                        vec![w0, d],
                    );
                    let wd = atom_dim(w0).ok_or_else(|| internal(span, "width"))?;
                    let mut f = |x: Atom, t: &Type| -> LResult<(Atom, Type)> {
                        let mut sh = shape(t).to_vec();
                        if let Some(d) = sh.first_mut() {
                            *d = wd;
                        }
                        let to = array_ty(t.elem(), sh.clone());
                        let arr = self.b.var_of(x, t, "t");
                        let v = self.b.let1("t", to.clone(), Exp::Reshape { arr, shape: sh });
                        Ok((Atom::Var(v), to))
                    };
                    out.push(a.map_leaves(&mut f)?);
                }
            }
        }
        Ok(SVal::Tuple(out))
    }

    pub(crate) fn replicate(&mut self, d: Dim, x: &SVal<'a>) -> LResult<SVal<'a>> {
        let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> {
            let ty = outer_ty(d, t);
            let v = self.b.let1("rep", ty.clone(), Exp::Replicate { shape: vec![d], value: a });
            Ok((Atom::Var(v), ty))
        };
        x.map_leaves(&mut f)
    }

    fn concat(&mut self, xs: &SVal<'a>, ys: &SVal<'a>, span: Span) -> LResult<SVal<'a>> {
        let xl = xs.leaves();
        let yl = ys.leaves();
        if xl.len() != yl.len() {
            return Err(internal(span, "concat shapes"));
        }
        let Some((_, x0)) = xl.first() else { return Ok(xs.clone()) };
        let Some((_, y0)) = yl.first() else { return Ok(xs.clone()) };
        let n = shape(x0)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(span, "concat of a scalar"))?;
        let m = shape(y0)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(span, "concat of a scalar"))?;
        let len = self.b.binop(BinOp::Add, PrimType::I64, n, m);
        let ld = atom_dim(len).ok_or_else(|| internal(span, "concat size"))?;
        let mut leaves = Vec::new();
        for ((x, xt), (y, yt)) in xl.into_iter().zip(yl) {
            // The rows must agree: reshape `y`'s rows to `x`'s after a check.
            let mut want = shape(&xt).to_vec();
            if let (Some(w), Some(d)) = (want.first_mut(), shape(&yt).first()) {
                *w = *d;
            }
            let want_t = array_ty(yt.elem(), want);
            let y = self.coerce_leaf(y, &yt, &want_t, "the concatenated array")?;
            let xv = self.b.var_of(x, &xt, "t");
            let yv = self.b.var_of(y, &want_t, "t");
            let mut sh = shape(&xt).to_vec();
            if let Some(d) = sh.first_mut() {
                *d = ld;
            }
            let ty = array_ty(xt.elem(), sh);
            let v = self.b.let1(
                "concat",
                ty.clone(),
                Exp::Concat { axis: 0, arrs: vec![xv, yv], len: ld },
            );
            leaves.push((Atom::Var(v), ty));
        }
        xs.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "concat result"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arities() {
        assert_eq!(arity("map"), Some(2));
        assert_eq!(arity("reduce_by_index"), Some(5));
        assert_eq!(arity("scatter_2d"), Some(3));
        assert_eq!(arity("f32.sqrt"), Some(1));
        assert_eq!(arity("f32.pi"), Some(0));
        assert_eq!(arity("i32.set_bit"), Some(3));
        assert_eq!(arity("f64.i64"), Some(1));
        assert_eq!(arity("u8.sum"), Some(1));
        assert_eq!(arity("nope"), None);
    }
}
