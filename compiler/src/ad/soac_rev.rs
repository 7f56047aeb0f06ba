//! Reverse-mode rules for reduce, scan, hist and scatter (seed-001-ad.md §4.5–4.8, with its
//! corrections): `+` fast paths, min/max through the first index of the extremum, a general
//! reduce via exclusive scans from both sides, scatter through gathers.

use super::build::{atom_dim, dim_atom, fconst, i64c, is_float, row_of, Ad};
use super::rev::Adjs;
use super::{internal, unsupported, R};
use crate::ir::*;
use crate::prim::PrimType;

/// The single binary operator of a one-value operator lambda `\x y -> x op y`, if it is one.
fn simple_op(lam: &Lambda) -> Option<BinOp> {
    let [x, y] = lam.params.as_slice() else { return None };
    let [s] = lam.body.stms.as_slice() else { return None };
    let Exp::BinOp(op, _, a, b) = &s.exp else { return None };
    let [r] = lam.body.result.as_slice() else { return None };
    let pv = s.pat.first()?.var;
    if *r != Atom::Var(pv) || !matches!(x.ty, Type::Prim(_)) {
        return None;
    }
    let (xa, ya) = (Atom::Var(x.var), Atom::Var(y.var));
    ((*a == xa && *b == ya) || (*a == ya && *b == xa)).then_some(*op)
}

/// Whether the operator adds its two groups of `k` parameters componentwise (`+`, and the
/// (value, tangent) pairs forward mode makes of it).
fn adds_componentwise(lam: &Lambda) -> bool {
    let k = lam.ret.len();
    if lam.params.len() != 2 * k || lam.body.stms.len() != k {
        return false;
    }
    lam.body.result.iter().enumerate().all(|(j, r)| {
        let (Some(x), Some(y)) = (lam.params.get(j), lam.params.get(k + j)) else { return false };
        let (xa, ya) = (Atom::Var(x.var), Atom::Var(y.var));
        matches!(x.ty, Type::Prim(_))
            && lam.body.stms.iter().any(|s| {
                s.pat.first().map(|p| Atom::Var(p.var)) == Some(*r)
                    && matches!(&s.exp, Exp::BinOp(BinOp::Add, _, a, b)
                        if (*a == xa && *b == ya) || (*a == ya && *b == xa))
            })
    })
}

