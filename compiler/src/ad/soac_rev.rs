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

impl Ad {
    pub(crate) fn rev_soac(&mut self, s: &Stm, adjs: &mut Adjs) -> R<()> {
        match &s.exp {
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                let seeds: Vec<(usize, Atom)> = self.soac_seeds(&s.pat, adjs);
                if seeds.is_empty() {
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
                    _ => Err(unsupported(
                        s.span,
                        "reverse-mode differentiation of this `scan` operator (only `+`)",
                    )),
                }
            }
            Exp::Hist { dest, lam, is, vs, .. } => {
                let seeds = self.soac_seeds(&s.pat, adjs);
                if seeds.is_empty() {
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
                    _ => Err(unsupported(
                        s.span,
                        "reverse-mode differentiation of this histogram operator (only `+`)",
                    )),
                }
            }
            Exp::Scatter { dest, idx, vals, w } => {
                let seeds = self.soac_seeds(&s.pat, adjs);
                let Some((_, yb)) = seeds.first().copied() else { return Ok(()) };
                let ybv = self.var_of(yb)?;
                let vty = self.ty(*vals)?;
                let g = self.gather(ybv, idx, &vty)?;
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

    /// `map (\i.. -> if in bounds then src[i..] else 0) is..` with result type `ty`.
    fn gather(&mut self, src: Var, is: &[Var], ty: &Type) -> R<Var> {
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
            let mut ok = Atom::Const(crate::prim::PrimValue::Bool(true));
            for (p, d) in ps.iter().zip(&sh) {
                let ge = ad.cmp(CmpOp::Ge, PrimType::I64, Atom::Var(p.var), i64c(0));
                let lt = ad.cmp(CmpOp::Lt, PrimType::I64, Atom::Var(p.var), dim_atom(*d));
                let both = ad.bin(BinOp::LogAnd, PrimType::Bool, ge, lt);
                ok = ad.bin(BinOp::LogAnd, PrimType::Bool, ok, both);
            }
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
        let abar = self.owned_adj_pub(adjs, a)?;
        let ok = self.cmp(CmpOp::Lt, PrimType::I64, Atom::Var(i), w);
        self.open();
        let cur = self.let1(
            "cur",
            Type::Prim(t),
            Exp::Index { arr: abar, idx: vec![DimIndex::Fix(Atom::Var(i))] },
        );
        let new = self.add(t, Atom::Var(cur), yb);
        let upd = self.let1(
            "adj",
            ty.clone(),
            Exp::Update { arr: abar, idx: vec![DimIndex::Fix(Atom::Var(i))], value: new },
        );
        let tb = self.close(vec![Atom::Var(upd)]);
        self.open();
        let eb = self.close(vec![Atom::Var(abar)]);
        let r = self.let1(
            "adj",
            ty.clone(),
            Exp::If { cond: ok, then_body: tb, else_body: eb, ret: vec![ty] },
        );
        adjs.m.insert(a, Atom::Var(r));
        adjs.owned.insert(a);
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
}
