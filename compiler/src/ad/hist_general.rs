//! Reverse mode of a `hist` whose operator is none of `+`, `*`, `min`, `max` (seed-001-ad.md
//! §4.6, with its corrections). The elements are sorted by bin, stably, so that each bin's
//! elements form a segment in their original order; segmented exclusive scans from both ends
//! give each element `l` and `r`, the folds of its bin's elements before and after it. Its
//! adjoint is then the vjp of `a ↦ (d ⊙ l) ⊙ a ⊙ r` at the bin's adjoint, `d` the destination's
//! value for the bin, and the destination's adjoint is the vjp of `d ↦ d ⊙ t`, `t` the fold of
//! the bin. Elements whose bin is out of range have no effect and get zeros.
//!
//! The sort is a radix sort of one bit a pass (a `map`, a `scan`, a `reduce` and two
//! `scatter`s), with as many passes as the bin count has bits: O(n log m) work, every pass
//! parallel.

use super::build::{atom_dim, dim_atom, i64c, is_float, row_of, shape_of, Ad};
use super::rev::Adjs;
use super::{internal, R};
use crate::ir::*;
use crate::prim::{IntType, PrimType};

const I64: PrimType = PrimType::Int(IntType::I64);

impl Ad {
    /// `hs = hist ⊙ ne dest is vs`, with `seeds` the adjoints of its float results.
    pub(super) fn rev_hist_general(
        &mut self,
        s: &Stm,
        seeds: &[(usize, Atom)],
        adjs: &mut Adjs,
    ) -> R<()> {
        let Exp::Hist { dest, lam, neutral, is, vs, w } = &s.exp else {
            return Err(internal(s.span, "not a hist"));
        };
        let (n, k) = (*w, vs.len());
        if dest.len() != k || neutral.len() != k || lam.params.len() != 2 * k {
            return Err(internal(s.span, "hist operator arity"));
        }
        let first = dest.first().ok_or_else(|| internal(s.span, "hist without values"))?;
        let m = self.outer(*first)?;
        let mut vtys = Vec::new();
        for v in vs {
            vtys.push(self.ty(*v)?);
        }
        let rows: Vec<Type> = vtys.iter().map(row_of).collect();
        let mut seed_vars = Vec::new();
        for (j, a) in seeds {
            seed_vars.push((*j, self.var_of(*a)?));
        }

        // Each element's bin, `m` for those out of range, then the elements sorted by it.
        let ip = self.param("i", Type::Prim(I64));
        let key_lam = self.lambda(vec![ip], vec![Type::Prim(I64)], |ad, ps| {
            let i = Atom::Var(ps[0].var);
            let ge = ad.cmp(CmpOp::Ge, I64, i, i64c(0));
            let lt = ad.cmp(CmpOp::Lt, I64, i, m);
            let ok = ad.bin(BinOp::LogAnd, PrimType::Bool, ge, lt);
            Ok(vec![ad.select(I64, ok, i, m)])
        })?;
        let keys_t = self.ty(*is)?;
        let keys = self.let1("bin", keys_t, Exp::Map { w: n, lam: key_lam, arrs: vec![*is] });
        let iota = self.iota(n)?;
        let (sk, perm) = self.sort_by_key(keys, n, m, iota)?;
        let mut sv = Vec::new();
        for (v, t) in vs.iter().zip(&vtys) {
            sv.push(self.gather(*v, &[perm], t)?);
        }

        // The folds before and after each element within its bin.
        let ls = self.seg_exclusive_scan(n, iota, lam, neutral, sk, &sv, false)?;
        let rk = self.reverse(sk, n)?;
        let mut rv = Vec::new();
        for v in &sv {
            rv.push(self.reverse(*v, n)?);
        }
        let rs_rev = self.seg_exclusive_scan(n, iota, lam, neutral, rk, &rv, true)?;
        let mut rs = Vec::new();
        for r in rs_rev {
            rs.push(self.reverse(r, n)?);
        }

        // Each element's adjoint, in sorted order.
        let mut params = vec![self.param("b", Type::Prim(I64))];
        for grp in ["l", "a", "r"] {
            for t in &rows {
                params.push(self.param(grp, t.clone()));
            }
        }
        let (lam2, rows2, dest2, seeds2) =
            (lam.clone(), rows.clone(), dest.clone(), seed_vars.clone());
        let elem_lam = self.lambda(params, rows.clone(), move |ad, ps| {
            let b = Atom::Var(ps[0].var);
            let ps = &ps[1..];
            let ok = ad.cmp(CmpOp::Lt, I64, b, m);
            ad.if_vals(
                ok,
                &rows2,
                |ad| {
                    let mut dl = ad.index_rows(&dest2, b)?;
                    dl.extend(ps[..k].iter().map(|p| Atom::Var(p.var)));
                    let left = ad.inline_lam(&lam2, &dl);
                    let pairs = ad.bin_seeds(&seeds2, b)?;
                    let a_vars: Vec<Var> = ps[k..2 * k].iter().map(|p| p.var).collect();
                    ad.open();
                    let mut la = left;
                    la.extend(a_vars.iter().map(|v| Atom::Var(*v)));
                    let mut tr = ad.inline_lam(&lam2, &la);
                    tr.extend(ps[2 * k..].iter().map(|p| Atom::Var(p.var)));
                    let y = ad.inline_lam(&lam2, &tr);
                    let body = ad.close(y.clone());
                    let pairs = pair_up(&y, &pairs);
                    ad.rev_scope(&body, &pairs, Adjs::default(), &a_vars)
                },
                |ad| Ok(rows2.iter().map(|t| ad.zeros(t)).collect()),
            )
        })?;
        let mut arrs = vec![sk];
        arrs.extend(ls);
        arrs.extend(sv.iter().copied());
        arrs.extend(rs);
        let sorted: Vec<Param> = vtys.iter().map(|t| self.param("adj", t.clone())).collect();
        self.push(sorted.clone(), Exp::Map { w: n, lam: elem_lam, arrs });
        // Back to the elements' order.
        for ((v, t), sa) in vs.iter().zip(&vtys).zip(&sorted) {
            if !is_float(t) {
                continue;
            }
            let z = self.zeros(t);
            let z = self.var_of(z)?;
            let a = self.let1(
                "adj",
                t.clone(),
                Exp::Scatter { dest: z, idx: vec![perm], vals: sa.var, w: n },
            );
            self.add_adj(adjs, &Atom::Var(*v), Atom::Var(a), true)?;
        }

        // The destination's adjoint, through the fold of each bin.
        let md = atom_dim(m).ok_or_else(|| internal(self.span, "hist"))?;
        let mut inits = Vec::new();
        let mut totals = Vec::new();
        for (ne, r) in neutral.iter().zip(&rows) {
            let mut sh = vec![md];
            sh.extend(shape_of(r));
            let t = super::build::mk_ty(r.elem(), sh);
            inits.push(self.let1("ne", t.clone(), Exp::Replicate { shape: vec![md], value: *ne }));
            totals.push(self.param("total", t));
        }
        let op = self.rename_lambda(lam);
        self.push(
            totals.clone(),
            Exp::Hist {
                dest: inits,
                lam: op,
                neutral: neutral.clone(),
                is: *is,
                vs: vs.clone(),
                w: n,
            },
        );
        let mut params = vec![self.param("b", Type::Prim(I64))];
        for grp in ["d", "t"] {
            for t in &rows {
                params.push(self.param(grp, t.clone()));
            }
        }
        let (lam2, seeds2) = (lam.clone(), seed_vars);
        let dest_lam = self.lambda(params, rows.clone(), move |ad, ps| {
            let b = Atom::Var(ps[0].var);
            let ps = &ps[1..];
            let pairs = ad.bin_seeds(&seeds2, b)?;
            let d_vars: Vec<Var> = ps[..k].iter().map(|p| p.var).collect();
            ad.open();
            let args: Vec<Atom> = ps.iter().map(|p| Atom::Var(p.var)).collect();
            let y = ad.inline_lam(&lam2, &args);
            let body = ad.close(y.clone());
            let pairs = pair_up(&y, &pairs);
            ad.rev_scope(&body, &pairs, Adjs::default(), &d_vars)
        })?;
        let iota_m = self.iota(m)?;
        let mut arrs = vec![iota_m];
        arrs.extend(dest.iter().copied());
        arrs.extend(totals.iter().map(|p| p.var));
        let mut dtys = Vec::new();
        for d in dest {
            dtys.push(self.ty(*d)?);
        }
        let dadj: Vec<Param> = dtys.iter().map(|t| self.param("adj", t.clone())).collect();
        self.push(dadj.clone(), Exp::Map { w: m, lam: dest_lam, arrs });
        for (d, p) in dest.iter().zip(&dadj) {
            self.add_adj(adjs, &Atom::Var(*d), Atom::Var(p.var), true)?;
        }
        Ok(())
    }

