//! Forward mode: every float variable gets a tangent of the same type (dual numbers). A missing
//! tangent is zero; tangents are only materialised where a construct needs one (lambda, loop and
//! branch results). SOAC operators are lifted to (value, tangent) pairs, which keeps them
//! associative, so reduce/scan/hist stay parallel.

use std::collections::HashMap;

use super::build::{is_float, Ad};
use super::{internal, unsupported, R};
use crate::ir::*;

type Tans = HashMap<Var, Atom>;

impl Ad {
    /// `jvp lam args seeds`: emits the primal and tangent code; returns the results, then their
    /// tangents.
    pub fn jvp(&mut self, lam: &Lambda, args: &[Atom], seeds: &[Atom]) -> R<Vec<Atom>> {
        let mut tans = Tans::new();
        for ((p, a), s) in lam.params.iter().zip(args).zip(seeds) {
            self.push(vec![p.clone()], Exp::Atom(*a));
            if is_float(&p.ty) {
                tans.insert(p.var, *s);
            }
        }
        self.fwd_stms(&lam.body.stms, &mut tans)?;
        let mut out = lam.body.result.clone();
        for (a, t) in lam.body.result.iter().zip(&lam.ret) {
            let ta = self.tan_or_zero(a, t, &tans)?;
            out.push(ta);
        }
        Ok(out)
    }

    fn tan(&self, a: &Atom, tans: &Tans) -> Option<Atom> {
        // A constant-zero tangent is structurally zero: no code for it.
        match a {
            Atom::Var(v) => tans.get(v).copied().filter(|t| !super::build::is_const(t, 0.0)),
            Atom::Const(_) => None,
        }
    }

    fn tan_or_zero(&mut self, a: &Atom, ty: &Type, tans: &Tans) -> R<Atom> {
        match self.tan(a, tans) {
            Some(t) => Ok(t),
            None => Ok(self.zeros(ty)),
        }
    }

    fn tan_var(&mut self, v: Var, tans: &Tans) -> R<Var> {
        let ty = self.ty(v)?;
        let a = self.tan_or_zero(&Atom::Var(v), &ty, tans)?;
        self.var_of(a)
    }

    fn fwd_stms(&mut self, stms: &[Stm], tans: &mut Tans) -> R<()> {
        for s in stms {
            let span = self.span;
            self.span = s.span;
            let r = self.fwd_stm(s, tans);
            self.span = span;
            r?;
        }
        Ok(())
    }

    /// A transformed body returning its results and then the tangents of its float results.
    fn fwd_body(&mut self, b: &Body, tys: &[Type], tans: &Tans) -> R<Body> {
        let mut tans = tans.clone();
        self.open();
        let r = (|| {
            self.fwd_stms(&b.stms, &mut tans)?;
            let mut res = b.result.clone();
            for (a, t) in b.result.iter().zip(tys) {
                if is_float(t) {
                    let ta = self.tan_or_zero(a, t, &tans)?;
                    res.push(ta);
                }
            }
            Ok(res)
        })();
        let res = r.as_ref().ok().cloned().unwrap_or_default();
        let body = self.close(res);
        r?;
        Ok(body)
    }

    /// Tangent pattern entries for the float entries of `pat`.
    fn tan_pat(&mut self, pat: &[Param]) -> Vec<Param> {
        pat.iter()
            .filter(|p| is_float(&p.ty))
            .map(|p| Param { var: self.fresh_like(p.var, "_tan", p.ty.clone()), ty: p.ty.clone() })
            .collect()
    }

    fn bind_tans(&mut self, pat: &[Param], tpat: &[Param], tans: &mut Tans) {
        for (p, tp) in pat.iter().filter(|p| is_float(&p.ty)).zip(tpat) {
            tans.insert(p.var, Atom::Var(tp.var));
        }
    }

