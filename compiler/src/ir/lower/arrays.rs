//! Arrays: literals, ranges, indexing and slicing (with Futhark's bounds rules), updates.

use super::builder::{self, array_ty, atom_dim, boolc, dim_atom, i64c, shape};
use super::pat::leaf_shapes;
use super::sval::{Env, SVal};
use super::{internal, unsupported, DimName, LResult, Lowerer};
use crate::ir::{Atom, BinOp, CmpOp, Dim, DimIndex, Exp, Type, UnOp};
use crate::prim::{IntType, PrimType, PrimValue};
use crate::syntax::ast::{self, Expr, RangeEnd};
use crate::types::Type as SType;

impl<'a> Lowerer<'a> {
    // --- arrays ----------------------------------------------------------------------------

    pub(crate) fn array_lit(
        &mut self,
        es: &'a [Expr],
        e: &'a Expr,
        env: &Env<'a>,
    ) -> LResult<SVal<'a>> {
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
    pub(crate) fn dim_of_name(&self, d: &DimName, env: &Env<'a>) -> Dim {
        match d {
            DimName::Const(c) => Dim::Const(*c),
            DimName::Named(n) => match env.lookup(n) {
                Some(SVal::Leaf(a, Type::Prim(PrimType::Int(IntType::I64)))) => {
                    atom_dim(*a).unwrap_or(Dim::Const(0))
                }
                _ => Dim::Const(0),
            },
            DimName::Computed(_) | DimName::Anon => Dim::Const(0),
        }
    }

    /// `start..end`, `start..second...end`, `start..<end`, `start..>end`, with Futhark's
    /// validity rules: the step must be nonzero and point from `start` towards `end`, and `end`
    /// must not lie behind `start` (`3..>3` and `3..<3` are empty, `3..<2` is invalid).
    pub(crate) fn range(
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
        // As in Futhark, the step is read as a signed number of the same width even for unsigned
        // types (`10u8..>7` steps by 255u8, that is -1), and distances are computed in i64 so
        // that they cannot wrap (`-100i8..<100`).
        let st = PrimType::Int(signed_of(it));
        let step_s = self.b.convert(t, st, step);
        let sign = self.b.unop(UnOp::Sgn, st, step_s);
        let one_s = Atom::Const(PrimValue::int(signed_of(it), 1));
        let negone_s = Atom::Const(PrimValue::int(signed_of(it), -1));
        let s64 = self.b.convert(t, PrimType::I64, s);
        let e64 = self.b.convert(t, PrimType::I64, e);
        let (distance, wrong_dir, bounds_invalid) = match kind {
            RangeEnd::DownToExclusive => {
                let w = self.b.cmp(CmpOp::Eq, st, sign, one_s);
                let d = self.b.binop(BinOp::Sub, PrimType::I64, s64, e64);
                (d, w, self.b.cmp(CmpOp::Lt, t, s, e))
            }
            RangeEnd::UpToExclusive => {
                let w = self.b.cmp(CmpOp::Eq, st, sign, negone_s);
                let d = self.b.binop(BinOp::Sub, PrimType::I64, e64, s64);
                (d, w, self.b.cmp(CmpOp::Lt, t, e, s))
            }
            RangeEnd::Inclusive => {
                let down = self.b.cmp(CmpOp::Eq, st, sign, negone_s);
                let inv_down = self.b.cmp(CmpOp::Lt, t, s, e);
                let inv_up = self.b.cmp(CmpOp::Lt, t, e, s);
                let invalid = self.b.select(down, inv_down, inv_up, PrimType::Bool);
                let dd = self.b.binop(BinOp::Sub, PrimType::I64, s64, e64);
                let du = self.b.binop(BinOp::Sub, PrimType::I64, e64, s64);
                let d = self.b.select(down, dd, du, PrimType::I64);
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
        let step64 = self.b.convert(st, PrimType::I64, step_s);
        let sign64 = self.b.convert(st, PrimType::I64, sign);
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
    pub(crate) fn dim_indices(
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

    pub(crate) fn index(
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

    pub(crate) fn update(
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
}

/// The signed integer type of the same width.
fn signed_of(it: IntType) -> IntType {
    match it {
        IntType::U8 => IntType::I8,
        IntType::U16 => IntType::I16,
        IntType::U32 => IntType::I32,
        IntType::U64 => IntType::I64,
        _ => it,
    }
}