impl Ad {
    pub(crate) fn rev_soac(&mut self, s: &Stm, adjs: &mut Adjs) -> R<()> {
        match &s.exp {
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                let seeds: Vec<(usize, Atom)> = self.soac_seeds(&s.pat, adjs);
                if seeds.is_empty() {
                    return Ok(());
                }
                if arrs.len() > 1 && adds_componentwise(lam) {
                    let wd = atom_dim(*w).ok_or_else(|| internal(s.span, "width"))?;
                    for (k, yb) in &seeds {
                        let a = arrs[*k];
                        let ty = self.ty(a)?;
                        let c =
                            self.let1("adj", ty, Exp::Replicate { shape: vec![wd], value: *yb });
                        self.add_adj(adjs, &Atom::Var(a), Atom::Var(c), true)?;
                    }
                    return Ok(());
                }
                match (simple_op(lam), arrs.as_slice(), seeds.as_slice()) {
                    (Some(BinOp::Add), [a], [(_, yb)]) => {
                        let ty = self.ty(*a)?;
                        let c = self.let1(
                            "adj",
                            ty,
                            Exp::Replicate {
                                shape: vec![atom_dim(*w).ok_or_else(|| internal(s.span, "width"))?],
                                value: *yb,
                            },
                        );
                        self.add_adj(adjs, &Atom::Var(*a), Atom::Var(c), true)
                    }
                    (Some(op @ (BinOp::Min | BinOp::Max)), [a], [(_, yb)]) => {
                        self.rev_minmax(op, *w, neutral[0], *a, *yb, adjs)
                    }
                    _ => self.rev_reduce_general(s, *w, lam, neutral, arrs, &seeds, adjs),
                }
            }
            Exp::Scan { w, lam, arrs, .. } => {
                let seeds = self.soac_seeds(&s.pat, adjs);
                if seeds.is_empty() {
                    return Ok(());
                }
                match (simple_op(lam), arrs.as_slice(), seeds.as_slice()) {
                    (Some(BinOp::Add), [a], [(_, yb)]) => {
                        let ty = self.ty(*a)?;
                        let t = ty.elem();
                        let ybv = self.var_of(*yb)?;
                        let r = self.reverse(ybv, *w)?;
                        let lam = self.add_lambda(&Type::Prim(t))?;
                        let sc = self.let1(
                            "t",
                            ty.clone(),
                            Exp::Scan { w: *w, lam, neutral: vec![fconst(t, 0.0)], arrs: vec![r] },
                        );
                        let c = self.reverse(sc, *w)?;
                        self.add_adj(adjs, &Atom::Var(*a), Atom::Var(c), false)
                    }
                    _ => match self.scan_by_columns(s)? {
                        Some(body) => {
                            let seeds: Vec<(Atom, Atom)> = s
                                .pat
                                .iter()
                                .zip(&body.result)
                                .filter_map(|(p, r)| adjs.m.get(&p.var).map(|a| (*r, *a)))
                                .collect();
                            let got = self.rev_scope(&body, &seeds, Adjs::default(), arrs)?;
                            for (a, g) in arrs.iter().zip(got) {
                                self.add_adj(adjs, &Atom::Var(*a), g, false)?;
                            }
                            Ok(())
                        }
                        None => self.rev_scan_general(s, adjs),
                    },
                }
            }
            Exp::Hist { dest, lam, is, vs, .. } => {
                let seeds = self.soac_seeds(&s.pat, adjs);
                if seeds.is_empty() {
                    return Ok(());
                }
                if vs.len() > 1 && adds_componentwise(lam) {
                    for (k, hb) in &seeds {
                        let (d, v) = (dest[*k], vs[*k]);
                        self.add_adj(adjs, &Atom::Var(d), *hb, false)?;
                        let vty = self.ty(v)?;
                        let hbv = self.var_of(*hb)?;
                        let g = self.gather(hbv, &[*is], &vty)?;
                        self.add_adj(adjs, &Atom::Var(v), Atom::Var(g), true)?;
                    }
                    return Ok(());
                }
                match (simple_op(lam), vs.as_slice(), seeds.as_slice(), dest.as_slice()) {
                    (Some(BinOp::Add), [v], [(_, hb)], [d]) => {
                        self.add_adj(adjs, &Atom::Var(*d), *hb, false)?;
                        let vty = self.ty(*v)?;
                        let hbv = self.var_of(*hb)?;
                        let g = self.gather(hbv, &[*is], &vty)?;
                        self.add_adj(adjs, &Atom::Var(*v), Atom::Var(g), true)
                    }
                    (Some(op @ (BinOp::Min | BinOp::Max | BinOp::Mul)), [v], [(_, hb)], [d]) => {
                        self.rev_hist_special(op, *d, *is, *v, *hb, adjs)
                    }
                    _ => self.rev_hist_general(s, &seeds, adjs),
                }
            }
            Exp::Scatter { dest, idx, vals, w } => {
                let seeds = self.soac_seeds(&s.pat, adjs);
                let Some((_, yb)) = seeds.first().copied() else { return Ok(()) };
                let ybv = self.var_of(yb)?;
                let vty = self.ty(*vals)?;
                // Of several writes to one cell only the last lands (the interpreter's rule):
                // only its value gets the cell's adjoint.
                let won = self.winning_writes(*dest, idx, *w)?;
                let g = self.gather(ybv, &won, &vty)?;
                self.add_adj(adjs, &Atom::Var(*vals), Atom::Var(g), true)?;
                let dty = self.ty(*dest)?;
                let base = self.let1("adj", dty.clone(), Exp::Copy(ybv));
                let z = self.zeros(&vty);
                let zv = self.var_of(z)?;
                let c = self.let1(
                    "adj",
                    dty,
                    Exp::Scatter { dest: base, idx: idx.clone(), vals: zv, w: *w },
                );
                self.add_adj(adjs, &Atom::Var(*dest), Atom::Var(c), true)
            }
            _ => Err(internal(s.span, "not a SOAC")),
        }
    }

    fn soac_seeds(&mut self, pat: &[Param], adjs: &Adjs) -> Vec<(usize, Atom)> {
        let mut out = Vec::new();
        if !pat.iter().any(|p| adjs.m.contains_key(&p.var)) {
            return out;
        }
        for (k, p) in pat.iter().enumerate() {
            if is_float(&p.ty) {
                let a = match adjs.m.get(&p.var) {
                    Some(a) => *a,
                    None => self.zeros(&p.ty),
                };
                out.push((k, a));
            }
        }
        out
    }

    /// `xs` reversed along its outer dimension of size `w`.
    pub fn reverse(&mut self, xs: Var, w: Atom) -> R<Var> {
        let ty = self.ty(xs)?;
        let start = self.bin(BinOp::Sub, PrimType::I64, w, i64c(1));
        Ok(self.let1(
            "rev",
            ty,
            Exp::Index { arr: xs, idx: vec![DimIndex::Slice { start, len: w, stride: i64c(-1) }] },
        ))
    }

    /// The index arrays `idx` of a `scatter` of `w` values into `dest`, with the first index of
    /// every write that a later write to the same cell overrides replaced by -1 (out of bounds,
    /// which `gather` reads as 0): `winners` holds, per cell, one more than the position of
    /// its last write (a scatter's own rule), and write `j` wins where its cell holds `j + 1`.
    fn winning_writes(&mut self, dest: Var, idx: &[Var], w: Atom) -> R<Vec<Var>> {
        let i64t = Type::Prim(PrimType::I64);
        let shape = super::build::shape_of(&self.ty(dest)?);
        let cells = shape.get(..idx.len()).ok_or_else(|| internal(self.span, "scatter"))?;
        let wd = atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        let ws = Type::Array { elem: PrimType::I64, shape: vec![wd] };
        let zero = self.let1(
            "winners",
            Type::Array { elem: PrimType::I64, shape: cells.to_vec() },
            Exp::Replicate { shape: cells.to_vec(), value: i64c(0) },
        );
        let ids = self.let1(
            "ids",
            ws.clone(),
            Exp::Iota { n: w, start: i64c(1), step: i64c(1), it: crate::prim::IntType::I64 },
        );
        let winners = self.let1(
            "winners",
            Type::Array { elem: PrimType::I64, shape: cells.to_vec() },
            Exp::Scatter { dest: zero, idx: idx.to_vec(), vals: ids, w },
        );
        let at = self.gather(winners, idx, &ws)?;
        let (Some(first), rest) = (idx.first(), idx.get(1..).unwrap_or_default()) else {
            return Err(internal(self.span, "scatter without indices"));
        };
        let ps = vec![
            self.param("i", i64t.clone()),
            self.param("id", i64t.clone()),
            self.param("at", i64t.clone()),
        ];
        let lam = self.lambda(ps, vec![i64t], |ad, ps| {
            let won = ad.cmp(CmpOp::Eq, PrimType::I64, Atom::Var(ps[1].var), Atom::Var(ps[2].var));
            let r = ad.let1(
                "i",
                Type::Prim(PrimType::I64),
                Exp::Select(won, Atom::Var(ps[0].var), i64c(-1)),
            );
            Ok(vec![Atom::Var(r)])
        })?;
        let first = self.let1("idx", ws, Exp::Map { w, lam, arrs: vec![*first, ids, at] });
        Ok(std::iter::once(first).chain(rest.iter().copied()).collect())
    }

    /// `map (\i.. -> if in bounds then src[i..] else 0) is..` with result type `ty`.
    pub(super) fn gather(&mut self, src: Var, is: &[Var], ty: &Type) -> R<Var> {
        let sty = self.ty(src)?;
        let sh = super::build::shape_of(&sty);
        let w = super::build::shape_of(ty)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(self.span, "gather"))?;
        let row = row_of(ty);
        let params: Vec<Param> =
            is.iter().map(|_| self.param("i", Type::Prim(PrimType::I64))).collect();
        let lam = self.lambda(params, vec![row.clone()], |ad, ps| {
            let mut ok = None;
            for (p, d) in ps.iter().zip(&sh) {
                let ge = ad.cmp(CmpOp::Ge, PrimType::I64, Atom::Var(p.var), i64c(0));
                let lt = ad.cmp(CmpOp::Lt, PrimType::I64, Atom::Var(p.var), dim_atom(*d));
                let both = ad.bin(BinOp::LogAnd, PrimType::Bool, ge, lt);
                ok = Some(match ok {
                    Some(prev) => ad.bin(BinOp::LogAnd, PrimType::Bool, prev, both),
                    None => both,
                });
            }
            let ok = ok.unwrap_or(Atom::Const(crate::prim::PrimValue::Bool(true)));
            let idx: Vec<DimIndex> = ps.iter().map(|p| DimIndex::Fix(Atom::Var(p.var))).collect();
            ad.open();
            let g = ad.let1("g", row.clone(), Exp::Index { arr: src, idx });
            let tb = ad.close(vec![Atom::Var(g)]);
            ad.open();
            let z = ad.zeros(&row);
            let eb = ad.close(vec![z]);
            let r = ad.let1(
                "g",
                row.clone(),
                Exp::If { cond: ok, then_body: tb, else_body: eb, ret: vec![row.clone()] },
            );
            Ok(vec![Atom::Var(r)])
        })?;
        Ok(self.let1("gather", ty.clone(), Exp::Map { w, lam, arrs: is.to_vec() }))
    }

    /// min/max: the first index of the extremum gets the whole adjoint.
    fn rev_minmax(
        &mut self,
        op: BinOp,
        w: Atom,
        ne: Atom,
        a: Var,
        yb: Atom,
        adjs: &mut Adjs,
    ) -> R<()> {
        let ty = self.ty(a)?;
        let t = ty.elem();
        let wd = atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        let iota = self.let1(
            "iota",
            Type::Array { elem: PrimType::I64, shape: vec![wd] },
            Exp::Iota { n: w, start: i64c(0), step: i64c(1), it: crate::prim::IntType::I64 },
        );
        let ps = vec![
            self.param("v1", Type::Prim(t)),
            self.param("i1", Type::Prim(PrimType::I64)),
            self.param("v2", Type::Prim(t)),
            self.param("i2", Type::Prim(PrimType::I64)),
        ];
        let lam = self.lambda(ps, vec![Type::Prim(t), Type::Prim(PrimType::I64)], |ad, ps| {
            let (v1, i1, v2, i2) = (
                Atom::Var(ps[0].var),
                Atom::Var(ps[1].var),
                Atom::Var(ps[2].var),
                Atom::Var(ps[3].var),
            );
            let m = ad.bin(op, t, v1, v2);
            let eq = ad.cmp(CmpOp::Eq, t, v1, v2);
            let imin = ad.bin(BinOp::Min, PrimType::I64, i1, i2);
            let first = ad.cmp(CmpOp::Eq, t, v1, m);
            let other = ad.select(PrimType::I64, first, i1, i2);
            let i = ad.select(PrimType::I64, eq, imin, other);
            Ok(vec![m, i])
        })?;
        let v = self.fresh("ext", Type::Prim(t));
        let i = self.fresh("ext_i", Type::Prim(PrimType::I64));
        self.push(
            vec![
                Param { var: v, ty: Type::Prim(t) },
                Param { var: i, ty: Type::Prim(PrimType::I64) },
            ],
            Exp::Reduce { w, lam, neutral: vec![ne, w], arrs: vec![a, iota], commutative: true },
        );
        let _ = v;
        let fresh = !adjs.m.contains_key(&a);
        let ok = self.cmp(CmpOp::Lt, PrimType::I64, Atom::Var(i), w);
        let r = self.add_at_if(adjs, a, Atom::Var(i), yb, ok)?;
        if fresh {
            let h = super::rev::OneHot { adj: r, idx: Atom::Var(i), val: yb, guard: ok };
            adjs.one_hot.insert(a, h);
        }
        Ok(())
    }

    /// Emit `lam` applied to `args` (a renamed copy); returns its results.
    pub fn inline_lam(&mut self, lam: &Lambda, args: &[Atom]) -> Vec<Atom> {
        let copy = self.rename_lambda(lam);
        for (p, a) in copy.params.iter().zip(args) {
            self.push(vec![p.clone()], Exp::Atom(*a));
        }
        for s in copy.body.stms {
            self.push_stm(s);
        }
        copy.body.result
    }

    /// Exclusive scan of `arrs` with `lam` (flipped: `\x y -> lam y x`).
    fn exclusive_scan(
        &mut self,
        w: Atom,
        lam: &Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        flip: bool,
    ) -> R<Vec<Var>> {
        let k = arrs.len();
        let op = if flip {
            let ps: Vec<Param> = lam.params.iter().map(|p| self.param("x", p.ty.clone())).collect();
            let l2 = lam.clone();
            self.lambda(ps, lam.ret.clone(), move |ad, ps| {
                let mut args: Vec<Atom> = ps[k..].iter().map(|p| Atom::Var(p.var)).collect();
                args.extend(ps[..k].iter().map(|p| Atom::Var(p.var)));
                Ok(ad.inline_lam(&l2, &args))
            })?
        } else {
            self.rename_lambda(lam)
        };
        let mut tys = Vec::new();
        for a in arrs {
            tys.push(self.ty(*a)?);
        }
        let incl: Vec<Param> = tys.iter().map(|t| self.param("incl", t.clone())).collect();
        self.push(
            incl.clone(),
            Exp::Scan { w, lam: op, neutral: neutral.to_vec(), arrs: arrs.to_vec() },
        );
        let wd = atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        let iota = self.let1(
            "iota",
            Type::Array { elem: PrimType::I64, shape: vec![wd] },
            Exp::Iota { n: w, start: i64c(0), step: i64c(1), it: crate::prim::IntType::I64 },
        );
        let rows: Vec<Type> = tys.iter().map(row_of).collect();
        let p = self.param("i", Type::Prim(PrimType::I64));
        let neutral = neutral.to_vec();
        let incl2 = incl.clone();
        let rows2 = rows.clone();
        let lam = self.lambda(vec![p], rows.clone(), move |ad, ps| {
            let i = Atom::Var(ps[0].var);
            let first = ad.cmp(CmpOp::Eq, PrimType::I64, i, i64c(0));
            ad.open();
            let tb = ad.close(neutral.clone());
            ad.open();
            let im1 = ad.bin(BinOp::Sub, PrimType::I64, i, i64c(1));
            let mut res = Vec::new();
            for (c, t) in incl2.iter().zip(&rows2) {
                res.push(Atom::Var(ad.let1(
                    "prev",
                    t.clone(),
                    Exp::Index { arr: c.var, idx: vec![DimIndex::Fix(im1)] },
                )));
            }
            let eb = ad.close(res);
            let pat: Vec<Param> = rows2.iter().map(|t| ad.param("excl", t.clone())).collect();
            ad.push(
                pat.clone(),
                Exp::If { cond: first, then_body: tb, else_body: eb, ret: rows2.clone() },
            );
            Ok(pat.iter().map(|p| Atom::Var(p.var)).collect())
        })?;
        let out: Vec<Param> = tys.iter().map(|t| self.param("excl", t.clone())).collect();
        self.push(out.clone(), Exp::Map { w, lam, arrs: vec![iota] });
        Ok(out.iter().map(|p| p.var).collect())
    }

    /// The general reduce rule: `ā_i += ∂(l_i ⊙ a_i ⊙ r_i)/∂a_i · ȳ` with `l`, `r` from
    /// exclusive scans (the right one with the flipped operator on the reversed input).
    #[allow(clippy::too_many_arguments)]
    fn rev_reduce_general(
        &mut self,
        s: &Stm,
        w: Atom,
        lam: &Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        seeds: &[(usize, Atom)],
        adjs: &mut Adjs,
    ) -> R<()> {
        let k = arrs.len();
        let ls = self.exclusive_scan(w, lam, neutral, arrs, false)?;
        let mut revs = Vec::new();
        for a in arrs {
            revs.push(self.reverse(*a, w)?);
        }
        let rs_rev = self.exclusive_scan(w, lam, neutral, &revs, true)?;
        let mut rs = Vec::new();
        for r in rs_rev {
            rs.push(self.reverse(r, w)?);
        }
        let rows: Vec<Type> = lam.params[..k].iter().map(|p| p.ty.clone()).collect();
        let mut params = Vec::new();
        for grp in ["l", "a", "r"] {
            for t in &rows {
                params.push(self.param(grp, t.clone()));
            }
        }
        let lam2 = lam.clone();
        let seeds2: Vec<(usize, Atom)> = seeds.to_vec();
        let rows2 = rows.clone();
        let dlam = self.lambda(params, rows.clone(), move |ad, ps| {
            let a_vars: Vec<Var> = ps[k..2 * k].iter().map(|p| p.var).collect();
            ad.open();
            let l: Vec<Atom> = ps[..k].iter().map(|p| Atom::Var(p.var)).collect();
            let a: Vec<Atom> = ps[k..2 * k].iter().map(|p| Atom::Var(p.var)).collect();
            let r: Vec<Atom> = ps[2 * k..].iter().map(|p| Atom::Var(p.var)).collect();
            let mut la = l;
            la.extend(a);
            let t = ad.inline_lam(&lam2, &la);
            let mut tr = t;
            tr.extend(r);
            let y = ad.inline_lam(&lam2, &tr);
            let body = ad.close(y.clone());
            let pairs: Vec<(Atom, Atom)> =
                seeds2.iter().filter_map(|(j, sd)| y.get(*j).map(|yy| (*yy, *sd))).collect();
            let _ = &rows2;
            ad.rev_scope(&body, &pairs, Adjs::default(), &a_vars)
        })?;
        let mut in_arrs = ls;
        in_arrs.extend(arrs.iter().copied());
        in_arrs.extend(rs);
        let mut pat = Vec::new();
        for a in arrs {
            let t = self.ty(*a)?;
            pat.push(self.param("adj", t));
        }
        self.push(pat.clone(), Exp::Map { w, lam: dlam, arrs: in_arrs });
        let _ = s;
        for (a, p) in arrs.iter().zip(&pat) {
            self.add_adj(adjs, &Atom::Var(*a), Atom::Var(p.var), true)?;
        }
        Ok(())
    }

    /// `iota w` as a fresh variable.
    pub(super) fn iota(&mut self, w: Atom) -> R<Var> {
        let wd = atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        Ok(self.let1(
            "iota",
            Type::Array { elem: PrimType::I64, shape: vec![wd] },
            Exp::Iota { n: w, start: i64c(0), step: i64c(1), it: crate::prim::IntType::I64 },
        ))
    }

    /// `if c then then_vals() else else_vals()` on scalars of types `tys`.
    pub(super) fn if_vals(
        &mut self,
        c: Atom,
        tys: &[Type],
        then_vals: impl FnOnce(&mut Ad) -> R<Vec<Atom>>,
        else_vals: impl FnOnce(&mut Ad) -> R<Vec<Atom>>,
    ) -> R<Vec<Atom>> {
        self.open();
        let r = then_vals(self);
        let tb = self.close(r.as_ref().ok().cloned().unwrap_or_default());
        let tv = r?;
        self.open();
        let r = else_vals(self);
        let eb = self.close(r.as_ref().ok().cloned().unwrap_or_default());
        let ev = r?;
        if tv.len() != tys.len() || ev.len() != tys.len() {
            return Err(internal(self.span, "branch results"));
        }
        let pat: Vec<Param> = tys.iter().map(|t| self.param("v", t.clone())).collect();
        self.push(
            pat.clone(),
            Exp::If { cond: c, then_body: tb, else_body: eb, ret: tys.to_vec() },
        );
        Ok(pat.iter().map(|p| Atom::Var(p.var)).collect())
    }

    /// The general scan rule (seed-001 §4.7 with its corrections): the adjoints of the results
    /// satisfy `r[i] = ȳ[i] + B_i r[i+1]`, with `B_i` the transposed Jacobian of
    /// `y ↦ y ⊙ as[i+1]` at `ys[i]`; a scan of (vector, matrix) pairs over the reversed
    /// sequences solves it, then a map gives `ās[i]` by the vjp of `a ↦ ys[i-1] ⊙ a`.
    /// Only the entries of `B_i` that can be non-zero (by the operator's data dependences,
    /// closed under products) are stored and multiplied: for the affine operator
    /// `(a1 * a2, b1 * a2 + b2)` that is the diagonal.
    fn rev_scan_general(&mut self, s: &Stm, adjs: &mut Adjs) -> R<()> {
        let Exp::Scan { w, lam, neutral, arrs } = &s.exp else {
            return Err(internal(s.span, "not a scan"));
        };
        let w = *w;
        let k = arrs.len();
        // Scalar components; those that are not floats (flags, counts) carry no adjoint and
        // only take part as the operator's arguments.
        let mut ts: Vec<PrimType> = Vec::new();
        for r in &lam.ret {
            match r {
                Type::Prim(p) => ts.push(*p),
                Type::Array { .. } => {
                    return Err(unsupported(
                        s.span,
                        "reverse-mode differentiation of a `scan` whose elements are arrays \
                         (scan each column instead: `transpose (map (scan op ne) (transpose xss))`)",
                    ))
                }
            }
        }
        let floats: Vec<PrimType> =
            ts.iter().copied().filter(|p| matches!(p, PrimType::Float(_))).collect();
        let Some(&t) = floats.first() else { return Ok(()) };
        if floats.iter().any(|f| *f != t) {
            return Err(unsupported(
                s.span,
                "reverse-mode differentiation of a `scan` with float components of different types",
            ));
        }
        let is_f: Vec<bool> = ts.iter().map(|p| matches!(p, PrimType::Float(_))).collect();
        let cty = |j: usize| Type::Prim(ts[j]);
        if lam.params.len() != 2 * k || lam.body.result.len() != k {
            return Err(internal(s.span, "scan operator arity"));
        }
        let st = Type::Prim(t);
        // A result without an adjoint contributes zeros, read as a constant.
        let mut seed_vars: Vec<Option<Var>> = Vec::new();
        for p in &s.pat {
            seed_vars.push(match adjs.m.get(&p.var).copied() {
                Some(a) => Some(self.var_of(a)?),
                None => None,
            });
        }
        let ys: Vec<Var> = s.pat.iter().map(|p| p.var).collect();
        let pat = jacobian_pattern(lam, k);
        // Component r of the adjoints can be non-zero only if it reaches a seeded component
        // through the pattern; the others stay zero and are not computed.
        let live: Vec<bool> = (0..k)
            .map(|r| is_f[r] && (0..k).any(|j| is_f[j] && pat[r][j] && seed_vars[j].is_some()))
            .collect();
        let comps: Vec<usize> = (0..k).filter(|&r| live[r]).collect();
        let mut cpos = vec![None; k];
        for (x, r) in comps.iter().enumerate() {
            cpos[*r] = Some(x);
        }
        // Stored entries (r, c) of the matrices, row-major, and each entry's position. An entry
        // in a dead column only ever multiplies zeros.
        let ents: Vec<(usize, usize)> = (0..k)
            .flat_map(|r| (0..k).map(move |c| (r, c)))
            .filter(|&(r, c)| pat[r][c] && live[r] && live[c])
            .collect();
        let mut pos = vec![None; k * k];
        for (e, (r, c)) in ents.iter().enumerate() {
            pos[r * k + c] = Some(e);
        }
        let nc = comps.len();
        let ne = ents.len();
        let nk = nc + ne;
        let iota = self.iota(w)?;
        let wm1 = self.bin(BinOp::Sub, PrimType::I64, w, i64c(1));
        // 1. (ȳ[i], B_i) for i = w-1 down to 0: the map writes the sequences the recurrence
        // runs over already reversed, so no reversed copies are made.
        let p = self.param("j", Type::Prim(PrimType::I64));
        let seeds1: Vec<Option<Var>> = comps.iter().map(|&r| seed_vars[r]).collect();
        let (lam1, ys1, arrs1) = (lam.clone(), ys.clone(), arrs.clone());
        let (st1, ents1) = (st.clone(), ents.clone());
        let cty1 = cty;
        let lam_b = self.lambda(vec![p], vec![st.clone(); nk], move |ad, ps| {
            let i = ad.bin(BinOp::Sub, PrimType::I64, wm1, Atom::Var(ps[0].var));
            let mut out = Vec::new();
            for sv in &seeds1 {
                out.push(match sv {
                    Some(sv) => Atom::Var(ad.let1(
                        "c",
                        st1.clone(),
                        Exp::Index { arr: *sv, idx: vec![DimIndex::Fix(i)] },
                    )),
                    None => fconst(t, 0.0),
                });
            }
            let has_next = ad.cmp(CmpOp::Lt, PrimType::I64, i, wm1);
            // The reads stay outside the differentiated scope (reversing a read there would
            // build a whole adjoint array of `ys`/`as` per element) and at the top level of the
            // map, the index clamped for the last element, so that differentiating this map
            // again sees gathers.
            let ip1 = ad.bin(BinOp::Add, PrimType::I64, i, i64c(1));
            let ip1 = ad.bin(BinOp::Min, PrimType::I64, ip1, wm1);
            let yv: Vec<Var> = ys1
                .iter()
                .enumerate()
                .map(|(j, y)| {
                    ad.let1("y", cty1(j), Exp::Index { arr: *y, idx: vec![DimIndex::Fix(i)] })
                })
                .collect();
            let mut args: Vec<Atom> = yv.iter().map(|v| Atom::Var(*v)).collect();
            for (j, a) in arrs1.iter().enumerate() {
                args.push(Atom::Var(ad.let1(
                    "a",
                    cty1(j),
                    Exp::Index { arr: *a, idx: vec![DimIndex::Fix(ip1)] },
                )));
            }
            let tys = vec![st1.clone(); ne];
            let m = ad.if_vals(
                has_next,
                &tys,
                |ad| {
                    // Column c of B_i: the vjp of result c alone (no zero seeds, which would
                    // leave `x * 0` products behind).
                    let mut cols: Vec<Vec<Atom>> = Vec::new();
                    for c in 0..k {
                        if !ents1.iter().any(|&(_, ec)| ec == c) {
                            cols.push(vec![fconst(t, 0.0); k]);
                            continue;
                        }
                        ad.open();
                        let r = ad.inline_lam(&lam1, &args);
                        let body = ad.close(r.clone());
                        let pairs = vec![(r[c], fconst(t, 1.0))];
                        cols.push(ad.rev_scope(&body, &pairs, Adjs::default(), &yv)?);
                    }
                    Ok(ents1.iter().map(|&(r, c)| cols[c][r]).collect())
                },
                |_| Ok(vec![fconst(t, 0.0); ne]),
            )?;
            out.extend(m);
            Ok(out)
        })?;
        let wd = atom_dim(w).ok_or_else(|| internal(s.span, "width"))?;
        let arr_t = Type::Array { elem: t, shape: vec![wd] };
        let cm: Vec<Param> = (0..nk).map(|_| self.param("cm", arr_t.clone())).collect();
        self.push(cm.clone(), Exp::Map { w, lam: lam_b, arrs: vec![iota] });
        // 2. The linear recurrence as a scan: (c1, M1) ⊕ (c2, M2) = (c2 + M2·c1, M2·M1).
        let ps: Vec<Param> = (0..2 * nk).map(|_| self.param("x", st.clone())).collect();
        let (pos2, ents2, cpos2, comps2) = (pos, ents.clone(), cpos.clone(), comps.clone());
        let op = self.lambda(ps, vec![st.clone(); nk], move |ad, ps| {
            let c1 = |j: usize| cpos2[j].map(|x| Atom::Var(ps[x].var));
            let c2 = |j: usize| cpos2[j].map(|x| Atom::Var(ps[nk + x].var));
            let m1 = |r: usize, c: usize| pos2[r * k + c].map(|e| Atom::Var(ps[nc + e].var));
            let m2 = |r: usize, c: usize| pos2[r * k + c].map(|e| Atom::Var(ps[nk + nc + e].var));
            let mut out = Vec::new();
            for &r in &comps2 {
                let mut acc = c2(r).unwrap_or(fconst(t, 0.0));
                for j in 0..k {
                    if let (Some(m), Some(c)) = (m2(r, j), c1(j)) {
                        let pr = ad.mul(t, m, c);
                        acc = ad.add(t, acc, pr);
                    }
                }
                out.push(acc);
            }
            for &(r, c) in &ents2 {
                let mut acc = fconst(t, 0.0);
                for j in 0..k {
                    if let (Some(a), Some(b)) = (m2(r, j), m1(j, c)) {
                        let pr = ad.mul(t, a, b);
                        acc = ad.add(t, acc, pr);
                    }
                }
                out.push(acc);
            }
            Ok(out)
        })?;
        let mut ne_vals = vec![fconst(t, 0.0); nc];
        ne_vals.extend(ents.iter().map(|&(r, c)| fconst(t, if r == c { 1.0 } else { 0.0 })));
        let sc: Vec<Param> = (0..nk).map(|_| self.param("rec", arr_t.clone())).collect();
        let cm_vars = cm.iter().map(|p| p.var).collect();
        self.push(sc.clone(), Exp::Scan { w, lam: op, neutral: ne_vals, arrs: cm_vars });
        // The final adjoints r of the live components, still reversed: r[i] = sc[w-1-i].
        let r_rev: Vec<Option<Var>> = cpos.iter().map(|x| x.map(|x| sc[x].var)).collect();
        // 3. ās[i] = vjp (\a -> prev ⊙ a) as[i] r[i], prev = ys[i-1] (the neutral at 0).
        let p = self.param("i", Type::Prim(PrimType::I64));
        let (lam3, ys3, arrs3, ne3) = (lam.clone(), ys.clone(), arrs.clone(), neutral.clone());
        let st3 = st.clone();
        let all: Vec<Type> = (0..k).map(cty).collect();
        let (all3, ts3) = (all.clone(), ts.clone());
        let lam_a = self.lambda(vec![p], all.clone(), move |ad, ps| {
            let i = Atom::Var(ps[0].var);
            let first = ad.cmp(CmpOp::Eq, PrimType::I64, i, i64c(0));
            let tys = all3;
            // Read at the top level, clamped at 0, as in step 1.
            let im1 = ad.bin(BinOp::Sub, PrimType::I64, i, i64c(1));
            let im1 = ad.bin(BinOp::Max, PrimType::I64, im1, i64c(0));
            let reads: Vec<Atom> = ys3
                .iter()
                .zip(&ts3)
                .map(|(y, t)| {
                    Atom::Var(ad.let1(
                        "prev",
                        Type::Prim(*t),
                        Exp::Index { arr: *y, idx: vec![DimIndex::Fix(im1)] },
                    ))
                })
                .collect();
            let prev = ad.if_vals(first, &tys, |_| Ok(ne3.clone()), |_| Ok(reads))?;
            let ri = ad.bin(BinOp::Sub, PrimType::I64, wm1, i);
            let mut rs = Vec::new();
            for r in &r_rev {
                rs.push(r.map(|r| {
                    Atom::Var(ad.let1(
                        "r",
                        st3.clone(),
                        Exp::Index { arr: r, idx: vec![DimIndex::Fix(ri)] },
                    ))
                }));
            }
            // As above, the reads of `as` stay outside the differentiated scope.
            let av: Vec<Var> = arrs3
                .iter()
                .zip(&ts3)
                .map(|(a, t)| {
                    ad.let1(
                        "a",
                        Type::Prim(*t),
                        Exp::Index { arr: *a, idx: vec![DimIndex::Fix(i)] },
                    )
                })
                .collect();
            ad.open();
            let mut args = prev;
            args.extend(av.iter().map(|v| Atom::Var(*v)));
            let y = ad.inline_lam(&lam3, &args);
            let body = ad.close(y.clone());
            let pairs: Vec<(Atom, Atom)> =
                y.into_iter().zip(rs).filter_map(|(y, r)| r.map(|r| (y, r))).collect();
            ad.rev_scope(&body, &pairs, Adjs::default(), &av)
        })?;
        let mut out: Vec<Param> = Vec::new();
        for a in arrs {
            let at = self.ty(*a)?;
            out.push(self.param("adj", at));
        }
        self.push(out.clone(), Exp::Map { w, lam: lam_a, arrs: vec![iota] });
        for (a, p) in arrs.iter().zip(&out) {
            self.add_adj(adjs, &Atom::Var(*a), Atom::Var(p.var), true)?;
        }
        Ok(())
    }

    /// `scan (\xs ys -> map f xs ys) ne xss`, rows combined elementwise, as the scans of the
    /// columns: `transpose (map (\col e -> scan f e col) (transpose xss) ne)` (the interchange
    /// seed-001 §4.5 describes), a body whose results are the scan's. `None` for other scans.
    fn scan_by_columns(&mut self, s: &Stm) -> R<Option<Body>> {
        let Exp::Scan { w, lam, neutral, arrs } = &s.exp else { return Ok(None) };
        let k = arrs.len();
        let [stm] = lam.body.stms.as_slice() else { return Ok(None) };
        let Exp::Map { w: d, lam: f, arrs: margs } = &stm.exp else { return Ok(None) };
        let params: Vec<Var> = lam.params.iter().map(|p| p.var).collect();
        let pat: Vec<Atom> = stm.pat.iter().map(|p| Atom::Var(p.var)).collect();
        let nes: Option<Vec<Var>> =
            neutral.iter().map(|a| if let Atom::Var(v) = a { Some(*v) } else { None }).collect();
        let (Some(nes), Some(d)) = (nes, atom_dim(*d)) else { return Ok(None) };
        if *margs != params || pat != lam.body.result {
            return Ok(None);
        }
        let n = atom_dim(*w).ok_or_else(|| internal(s.span, "width"))?;
        self.open();
        let mut cols = Vec::new();
        let mut col_tys = Vec::new();
        let mut perms = Vec::new();
        for a in arrs {
            let (elem, shape) = match self.ty(*a)? {
                Type::Array { elem, shape } if shape.len() >= 2 && shape[1] == d => (elem, shape),
                _ => {
                    self.close(Vec::new());
                    return Ok(None);
                }
            };
            let mut perm: Vec<usize> = (0..shape.len()).collect();
            perm.swap(0, 1);
            let mut ts = shape.clone();
            ts.swap(0, 1);
            let t = Type::Array { elem, shape: ts };
            cols.push(self.let1("cols", t.clone(), Exp::Rearrange { arr: *a, perm: perm.clone() }));
            col_tys.push(t);
            perms.push(perm);
        }
        let mut ps: Vec<Param> = col_tys.iter().map(|t| self.param("col", row_of(t))).collect();
        for e in &nes {
            let t = row_of(&self.ty(*e)?);
            ps.push(self.param("ne", t));
        }
        let rets: Vec<Type> = col_tys.iter().map(row_of).collect();
        let (f2, rets2) = (f.clone(), rets.clone());
        let inner = self.lambda(ps, rets, move |ad, ps| {
            let pat: Vec<Param> = rets2.iter().map(|t| ad.param("scan", t.clone())).collect();
            let op = ad.rename_lambda(&f2);
            let ne = ps[k..].iter().map(|p| Atom::Var(p.var)).collect();
            let cs = ps[..k].iter().map(|p| p.var).collect();
            ad.push(pat.clone(), Exp::Scan { w: dim_atom(n), lam: op, neutral: ne, arrs: cs });
            Ok(pat.iter().map(|p| Atom::Var(p.var)).collect())
        })?;
        let res: Vec<Param> = col_tys.iter().map(|t| self.param("scans", t.clone())).collect();
        let mut margs = cols;
        margs.extend(nes);
        self.push(res.clone(), Exp::Map { w: dim_atom(d), lam: inner, arrs: margs });
        let mut out = Vec::new();
        for ((p, a), perm) in res.iter().zip(arrs).zip(perms) {
            let t = self.ty(*a)?;
            out.push(Atom::Var(self.let1("scan", t, Exp::Rearrange { arr: p.var, perm })));
        }
        Ok(Some(self.close(out)))
    }

    /// hist with `min`/`max` (the first extremum of each bin, the destination's value counting
    /// as earliest, gets the bin's adjoint) or `*` (products of the non-zero values and counts
    /// of zeros per bin).
    fn rev_hist_special(
        &mut self,
        op: BinOp,
        dest: Var,
        is: Var,
        vs: Var,
        hb: Atom,
        adjs: &mut Adjs,
    ) -> R<()> {
        let dty = self.ty(dest)?;
        let vty = self.ty(vs)?;
        let t = vty.elem();
        let st = Type::Prim(t);
        let i64t = Type::Prim(PrimType::I64);
        let m = super::build::shape_of(&dty)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(self.span, "hist"))?;
        let n = super::build::shape_of(&vty)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(self.span, "hist"))?;
        let md = atom_dim(m).ok_or_else(|| internal(self.span, "hist"))?;
        let hbv = self.var_of(hb)?;
        let dim_t = Type::Array { elem: PrimType::I64, shape: vec![md] };
        let bins_t = Type::Array { elem: t, shape: vec![md] };
        if op == BinOp::Mul {
            // Per bin: (product of non-zeros, number of zeros), the destination included.
            let pz = |ad: &mut Ad, x: Atom| -> R<Vec<Atom>> {
                let z = ad.cmp(CmpOp::Eq, t, x, fconst(t, 0.0));
                let p = ad.select(t, z, fconst(t, 1.0), x);
                let c = Atom::Var(ad.let1(
                    "zc",
                    Type::Prim(PrimType::I64),
                    Exp::Convert { from: PrimType::Bool, to: PrimType::I64, arg: z },
                ));
                Ok(vec![p, c])
            };
            let px = self_param(self, &st);
            let pdest = self.lambda(vec![px], vec![st.clone(), i64t.clone()], |ad, ps| {
                pz(ad, Atom::Var(ps[0].var))
            })?;
            let dp: Vec<Param> =
                vec![self.param("nzp", bins_t.clone()), self.param("nzc", dim_t.clone())];
            self.push(dp.clone(), Exp::Map { w: m, lam: pdest, arrs: vec![dest] });
            let px = self_param(self, &st);
            let pv = self.lambda(vec![px], vec![st.clone(), i64t.clone()], |ad, ps| {
                pz(ad, Atom::Var(ps[0].var))
            })?;
            let nd = atom_dim(n).ok_or_else(|| internal(self.span, "hist"))?;
            let vp: Vec<Param> = vec![
                self.param("vp", Type::Array { elem: t, shape: vec![nd] }),
                self.param("vc", Type::Array { elem: PrimType::I64, shape: vec![nd] }),
            ];
            self.push(vp.clone(), Exp::Map { w: n, lam: pv, arrs: vec![vs] });
            let ps = vec![
                self.param("p1", st.clone()),
                self.param("c1", i64t.clone()),
                self.param("p2", st.clone()),
                self.param("c2", i64t.clone()),
            ];
            let comb = self.lambda(ps, vec![st.clone(), i64t.clone()], |ad, ps| {
                let p = ad.mul(t, Atom::Var(ps[0].var), Atom::Var(ps[2].var));
                let c =
                    ad.bin(BinOp::Add, PrimType::I64, Atom::Var(ps[1].var), Atom::Var(ps[3].var));
                Ok(vec![p, c])
            })?;
            let hp: Vec<Param> =
                vec![self.param("prods", bins_t.clone()), self.param("zeros", dim_t.clone())];
            self.push(
                hp.clone(),
                Exp::Hist {
                    dest: vec![dp[0].var, dp[1].var],
                    lam: comb,
                    neutral: vec![fconst(t, 1.0), i64c(0)],
                    is,
                    vs: vec![vp[0].var, vp[1].var],
                    w: n,
                },
            );
            let (prods, zeros) = (hp[0].var, hp[1].var);
            // ∂/∂x of the bin's product for an element x of the bin.
            let contrib = move |ad: &mut Ad, b: Atom, x: Atom, seed: Atom| -> R<Atom> {
                let p = Atom::Var(ad.let1(
                    "p",
                    st_of(t),
                    Exp::Index { arr: prods, idx: vec![DimIndex::Fix(b)] },
                ));
                let z = Atom::Var(ad.let1(
                    "z",
                    Type::Prim(PrimType::I64),
                    Exp::Index { arr: zeros, idx: vec![DimIndex::Fix(b)] },
                ));
                let xz = ad.cmp(CmpOp::Eq, t, x, fconst(t, 0.0));
                let none = ad.cmp(CmpOp::Eq, PrimType::I64, z, i64c(0));
                let one = ad.cmp(CmpOp::Eq, PrimType::I64, z, i64c(1));
                let safe = ad.select(t, xz, fconst(t, 1.0), x);
                let q = ad.div(t, p, safe);
                let one_here = ad.bin(BinOp::LogAnd, PrimType::Bool, one, xz);
                let d1 = ad.select(t, one_here, p, fconst(t, 0.0));
                let d = ad.select(t, none, q, d1);
                Ok(ad.mul(t, d, seed))
            };
            let iota_m = self.iota(m)?;
            let pb = vec![self.param("b", i64t.clone()), self.param("x", st.clone())];
            let c1 = contrib;
            let dl = self.lambda(pb, vec![st.clone()], move |ad, ps| {
                let b = Atom::Var(ps[0].var);
                let s = Atom::Var(ad.let1(
                    "s",
                    st_of(t),
                    Exp::Index { arr: hbv, idx: vec![DimIndex::Fix(b)] },
                ));
                Ok(vec![c1(ad, b, Atom::Var(ps[1].var), s)?])
            })?;
            let dadj =
                self.let1("adj", dty.clone(), Exp::Map { w: m, lam: dl, arrs: vec![iota_m, dest] });
            self.add_adj(adjs, &Atom::Var(dest), Atom::Var(dadj), true)?;
            let pv = vec![self.param("b", i64t.clone()), self.param("x", st.clone())];
            let vl = self.lambda(pv, vec![st.clone()], move |ad, ps| {
                let b = Atom::Var(ps[0].var);
                let ge = ad.cmp(CmpOp::Ge, PrimType::I64, b, i64c(0));
                let lt = ad.cmp(CmpOp::Lt, PrimType::I64, b, m);
                let ok = ad.bin(BinOp::LogAnd, PrimType::Bool, ge, lt);
                let x = Atom::Var(ps[1].var);
                let r = ad.if_vals(
                    ok,
                    &[st_of(t)],
                    |ad| {
                        let s = Atom::Var(ad.let1(
                            "s",
                            st_of(t),
                            Exp::Index { arr: hbv, idx: vec![DimIndex::Fix(b)] },
                        ));
                        Ok(vec![contrib(ad, b, x, s)?])
                    },
                    |_| Ok(vec![fconst(t, 0.0)]),
                )?;
                Ok(r)
            })?;
            let vadj =
                self.let1("adj", vty.clone(), Exp::Map { w: n, lam: vl, arrs: vec![is, vs] });
            return self.add_adj(adjs, &Atom::Var(vs), Atom::Var(vadj), true);
        }
        // min/max: a histogram of (value, first index), destination entries have index -1.
        let iota_n = self.iota(n)?;
        let minus1 =
            self.let1("idx", dim_t.clone(), Exp::Replicate { shape: vec![md], value: i64c(-1) });
        let dcopy = self.let1("copy", dty.clone(), Exp::Copy(dest));
        let ps = vec![
            self.param("v1", st.clone()),
            self.param("i1", i64t.clone()),
            self.param("v2", st.clone()),
            self.param("i2", i64t.clone()),
        ];
        let lam = self.lambda(ps, vec![st.clone(), i64t.clone()], |ad, ps| {
            let (v1, i1, v2, i2) = (
                Atom::Var(ps[0].var),
                Atom::Var(ps[1].var),
                Atom::Var(ps[2].var),
                Atom::Var(ps[3].var),
            );
            let mm = ad.bin(op, t, v1, v2);
            let eq = ad.cmp(CmpOp::Eq, t, v1, v2);
            let imin = ad.bin(BinOp::Min, PrimType::I64, i1, i2);
            let first = ad.cmp(CmpOp::Eq, t, v1, mm);
            let other = ad.select(PrimType::I64, first, i1, i2);
            let i = ad.select(PrimType::I64, eq, imin, other);
            Ok(vec![mm, i])
        })?;
        let ne = fconst(t, if op == BinOp::Min { f64::INFINITY } else { f64::NEG_INFINITY });
        let hp = vec![self.param("ext", bins_t.clone()), self.param("ext_i", dim_t.clone())];
        self.push(
            hp.clone(),
            Exp::Hist {
                dest: vec![dcopy, minus1],
                lam,
                neutral: vec![ne, i64c(-1)],
                is,
                vs: vec![vs, iota_n],
                w: n,
            },
        );
        let idx = hp[1].var;
        let pd = vec![self.param("i", i64t.clone()), self.param("s", st.clone())];
        let dl = self.lambda(pd, vec![st.clone()], |ad, ps| {
            let from_dest = ad.cmp(CmpOp::Eq, PrimType::I64, Atom::Var(ps[0].var), i64c(-1));
            Ok(vec![ad.select(t, from_dest, Atom::Var(ps[1].var), fconst(t, 0.0))])
        })?;
        let dadj = self.let1("adj", dty.clone(), Exp::Map { w: m, lam: dl, arrs: vec![idx, hbv] });
        self.add_adj(adjs, &Atom::Var(dest), Atom::Var(dadj), true)?;
        let z = self.zeros(&vty);
        let zv = self.var_of(z)?;
        let hcopy = self.let1("copy", dty.clone(), Exp::Copy(hbv));
        let vadj = self.let1(
            "adj",
            vty.clone(),
            Exp::Scatter { dest: zv, idx: vec![idx], vals: hcopy, w: m },
        );
        self.add_adj(adjs, &Atom::Var(vs), Atom::Var(vadj), true)
    }
}