    /// A lambda over (params, tangents of float params) returning (results, tangents).
    /// `groups` splits the parameters into groups whose tangents follow each group (operators
    /// have two: the accumulator and the element).
    fn fwd_lambda(&mut self, lam: &Lambda, groups: &[usize], tans: &Tans) -> R<Lambda> {
        let mut params = Vec::new();
        let mut inner = tans.clone();
        let mut start = 0;
        for &g in groups {
            let grp = lam.params.get(start..start + g).unwrap_or(&[]);
            params.extend(grp.iter().cloned());
            for p in grp.iter().filter(|p| is_float(&p.ty)) {
                let tp = self.fresh_like(p.var, "_tan", p.ty.clone());
                inner.insert(p.var, Atom::Var(tp));
                params.push(Param { var: tp, ty: p.ty.clone() });
            }
            start += g;
        }
        let body = self.fwd_body(&lam.body, &lam.ret, &inner)?;
        let mut ret = lam.ret.clone();
        ret.extend(lam.ret.iter().filter(|t| is_float(t)).cloned());
        // Operator lambdas return (values, tangents) grouped like one accumulator.
        Ok(Lambda { params, body, ret })
    }

    fn fwd_stm(&mut self, s: &Stm, tans: &mut Tans) -> R<()> {
        let pat0 = s.pat.first().map(|p| (p.var, p.ty.clone()));
        let float0 = pat0.as_ref().is_some_and(|(_, t)| is_float(t));
        match &s.exp {
            Exp::Atom(_)
            | Exp::UnOp(..)
            | Exp::BinOp(..)
            | Exp::Math(..)
            | Exp::Convert { .. }
            | Exp::Select(..) => {
                self.push_stm(s.clone());
                let Some((v, ty)) = pat0 else { return Ok(()) };
                if !float0 {
                    return Ok(());
                }
                let t = ty.elem();
                let tan = match &s.exp {
                    Exp::Atom(a) => self.tan(a, tans),
                    Exp::Convert { from, to, arg } => match self.tan(arg, tans) {
                        Some(ta) if is_float(&Type::Prim(*from)) => Some(Atom::Var(self.let1(
                            "t",
                            ty.clone(),
                            Exp::Convert { from: *from, to: *to, arg: ta },
                        ))),
                        _ => None,
                    },
                    Exp::Select(c, a, b) => match (self.tan(a, tans), self.tan(b, tans)) {
                        (None, None) => None,
                        _ => {
                            let ta = self.tan_or_zero(a, &ty, tans)?;
                            let tb = self.tan_or_zero(b, &ty, tans)?;
                            Some(self.select(t, *c, ta, tb))
                        }
                    },
                    e => {
                        let parts = self.partials(e, Atom::Var(v))?;
                        let mut acc: Option<Atom> = None;
                        for (x, d) in parts {
                            if let Some(tx) = self.tan(&x, tans) {
                                let term = self.mul(t, d, tx);
                                acc = Some(match acc {
                                    None => term,
                                    Some(a) => self.add(t, a, term),
                                });
                            }
                        }
                        acc
                    }
                };
                if let Some(tan) = tan {
                    tans.insert(v, tan);
                }
            }
            Exp::Cmp(..) | Exp::Iota { .. } | Exp::Assert { .. } => self.push_stm(s.clone()),
            Exp::Index { arr, idx } => {
                self.push_stm(s.clone());
                if let (Some((v, ty)), Some(Atom::Var(ta))) = (pat0, tans.get(arr).copied()) {
                    let t = self.let1("t", ty, Exp::Index { arr: ta, idx: idx.clone() });
                    tans.insert(v, Atom::Var(t));
                }
            }
            Exp::Update { arr, idx, value } => {
                let (ta, tv) = (tans.get(arr).copied(), self.tan(value, tans));
                let need = ta.is_some() || tv.is_some();
                let (ta, tv) = if need && float0 {
                    let ta = self.tan_var(*arr, tans)?;
                    let vty = self.atom_ty(value)?;
                    let tv = self.tan_or_zero(value, &vty, tans)?;
                    (Some(ta), Some(tv))
                } else {
                    (None, None)
                };
                self.push_stm(s.clone());
                if let (Some((v, ty)), Some(ta), Some(tv)) = (pat0, ta, tv) {
                    let t =
                        self.let1("t", ty, Exp::Update { arr: ta, idx: idx.clone(), value: tv });
                    tans.insert(v, Atom::Var(t));
                }
            }
            Exp::Replicate { shape, value } => {
                self.push_stm(s.clone());
                if let (Some((v, ty)), Some(tv)) = (pat0, self.tan(value, tans)) {
                    let t = self.let1("t", ty, Exp::Replicate { shape: shape.clone(), value: tv });
                    tans.insert(v, Atom::Var(t));
                }
            }
            Exp::Rearrange { arr, .. } | Exp::Reshape { arr, .. } | Exp::Copy(arr) => {
                self.push_stm(s.clone());
                if let (Some((v, ty)), Some(Atom::Var(ta))) = (pat0, tans.get(arr).copied()) {
                    let e = match &s.exp {
                        Exp::Rearrange { perm, .. } => {
                            Exp::Rearrange { arr: ta, perm: perm.clone() }
                        }
                        Exp::Reshape { shape, .. } => {
                            Exp::Reshape { arr: ta, shape: shape.clone() }
                        }
                        _ => Exp::Copy(ta),
                    };
                    let t = self.let1("t", ty, e);
                    tans.insert(v, Atom::Var(t));
                }
            }
            Exp::Concat { axis, arrs, len } => {
                self.push_stm(s.clone());
                if float0 && arrs.iter().any(|a| tans.contains_key(a)) {
                    let mut ts = Vec::new();
                    for a in arrs {
                        ts.push(self.tan_var(*a, tans)?);
                    }
                    if let Some((v, ty)) = pat0 {
                        let t =
                            self.let1("t", ty, Exp::Concat { axis: *axis, arrs: ts, len: *len });
                        tans.insert(v, Atom::Var(t));
                    }
                }
            }
            Exp::ArrayLit { elems, elem_ty } => {
                self.push_stm(s.clone());
                if float0 && elems.iter().any(|a| self.tan(a, tans).is_some()) {
                    let mut ts = Vec::new();
                    for a in elems {
                        ts.push(self.tan_or_zero(a, elem_ty, tans)?);
                    }
                    if let Some((v, ty)) = pat0 {
                        let t = self.let1(
                            "t",
                            ty,
                            Exp::ArrayLit { elems: ts, elem_ty: elem_ty.clone() },
                        );
                        tans.insert(v, Atom::Var(t));
                    }
                }
            }
            Exp::If { cond, then_body, else_body, ret } => {
                let tb = self.fwd_body(then_body, ret, tans)?;
                let eb = self.fwd_body(else_body, ret, tans)?;
                let tpat = self.tan_pat(&s.pat);
                let mut nret = ret.clone();
                nret.extend(ret.iter().filter(|t| is_float(t)).cloned());
                let mut pat = s.pat.clone();
                pat.extend(tpat.iter().cloned());
                self.push(pat, Exp::If { cond: *cond, then_body: tb, else_body: eb, ret: nret });
                self.bind_tans(&s.pat, &tpat, tans);
            }
            Exp::Loop { params, form, body } => {
                let mut nparams = params.clone();
                let mut inner = tans.clone();
                let mut tys = Vec::new();
                for (p, init) in params {
                    tys.push(p.ty.clone());
                    if is_float(&p.ty) {
                        let ti = self.tan_or_zero(init, &p.ty, tans)?;
                        let tp = self.fresh_like(p.var, "_tan", p.ty.clone());
                        inner.insert(p.var, Atom::Var(tp));
                        nparams.push((Param { var: tp, ty: p.ty.clone() }, ti));
                    }
                }
                let nbody = self.fwd_body(body, &tys, &inner)?;
                let tpat = self.tan_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.extend(tpat.iter().cloned());
                self.push(pat, Exp::Loop { params: nparams, form: form.clone(), body: nbody });
                self.bind_tans(&s.pat, &tpat, tans);
            }
            Exp::Map { w, lam, arrs } => {
                // Only inputs with a tangent get a tangent parameter.
                let mut lam2 = lam.clone();
                let mut narrs = arrs.clone();
                let mut inner = tans.clone();
                for (p, a) in lam.params.iter().zip(arrs) {
                    if let Some(Atom::Var(ta)) = tans.get(a).copied() {
                        let tp = self.fresh_like(p.var, "_tan", p.ty.clone());
                        inner.insert(p.var, Atom::Var(tp));
                        lam2.params.push(Param { var: tp, ty: p.ty.clone() });
                        narrs.push(ta);
                    }
                }
                let body = self.fwd_body(&lam.body, &lam.ret, &inner)?;
                lam2.body = body;
                lam2.ret.extend(lam.ret.iter().filter(|t| is_float(t)).cloned());
                let tpat = self.tan_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.extend(tpat.iter().cloned());
                self.push(pat, Exp::Map { w: *w, lam: lam2, arrs: narrs });
                self.bind_tans(&s.pat, &tpat, tans);
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
                let k = arrs.len();
                let lifted = self.fwd_lambda(lam, &[k, k], tans)?;
                let (narrs, nneutral) = self.lift_inputs(arrs, neutral, tans)?;
                let tpat = self.tan_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.extend(tpat.iter().cloned());
                let e = match &s.exp {
                    Exp::Reduce { commutative, .. } => Exp::Reduce {
                        w: *w,
                        lam: lifted,
                        neutral: nneutral,
                        arrs: narrs,
                        commutative: *commutative,
                    },
                    _ => Exp::Scan { w: *w, lam: lifted, neutral: nneutral, arrs: narrs },
                };
                self.push(pat, e);
                self.bind_tans(&s.pat, &tpat, tans);
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                let k = vs.len();
                let lifted = self.fwd_lambda(lam, &[k, k], tans)?;
                let (nvs, nneutral) = self.lift_inputs(vs, neutral, tans)?;
                let mut ndest = dest.clone();
                for d in dest {
                    if is_float(&self.ty(*d)?) {
                        ndest.push(self.tan_var(*d, tans)?);
                    }
                }
                let tpat = self.tan_pat(&s.pat);
                let mut pat = s.pat.clone();
                pat.extend(tpat.iter().cloned());
                self.push(
                    pat,
                    Exp::Hist {
                        dest: ndest,
                        lam: lifted,
                        neutral: nneutral,
                        is: *is,
                        vs: nvs,
                        w: *w,
                    },
                );
                self.bind_tans(&s.pat, &tpat, tans);
            }
            Exp::Scatter { dest, idx, vals, w } => {
                let need = float0 && (tans.contains_key(dest) || tans.contains_key(vals));
                let t = if need {
                    Some((self.tan_var(*dest, tans)?, self.tan_var(*vals, tans)?))
                } else {
                    None
                };
                self.push_stm(s.clone());
                if let (Some((v, ty)), Some((td, tv))) = (pat0, t) {
                    let t = self.let1(
                        "t",
                        ty,
                        Exp::Scatter { dest: td, idx: idx.clone(), vals: tv, w: *w },
                    );
                    tans.insert(v, Atom::Var(t));
                }
            }
            Exp::Apply { .. } => return Err(unsupported(s.span, "differentiating a call")),
            Exp::Ad { .. } => return Err(internal(s.span, "nested `jvp`/`vjp` not expanded")),
        }
        Ok(())
    }

    /// The inputs of a lifted operator: the arrays then the tangents of the float ones; the
    /// neutral elements then zeros.
    fn lift_inputs(
        &mut self,
        arrs: &[Var],
        neutral: &[Atom],
        tans: &Tans,
    ) -> R<(Vec<Var>, Vec<Atom>)> {
        let mut narrs = arrs.to_vec();
        let mut nn = neutral.to_vec();
        for (a, n) in arrs.iter().zip(neutral) {
            let ty = self.ty(*a)?;
            if is_float(&ty) {
                narrs.push(self.tan_var(*a, tans)?);
                let nty = self.atom_ty(n)?;
                nn.push(self.zeros(&nty));
            }
        }
        Ok((narrs, nn))
    }
}