    /// The outer size of array `v`.
    fn outer(&self, v: Var) -> R<Atom> {
        let t = self.ty(v)?;
        shape_of(&t)
            .first()
            .map(|d| dim_atom(*d))
            .ok_or_else(|| internal(self.span, "not an array"))
    }

    /// `arrs[j][b]` for each `j`.
    fn index_rows(&mut self, arrs: &[Var], b: Atom) -> R<Vec<Atom>> {
        let mut out = Vec::new();
        for a in arrs {
            let t = row_of(&self.ty(*a)?);
            out.push(Atom::Var(self.let1(
                "row",
                t,
                Exp::Index { arr: *a, idx: vec![DimIndex::Fix(b)] },
            )));
        }
        Ok(out)
    }

    /// Bin `b`'s adjoint of each seeded result: `(j, seeds[j][b])`.
    fn bin_seeds(&mut self, seeds: &[(usize, Var)], b: Atom) -> R<Vec<(usize, Atom)>> {
        let mut out = Vec::new();
        for (j, s) in seeds {
            let v = self.index_rows(&[*s], b)?;
            out.extend(v.into_iter().map(|a| (*j, a)));
        }
        Ok(out)
    }

    /// A stable sort of `keys` (`n` of them, each within `0..=max`) by their bits, the lowest
    /// first: returns the sorted keys and, for each, its position in `keys` (`iota` is `iota n`).
    fn sort_by_key(&mut self, keys: Var, n: Atom, max: Atom, iota: Var) -> R<(Var, Var)> {
        let at = self.ty(keys)?;
        let i32t = PrimType::Int(IntType::I32);
        let lz = self.let1("lz", Type::Prim(i32t), Exp::Math(MathFn::Clz, I64, vec![max]));
        let lz = self.let1(
            "lz",
            Type::Prim(I64),
            Exp::Convert { from: i32t, to: I64, arg: Atom::Var(lz) },
        );
        let bits = self.bin(BinOp::Sub, I64, i64c(64), Atom::Var(lz));
        let bit = self.fresh("bit", Type::Prim(I64));
        let kp = self.param("keys", at.clone());
        let pp = self.param("perm", at.clone());
        self.open();
        let r = self.radix_pass(&at, n, bit, kp.var, pp.var, iota);
        let body = self
            .close(r.as_ref().map(|(a, b)| vec![Atom::Var(*a), Atom::Var(*b)]).unwrap_or_default());
        r?;
        let out = vec![self.param("sorted", at.clone()), self.param("perm", at)];
        self.push(
            out.clone(),
            Exp::Loop {
                params: vec![(kp, Atom::Var(keys)), (pp, Atom::Var(iota))],
                form: LoopForm::For { i: bit, it: IntType::I64, bound: bits },
                body,
            },
        );
        Ok((out[0].var, out[1].var))
    }

