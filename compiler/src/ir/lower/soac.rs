//! The SOAC intrinsics: their function arguments become IR lambdas (with result sizes hoisted
//! out, or checked per element for irregular maps); `filter` and `partition` via flags, a scan
//! and a scatter; `scatter`, `reduce_by_index` and `hist`.

use super::builder::{array_ty, atom_dim, boolc, dim_atom, i64c, i64t, outer_ty, row_ty, shape};
use super::rewrite;
use super::sval::SVal;
use super::{internal, unsupported, LResult, Lowerer};
use crate::diag::Span;
use crate::ir::{Atom, BinOp, Body, CmpOp, Dim, DimIndex, Exp, Lambda, Param, Type, Var};
use crate::prim::{PrimType, PrimValue};

impl<'a> Lowerer<'a> {
    /// The outer size of an array value and its leaves' variables.
    pub(crate) fn array_leaves(
        &mut self,
        xs: &SVal<'a>,
        what: &str,
        span: Span,
    ) -> LResult<(Atom, Vec<Var>, Vec<Type>)> {
        let leaves = xs.leaves();
        let Some((_, t0)) = leaves.first() else {
            return Err(unsupported(span, format!("`{what}` over an array of empty tuples")));
        };
        let w = shape(t0)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(span, "array expected"))?;
        let mut vars = Vec::new();
        let mut tys = Vec::new();
        for (a, t) in leaves {
            vars.push(self.b.var_of(a, &t, "t"));
            tys.push(t);
        }
        Ok((w, vars, tys))
    }

    /// An IR lambda: fresh parameters shaped like `rows`, a body computed by `body` from them.
    /// With `expected`, results are coerced to those types; otherwise the statements that compute
    /// the results' sizes are hoisted out of the lambda (an irregular result is unsupported).
    pub(crate) fn make_lambda(
        &mut self,
        rows: &[SVal<'a>],
        expected: Option<(&[Type], &str)>,
        span: Span,
        body: impl FnOnce(&mut Self, Vec<SVal<'a>>) -> LResult<SVal<'a>>,
    ) -> LResult<(Lambda, SVal<'a>)> {
        self.try_lambda(rows, expected, span, body)?.ok_or_else(|| {
            unsupported(
                span,
                "a function whose result size depends on its argument (an irregular array)",
            )
        })
    }

    /// As `make_lambda`, but `None` when a result size depends on the parameters.
    pub(crate) fn try_lambda(
        &mut self,
        rows: &[SVal<'a>],
        expected: Option<(&[Type], &str)>,
        span: Span,
        body: impl FnOnce(&mut Self, Vec<SVal<'a>>) -> LResult<SVal<'a>>,
    ) -> LResult<Option<(Lambda, SVal<'a>)>> {
        let mut params: Vec<Param> = Vec::new();
        let mut args = Vec::new();
        for row in rows {
            let mut ls = Vec::new();
            for (_, t) in row.leaves() {
                let p = self.b.param("p", t.clone());
                ls.push((Atom::Var(p.var), t));
                params.push(p);
            }
            args.push(
                row.rebuild(&mut ls.into_iter())
                    .ok_or_else(|| internal(span, "lambda parameters"))?,
            );
        }
        let mark = self.b.depth();
        self.b.open();
        let r = (|| -> LResult<(SVal<'a>, Vec<Atom>, Vec<Type>)> {
            let r = body(self, args)?;
            if r.contains_fun() {
                return Err(unsupported(span, "an array of functions"));
            }
            let mut atoms = Vec::new();
            let mut tys = Vec::new();
            for (k, (a, t)) in r.leaves().into_iter().enumerate() {
                match expected.and_then(|(e, what)| Some((e.get(k)?, what))) {
                    Some((want, what)) => {
                        let a = self.coerce_leaf(a, &t, want, what)?;
                        atoms.push(a);
                        tys.push(want.clone());
                    }
                    None => {
                        atoms.push(a);
                        tys.push(t);
                    }
                }
            }
            Ok((r, atoms, tys))
        })();
        let (r, atoms, ret) = match r {
            Ok(x) => x,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let mut lam_body: Body = self.b.close(atoms);
        // Result sizes must be known outside the lambda.
        let mut inner: std::collections::HashSet<Var> = params.iter().map(|p| p.var).collect();
        for s in &lam_body.stms {
            inner.extend(s.pat.iter().map(|p| p.var));
        }
        let mut needed: Vec<Var> = Vec::new();
        for t in &ret {
            for d in shape(t) {
                if let Dim::Var(v) = d {
                    if inner.contains(v) && !needed.contains(v) {
                        needed.push(*v);
                    }
                }
            }
        }
        if !needed.is_empty() {
            match rewrite::hoist(&mut lam_body, &params, &needed) {
                Ok(stms) => self.b.current_mut().extend(stms),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some((Lambda { params, body: lam_body, ret }, r)))
    }

    pub(crate) fn map(&mut self, f: &SVal<'a>, xs: &SVal<'a>, span: Span) -> LResult<SVal<'a>> {
        let (w, arrs, tys) = self.array_leaves(xs, "map", span)?;
        let arrs = self.align_outer(arrs, &tys, w, "map")?;
        let row = self.row_template(xs)?;
        let (lam, r) =
            match self.try_lambda(std::slice::from_ref(&row), None, span, |l, args| {
                l.apply_args(f, args, span)
            })? {
                Some(x) => x,
                None => {
                    // The result's size is computed per element: take it from the first element, and
                    // check every other element against it (an irregular array is a size error).
                    let want = self.first_result_shape(f, xs, w, span)?;
                    self.make_lambda(
                        &[row],
                        Some((&want, "a row of the `map` result")),
                        span,
                        |l, args| l.apply_args(f, args, span),
                    )?
                }
            };
        let wd = atom_dim(w).ok_or_else(|| internal(span, "map width"))?;
        let mut pat = Vec::new();
        let mut leaves = Vec::new();
        for t in &lam.ret {
            let ty = outer_ty(wd, t);
            let p = self.b.param("res", ty.clone());
            leaves.push((Atom::Var(p.var), ty));
            pat.push(p);
        }
        self.b.push(pat, Exp::Map { w, lam, arrs });
        r.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "map result"))
    }

    /// The types of `f`'s result on the first element of `xs` (all sizes 0 when `xs` is empty),
    /// with the sizes computed from that element bound outside.
    pub(crate) fn first_result_shape(
        &mut self,
        f: &SVal<'a>,
        xs: &SVal<'a>,
        w: Atom,
        span: Span,
    ) -> LResult<Vec<Type>> {
        let empty = self.b.cmp(CmpOp::Eq, PrimType::I64, w, i64c(0));
        let mark = self.b.depth();
        self.b.open();
        let r = (|| -> LResult<SVal<'a>> {
            let x0 = self.index_leaves(xs, &[DimIndex::Fix(i64c(0))])?;
            self.apply_args(f, vec![x0], span)
        })();
        let r0 = match r {
            Ok(r) => r,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let mut else_body = self.b.close(Vec::new());
        let inner: std::collections::HashSet<Var> =
            else_body.stms.iter().flat_map(|s| s.pat.iter().map(|p| p.var)).collect();
        let mut pat = Vec::new();
        let mut then_res = Vec::new();
        let mut out = Vec::new();
        for (_, t) in r0.leaves() {
            let mut dims = Vec::new();
            for d in shape(&t) {
                match d {
                    Dim::Var(v) if inner.contains(v) => {
                        let p = self.b.param("d", i64t());
                        dims.push(Dim::Var(p.var));
                        else_body.result.push(Atom::Var(*v));
                        then_res.push(i64c(0));
                        pat.push(p);
                    }
                    _ => dims.push(*d),
                }
            }
            out.push(array_ty(t.elem(), dims));
        }
        if empty == boolc(false) {
            // A non-empty array: the first element's sizes directly.
            let map: std::collections::HashMap<Var, Atom> =
                pat.iter().zip(&else_body.result).map(|(p, a)| (p.var, *a)).collect();
            self.b.current_mut().extend(else_body.stms);
            let s = rewrite::Subst(&map);
            for t in &mut out {
                s.ty(t);
            }
            return Ok(out);
        }
        let then_body = Body { stms: Vec::new(), result: then_res };
        let ret: Vec<Type> = pat.iter().map(|p| p.ty.clone()).collect();
        self.b.push(pat, Exp::If { cond: empty, then_body, else_body, ret });
        Ok(out)
    }

    /// The element of an array value: its leaves' row types (atoms are placeholders).
    pub(crate) fn row_template(&mut self, xs: &SVal<'a>) -> LResult<SVal<'a>> {
        let mut f = |a: Atom, t: &Type| -> LResult<(Atom, Type)> { Ok((a, row_ty(t))) };
        xs.map_leaves(&mut f)
    }

    /// Reshape leaves whose outer size is not syntactically `w` (after a check) so one SOAC
    /// can take them together.
    pub(crate) fn align_outer(
        &mut self,
        arrs: Vec<Var>,
        tys: &[Type],
        w: Atom,
        what: &str,
    ) -> LResult<Vec<Var>> {
        let wd = atom_dim(w).ok_or_else(|| internal(self.b.span, "width"))?;
        let mut out = Vec::new();
        for (v, t) in arrs.into_iter().zip(tys) {
            let mut want = shape(t).to_vec();
            if want.first() == Some(&wd) {
                out.push(v);
                continue;
            }
            if let Some(d) = want.first_mut() {
                *d = wd;
            }
            let to = array_ty(t.elem(), want);
            let a = self.coerce_leaf(Atom::Var(v), t, &to, &format!("`{what}` input"))?;
            out.push(self.b.var_of(a, &to, "t"));
        }
        Ok(out)
    }

    pub(crate) fn reduce(
        &mut self,
        op: &SVal<'a>,
        ne: &SVal<'a>,
        xs: &SVal<'a>,
        commutative: bool,
        scan: bool,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let what = if scan { "scan" } else { "reduce" };
        let (w, arrs, tys) = self.array_leaves(xs, what, span)?;
        let arrs = self.align_outer(arrs, &tys, w, what)?;
        let row = self.row_template(xs)?;
        let row_tys: Vec<Type> = row.leaves().into_iter().map(|(_, t)| t).collect();
        let mut neutral = Vec::new();
        for ((a, t), want) in ne.leaves().into_iter().zip(&row_tys) {
            neutral.push(self.coerce_leaf(a, &t, want, "the neutral element")?);
        }
        let (lam, _) = self.make_lambda(
            &[row.clone(), row.clone()],
            Some((&row_tys, "the operator's result")),
            span,
            |l, args| l.apply_args(op, args, span),
        )?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let mut pat = Vec::new();
        let mut leaves = Vec::new();
        for t in &row_tys {
            let ty = if scan { outer_ty(wd, t) } else { t.clone() };
            let p = self.b.param("res", ty.clone());
            leaves.push((Atom::Var(p.var), ty));
            pat.push(p);
        }
        let exp = if scan {
            Exp::Scan { w, lam, neutral, arrs }
        } else {
            Exp::Reduce { w, lam, neutral, arrs, commutative }
        };
        self.b.push(pat, exp);
        row.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "reduce result"))
    }

    /// `\a b -> a + b` on `i64`.
    pub(crate) fn add_i64_lambda(&mut self) -> Lambda {
        let p = self.b.param("a", i64t());
        let q = self.b.param("b", i64t());
        let (pv, qv) = (p.var, q.var);
        self.b.open();
        let r = self.b.let1(
            "t",
            i64t(),
            Exp::BinOp(BinOp::Add, PrimType::I64, Atom::Var(pv), Atom::Var(qv)),
        );
        let body = self.b.close(vec![Atom::Var(r)]);
        Lambda { params: vec![p, q], body, ret: vec![i64t()] }
    }

    /// Flags (1 where `p` holds), their inclusive prefix sums, and the total count.
    pub(crate) fn flags_offsets(
        &mut self,
        p: &SVal<'a>,
        xs: &SVal<'a>,
        what: &str,
        span: Span,
    ) -> LResult<(Atom, Vec<Var>, Var, Var, Atom)> {
        let (w, arrs, tys) = self.array_leaves(xs, what, span)?;
        let arrs = self.align_outer(arrs, &tys, w, what)?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let row = self.row_template(xs)?;
        let (lam, _) = self.make_lambda(&[row], None, span, |l, args| {
            let b = l.apply_args(p, args, span)?;
            let (ba, _) = l.scalar(&b, span)?;
            let f = l.b.convert(PrimType::Bool, PrimType::I64, ba);
            Ok(SVal::Leaf(f, i64t()))
        })?;
        let arr_t = Type::Array { elem: PrimType::I64, shape: vec![wd] };
        let flags = self.b.let1("flags", arr_t.clone(), Exp::Map { w, lam, arrs: arrs.clone() });
        let add = self.add_i64_lambda();
        let offsets = self.b.let1(
            "offsets",
            arr_t,
            Exp::Scan { w, lam: add, neutral: vec![i64c(0)], arrs: vec![flags] },
        );
        // The count is the last offset, or 0 for an empty array.
        let empty = self.b.cmp(CmpOp::Eq, PrimType::I64, w, i64c(0));
        let count = if empty == boolc(false) {
            let last = self.b.binop(BinOp::Sub, PrimType::I64, w, i64c(1));
            Atom::Var(self.b.let1(
                "count",
                i64t(),
                Exp::Index { arr: offsets, idx: vec![DimIndex::Fix(last)] },
            ))
        } else if empty == boolc(true) {
            i64c(0)
        } else {
            self.b.open();
            let last = self.b.binop(BinOp::Sub, PrimType::I64, w, i64c(1));
            let c = self.b.let1(
                "count",
                i64t(),
                Exp::Index { arr: offsets, idx: vec![DimIndex::Fix(last)] },
            );
            let else_body = self.b.close(vec![Atom::Var(c)]);
            let then_body = Body { stms: Vec::new(), result: vec![i64c(0)] };
            Atom::Var(self.b.let1(
                "count",
                i64t(),
                Exp::If { cond: empty, then_body, else_body, ret: vec![i64t()] },
            ))
        };
        Ok((w, arrs, flags, offsets, count))
    }

    /// A fresh array of `shape` (plus the row shape of `t`) filled with zeros.
    pub(crate) fn blank(&mut self, n: Dim, t: &Type) -> Var {
        let row = row_ty(t);
        let mut sh = vec![n];
        sh.extend_from_slice(shape(&row));
        let ty = array_ty(t.elem(), sh.clone());
        self.b.let1(
            "blank",
            ty,
            Exp::Replicate { shape: sh, value: Atom::Const(PrimValue::zero(t.elem())) },
        )
    }

    pub(crate) fn filter(&mut self, p: &SVal<'a>, xs: &SVal<'a>, span: Span) -> LResult<SVal<'a>> {
        let (w, arrs, flags, offsets, count) = self.flags_offsets(p, xs, "filter", span)?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let cd = atom_dim(count).ok_or_else(|| internal(span, "count"))?;
        // Where each kept element goes (-1, out of bounds, for the others).
        let f = self.b.param("flag", i64t());
        let o = self.b.param("offset", i64t());
        let lam = self.b.lambda::<super::Diagnostic>(vec![f, o], |b, ps| {
            let keep = b.cmp(CmpOp::Eq, PrimType::I64, Atom::Var(ps[0].var), i64c(1));
            let pos = b.binop(BinOp::Sub, PrimType::I64, Atom::Var(ps[1].var), i64c(1));
            let r = b.select(keep, pos, i64c(-1), PrimType::I64);
            Ok((vec![r], vec![i64t()]))
        })?;
        let idx_t = Type::Array { elem: PrimType::I64, shape: vec![wd] };
        let idx = self.b.let1("dest_idx", idx_t, Exp::Map { w, lam, arrs: vec![flags, offsets] });
        let mut leaves = Vec::new();
        for (v, (_, t)) in arrs.iter().zip(xs.leaves()) {
            let dest = self.blank(cd, &t);
            let mut sh = vec![cd];
            sh.extend_from_slice(&shape(&t)[1..]);
            let ty = array_ty(t.elem(), sh);
            let r = self.b.let1(
                "filtered",
                ty.clone(),
                Exp::Scatter { dest, idx: vec![idx], vals: *v, w },
            );
            leaves.push((Atom::Var(r), ty));
        }
        xs.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "filter result"))
    }

    pub(crate) fn partition(
        &mut self,
        p: &SVal<'a>,
        xs: &SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let (w, arrs, flags, offsets, count) = self.flags_offsets(p, xs, "partition", span)?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let idx_t = Type::Array { elem: PrimType::I64, shape: vec![wd] };
        let iota = self.b.let1(
            "iota",
            idx_t.clone(),
            Exp::Iota { n: w, start: i64c(0), step: i64c(1), it: crate::prim::IntType::I64 },
        );
        // Trues go to `offset - 1`, falses after all trues, in order.
        let f = self.b.param("flag", i64t());
        let o = self.b.param("offset", i64t());
        let i = self.b.param("i", i64t());
        let lam = self.b.lambda::<super::Diagnostic>(vec![f, o, i], |b, ps| {
            let (f, o, i) = (Atom::Var(ps[0].var), Atom::Var(ps[1].var), Atom::Var(ps[2].var));
            let keep = b.cmp(CmpOp::Eq, PrimType::I64, f, i64c(1));
            let pos = b.binop(BinOp::Sub, PrimType::I64, o, i64c(1));
            let falses_before = b.binop(BinOp::Sub, PrimType::I64, i, o);
            let fpos = b.binop(BinOp::Add, PrimType::I64, count, falses_before);
            let r = b.select(keep, pos, fpos, PrimType::I64);
            Ok((vec![r], vec![i64t()]))
        })?;
        let idx =
            self.b.let1("dest_idx", idx_t, Exp::Map { w, lam, arrs: vec![flags, offsets, iota] });
        let rest = self.b.binop(BinOp::Sub, PrimType::I64, w, count);
        let cd = atom_dim(count).ok_or_else(|| internal(span, "count"))?;
        let rd = atom_dim(rest).ok_or_else(|| internal(span, "count"))?;
        let mut trues = Vec::new();
        let mut falses = Vec::new();
        for (v, (_, t)) in arrs.iter().zip(xs.leaves()) {
            let dest = self.blank(wd, &t);
            let r =
                self.b.let1("parts", t.clone(), Exp::Scatter { dest, idx: vec![idx], vals: *v, w });
            let inner = &shape(&t)[1..];
            let mut ts = vec![cd];
            ts.extend_from_slice(inner);
            let tt = array_ty(t.elem(), ts);
            let tv = self.b.let1(
                "trues",
                tt.clone(),
                Exp::Index {
                    arr: r,
                    idx: vec![DimIndex::Slice { start: i64c(0), len: count, stride: i64c(1) }],
                },
            );
            let mut fs = vec![rd];
            fs.extend_from_slice(inner);
            let ft = array_ty(t.elem(), fs);
            let fv = self.b.let1(
                "falses",
                ft.clone(),
                Exp::Index {
                    arr: r,
                    idx: vec![DimIndex::Slice { start: count, len: rest, stride: i64c(1) }],
                },
            );
            trues.push((Atom::Var(tv), tt));
            falses.push((Atom::Var(fv), ft));
        }
        let t =
            xs.rebuild(&mut trues.into_iter()).ok_or_else(|| internal(span, "partition result"))?;
        let f = xs
            .rebuild(&mut falses.into_iter())
            .ok_or_else(|| internal(span, "partition result"))?;
        Ok(SVal::Tuple(vec![t, f]))
    }

    pub(crate) fn scatter(
        &mut self,
        dest: SVal<'a>,
        is: SVal<'a>,
        vs: SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let (w, idx, idx_tys) = self.array_leaves(&is, "scatter", span)?;
        let idx = self.align_outer(idx, &idx_tys, w, "scatter")?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let dl = dest.leaves();
        let vl = vs.leaves();
        if dl.len() != vl.len() {
            return Err(internal(span, "scatter shapes"));
        }
        let mut leaves = Vec::new();
        for ((d, dt), (v, vt)) in dl.into_iter().zip(vl) {
            let slot = array_ty(dt.elem(), shape(&dt).get(idx.len()..).unwrap_or(&[]).to_vec());
            let want = outer_ty(wd, &slot);
            let v = self.coerce_leaf(v, &vt, &want, "the scattered values")?;
            let vals = self.b.var_of(v, &want, "t");
            let dest = self.b.var_of(d, &dt, "t");
            let r = self.b.let1(
                "scattered",
                dt.clone(),
                Exp::Scatter { dest, idx: idx.clone(), vals, w },
            );
            leaves.push((Atom::Var(r), dt));
        }
        dest.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "scatter result"))
    }

    pub(crate) fn hist(
        &mut self,
        dest: SVal<'a>,
        op: &SVal<'a>,
        ne: &SVal<'a>,
        is: SVal<'a>,
        vs: SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let (w, is_v, is_t) = self.array_leaves(&is, "reduce_by_index", span)?;
        let is_v = self.align_outer(is_v, &is_t, w, "reduce_by_index")?;
        let is_var = *is_v.first().ok_or_else(|| internal(span, "histogram indices"))?;
        let (_, vs_v, vs_t) = self.array_leaves(&vs, "reduce_by_index", span)?;
        let wd = atom_dim(w).ok_or_else(|| internal(span, "width"))?;
        let row = self.row_template(&dest)?;
        let row_tys: Vec<Type> = row.leaves().into_iter().map(|(_, t)| t).collect();
        let mut vals = Vec::new();
        for ((v, t), rt) in vs_v.into_iter().zip(&vs_t).zip(&row_tys) {
            let want = outer_ty(wd, rt);
            let a = self.coerce_leaf(Atom::Var(v), t, &want, "the histogram values")?;
            vals.push(self.b.var_of(a, &want, "t"));
        }
        let mut neutral = Vec::new();
        for ((a, t), want) in ne.leaves().into_iter().zip(&row_tys) {
            neutral.push(self.coerce_leaf(a, &t, want, "the neutral element")?);
        }
        let (lam, _) = self.make_lambda(
            &[row.clone(), row],
            Some((&row_tys, "the operator's result")),
            span,
            |l, args| l.apply_args(op, args, span),
        )?;
        let mut dests = Vec::new();
        let mut pat = Vec::new();
        let mut leaves = Vec::new();
        for (a, t) in dest.leaves() {
            dests.push(self.b.var_of(a, &t, "t"));
            let p = self.b.param("hist", t.clone());
            leaves.push((Atom::Var(p.var), t));
            pat.push(p);
        }
        self.b.push(pat, Exp::Hist { dest: dests, lam, neutral, is: is_var, vs: vals, w });
        dest.rebuild(&mut leaves.into_iter()).ok_or_else(|| internal(span, "histogram result"))
    }
}