/// `q[r][c]`: entry (r, c) of a scan operator's transposed Jacobian, `∂ result c / ∂ y_r` for
/// the first `k` parameters `y`, may be non-zero. Result c depends on `y_r` through the data
/// flow of the body; the relation is made reflexive (the neutral is the identity) and
/// transitive (products of such matrices stay within it).
fn jacobian_pattern(lam: &Lambda, k: usize) -> Vec<Vec<bool>> {
    let mut q: Vec<Vec<bool>> = (0..k)
        .map(|r| {
            let mut dep: std::collections::HashSet<Var> =
                lam.params.get(r).map(|p| p.var).into_iter().collect();
            for s in &lam.body.stms {
                let mut e = s.exp.clone();
                let mut hit = false;
                super::walk::exp_vars(&mut e, &mut |v, binder| {
                    hit |= !binder && dep.contains(v);
                });
                if hit {
                    dep.extend(s.pat.iter().map(|p| p.var));
                }
            }
            (0..k)
                .map(|c| {
                    r == c
                        || matches!(lam.body.result.get(c), Some(Atom::Var(v)) if dep.contains(v))
                })
                .collect()
        })
        .collect();
    for j in 0..k {
        for r in 0..k {
            for c in 0..k {
                if q[r][j] && q[j][c] {
                    q[r][c] = true;
                }
            }
        }
    }
    q
}

fn st_of(t: PrimType) -> Type {
    Type::Prim(t)
}

fn self_param(ad: &mut Ad, t: &Type) -> Param {
    ad.param("x", t.clone())
}