    /// One pass of the radix sort: the keys whose bit `bit` is 0 first, in order, then the others.
    fn radix_pass(
        &mut self,
        at: &Type,
        n: Atom,
        bit: Var,
        keys: Var,
        perm: Var,
        iota: Var,
    ) -> R<(Var, Var)> {
        let it = Type::Prim(I64);
        let p = self.param("k", it.clone());
        let flag_lam = self.lambda(vec![p], vec![it.clone()], |ad, ps| {
            let s = ad.bin(BinOp::Shr, I64, Atom::Var(ps[0].var), Atom::Var(bit));
            Ok(vec![ad.bin(BinOp::And, I64, s, i64c(1))])
        })?;
        let flags =
            self.let1("ones", at.clone(), Exp::Map { w: n, lam: flag_lam, arrs: vec![keys] });
        let add = self.add_lambda(&it)?;
        let ones = self.let1(
            "ones",
            at.clone(),
            Exp::Scan { w: n, lam: add, neutral: vec![i64c(0)], arrs: vec![flags] },
        );
        let add = self.add_lambda(&it)?;
        let count = self.let1(
            "count",
            it.clone(),
            Exp::Reduce {
                w: n,
                lam: add,
                neutral: vec![i64c(0)],
                arrs: vec![flags],
                commutative: true,
            },
        );
        let zeros = self.bin(BinOp::Sub, I64, n, Atom::Var(count));
        let ps = vec![
            self.param("i", it.clone()),
            self.param("f", it.clone()),
            self.param("c", it.clone()),
        ];
        let pos_lam = self.lambda(ps, vec![it.clone()], |ad, ps| {
            let (i, f, c) = (Atom::Var(ps[0].var), Atom::Var(ps[1].var), Atom::Var(ps[2].var));
            let one = ad.cmp(CmpOp::Eq, I64, f, i64c(1));
            // A 1 goes after every 0 and the 1s before it; a 0 after the 0s before it.
            let after = ad.bin(BinOp::Add, I64, zeros, c);
            let after = ad.bin(BinOp::Sub, I64, after, i64c(1));
            let before = ad.bin(BinOp::Sub, I64, i, c);
            Ok(vec![ad.select(I64, one, after, before)])
        })?;
        let pos = self.let1(
            "pos",
            at.clone(),
            Exp::Map { w: n, lam: pos_lam, arrs: vec![iota, flags, ones] },
        );
        let mut out = [keys; 2];
        for (o, src) in out.iter_mut().zip([keys, perm]) {
            let z = self.zeros(at);
            let z = self.var_of(z)?;
            *o = self.let1(
                "sorted",
                at.clone(),
                Exp::Scatter { dest: z, idx: vec![pos], vals: src, w: n },
            );
        }
        Ok((out[0], out[1]))
    }

    /// The exclusive scan of `arrs` with `lam` (flipped: `\x y -> lam y x`) restarted at each
    /// segment of equal consecutive `keys`, from `neutral`; `iota` is `iota w`.
    #[allow(clippy::too_many_arguments)]
    fn seg_exclusive_scan(
        &mut self,
        w: Atom,
        iota: Var,
        lam: &Lambda,
        neutral: &[Atom],
        keys: Var,
        arrs: &[Var],
        flip: bool,
    ) -> R<Vec<Var>> {
        let k = arrs.len();
        let bool_t = Type::Prim(PrimType::Bool);
        let wd = atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        let ip = self.param("i", Type::Prim(I64));
        let start_lam = self.lambda(vec![ip], vec![bool_t.clone()], |ad, ps| {
            let i = Atom::Var(ps[0].var);
            let first = ad.cmp(CmpOp::Eq, I64, i, i64c(0));
            ad.if_vals(
                first,
                std::slice::from_ref(&bool_t),
                |_| Ok(vec![Atom::Const(crate::prim::PrimValue::Bool(true))]),
                |ad| {
                    let im1 = ad.bin(BinOp::Sub, I64, i, i64c(1));
                    let here = ad.index_rows(&[keys], i)?;
                    let before = ad.index_rows(&[keys], im1)?;
                    Ok(vec![ad.cmp(CmpOp::Neq, I64, here[0], before[0])])
                },
            )
        })?;
        let starts = self.let1(
            "start",
            Type::Array { elem: PrimType::Bool, shape: vec![wd] },
            Exp::Map { w, lam: start_lam, arrs: vec![iota] },
        );
        let rows: Vec<Type> = lam.params[..k].iter().map(|p| p.ty.clone()).collect();
        let mut ps = vec![self.param("f", bool_t.clone())];
        ps.extend(rows.iter().map(|t| self.param("x", t.clone())));
        ps.push(self.param("f", bool_t.clone()));
        ps.extend(rows.iter().map(|t| self.param("y", t.clone())));
        let mut ret = vec![bool_t.clone()];
        ret.extend(rows.iter().cloned());
        let (lam2, rows2) = (lam.clone(), rows.clone());
        let op = self.lambda(ps, ret, move |ad, ps| {
            let (f1, f2) = (Atom::Var(ps[0].var), Atom::Var(ps[k + 1].var));
            let x: Vec<Atom> = ps[1..=k].iter().map(|p| Atom::Var(p.var)).collect();
            let y: Vec<Atom> = ps[k + 2..].iter().map(|p| Atom::Var(p.var)).collect();
            let f = ad.bin(BinOp::LogOr, PrimType::Bool, f1, f2);
            let y2 = y.clone();
            let vals = ad.if_vals(
                f2,
                &rows2,
                move |_| Ok(y2),
                move |ad| {
                    let args = if flip { [y, x].concat() } else { [x, y].concat() };
                    Ok(ad.inline_lam(&lam2, &args))
                },
            )?;
            Ok([vec![f], vals].concat())
        })?;
        let mut tys = vec![Type::Array { elem: PrimType::Bool, shape: vec![wd] }];
        for a in arrs {
            tys.push(self.ty(*a)?);
        }
        let incl: Vec<Param> = tys.iter().map(|t| self.param("incl", t.clone())).collect();
        let mut ne = vec![Atom::Const(crate::prim::PrimValue::Bool(false))];
        ne.extend(neutral.iter().copied());
        let mut scanned = vec![starts];
        scanned.extend(arrs.iter().copied());
        self.push(incl.clone(), Exp::Scan { w, lam: op, neutral: ne, arrs: scanned });
        // Shifted by one within each segment: a segment's first element gets the neutral.
        let incl: Vec<Var> = incl[1..].iter().map(|p| p.var).collect();
        let ip = self.param("i", Type::Prim(I64));
        let (neutral2, rows2) = (neutral.to_vec(), rows.clone());
        let shift = self.lambda(vec![ip], rows.clone(), move |ad, ps| {
            let i = Atom::Var(ps[0].var);
            let start = ad.index_rows(&[starts], i)?;
            ad.if_vals(
                start[0],
                &rows2,
                |_| Ok(neutral2),
                |ad| {
                    let im1 = ad.bin(BinOp::Sub, I64, i, i64c(1));
                    ad.index_rows(&incl, im1)
                },
            )
        })?;
        let out: Vec<Param> = tys[1..].iter().map(|t| self.param("excl", t.clone())).collect();
        self.push(out.clone(), Exp::Map { w, lam: shift, arrs: vec![iota] });
        Ok(out.iter().map(|p| p.var).collect())
    }
}

/// `(y[j], seed)` for each seeded result `j`.
fn pair_up(y: &[Atom], seeds: &[(usize, Atom)]) -> Vec<(Atom, Atom)> {
    seeds.iter().filter_map(|(j, s)| y.get(*j).map(|yy| (*yy, *s))).collect()
}
