//! Reverse mode with redundant execution: a body's forward statements run first, then its
//! return sweep in reverse order. A nested scope (a branch, a loop body, a `map` lambda) is
//! differentiated as a renamed copy that re-executes its forward statements before its own
//! return sweep, so no tape crosses scopes. For-loops checkpoint their parameters per
//! iteration; while-loops are first counted and turned into for-loops. Arrays that the
//! primal updates in place are copied first, so earlier return code still sees their values.

use std::collections::{HashMap, HashSet};

use super::build::{dim_atom, fconst, i64c, is_float, mk_ty, shape_of, Ad, Contrib};
use super::walk;
use super::{internal, unsupported, R};
use crate::ir::*;
use crate::prim::{IntType, PrimType};

/// Adjoints of float variables; `owned` ones may be updated in place.
#[derive(Default, Clone)]
pub struct Adjs {
    pub m: HashMap<Var, Atom>,
    pub owned: HashSet<Var>,
    /// Array adjoints made of zeros and updated since only at constant indices: the adjoint
    /// variable they describe, and those indices. A read `x[k]` at another constant index (not
    /// a row or element of one of them, nor containing one) adds
    /// its adjoint to a slot still zero, so it is stored there, not added to the slot's zeros
    /// (the gates of a stacked weight tensor `w[0]`, ..., `w[3]`).
    pub zero_slots: HashMap<Var, (Var, Vec<Vec<i64>>)>,
    /// Adjoints that are zero but at one index (a `min`/`max` reduction's: its first extremum
    /// gets the whole adjoint): the adjoint variable they describe, the index, the value there,
    /// and whether the index is in bounds (it is not for an empty array).
    pub one_hot: HashMap<Var, OneHot>,
}

/// See [`Adjs::one_hot`].
#[derive(Clone, Copy, Debug)]
pub struct OneHot {
    pub adj: Var,
    pub idx: Atom,
    pub val: Atom,
    pub guard: Atom,
}

impl Ad {
    /// `vjp lam args seeds`: the results, then the adjoints of the parameters.
    pub fn vjp(&mut self, lam: &Lambda, args: &[Atom], seeds: &[Atom]) -> R<Vec<Atom>> {
        for (p, a) in lam.params.iter().zip(args) {
            self.push(vec![p.clone()], Exp::Atom(*a));
        }
        let body = self.prep_body(&lam.body)?;
        let want: Vec<Var> = lam.params.iter().map(|p| p.var).collect();
        let pairs: Vec<(Atom, Atom)> =
            body.result.iter().copied().zip(seeds.iter().copied()).collect();
        let adj = self.rev_scope(&body, &pairs, Adjs::default(), &want)?;
        let mut out = body.result.clone();
        out.extend(adj);
        Ok(out)
    }

    /// Copies arrays before in-place updates and turns while-loops into counted for-loops,
    /// throughout `b`.
    pub fn prep_body(&mut self, b: &Body) -> R<Body> {
        self.open();
        let r = self.prep_stms(&b.stms);
        let body = self.close(b.result.clone());
        r?;
        Ok(body)
    }

    fn prep_stms(&mut self, stms: &[Stm]) -> R<()> {
        for s in stms {
            let mut s = s.clone();
            super::build::map_bodies(&mut s.exp, &mut |b| self.prep_body(&b))?;
            let span = self.span;
            self.span = s.span;
            match &mut s.exp {
                Exp::Update { arr, .. } | Exp::Scatter { dest: arr, .. } => {
                    let t = self.ty(*arr)?;
                    *arr = self.let1("copy", t, Exp::Copy(*arr));
                }
                Exp::Hist { dest, .. } => {
                    for d in dest.iter_mut() {
                        let t = self.ty(*d)?;
                        *d = self.let1("copy", t, Exp::Copy(*d));
                    }
                }
                Exp::Loop { params, form: LoopForm::While(c), body } => {
                    // Count the iterations, then run the same body that many times.
                    let count = self.fresh("count", Type::Prim(PrimType::I64));
                    let copy = self.rename_lambda(&Lambda {
                        params: params.iter().map(|(p, _)| p.clone()).collect(),
                        body: body.clone(),
                        ret: Vec::new(),
                    });
                    let cpos = params.iter().position(|(p, _)| p.var == *c);
                    let cvar = cpos.and_then(|k| copy.params.get(k)).map(|p| p.var);
                    let (Some(cvar), Some(_)) = (cvar, cpos) else {
                        self.span = span;
                        return Err(internal(s.span, "while condition"));
                    };
                    let mut iparams: Vec<(Param, Atom)> =
                        copy.params.iter().cloned().zip(params.iter().map(|(_, a)| *a)).collect();
                    iparams.push((Param { var: count, ty: Type::Prim(PrimType::I64) }, i64c(0)));
                    let mut ibody = copy.body;
                    let next = self.fresh("count", Type::Prim(PrimType::I64));
                    ibody.stms.push(Stm {
                        pat: vec![Param { var: next, ty: Type::Prim(PrimType::I64) }],
                        exp: Exp::BinOp(BinOp::Add, PrimType::I64, Atom::Var(count), i64c(1)),
                        span: s.span,
                    });
                    ibody.result.push(Atom::Var(next));
                    let mut ipat: Vec<Param> = params
                        .iter()
                        .map(|(p, _)| {
                            let v = self.fresh_like(p.var, "_final", p.ty.clone());
                            Param { var: v, ty: p.ty.clone() }
                        })
                        .collect();
                    let n = self.fresh("iterations", Type::Prim(PrimType::I64));
                    ipat.push(Param { var: n, ty: Type::Prim(PrimType::I64) });
                    self.push(
                        ipat,
                        Exp::Loop { params: iparams, form: LoopForm::While(cvar), body: ibody },
                    );
                    let i = self.fresh("i", Type::Prim(PrimType::I64));
                    let b = std::mem::take(body);
                    s.exp = Exp::Loop {
                        params: params.clone(),
                        form: LoopForm::For { i, it: IntType::I64, bound: Atom::Var(n) },
                        body: b,
                    };
                }
                _ => {}
            }
            self.span = span;
            self.push_stm(s);
        }
        Ok(())
    }

    /// Emit `body`'s forward statements and return sweep; `seeds` pairs result atoms with their
    /// adjoints. Returns the adjoints of `want` (zeros where nothing contributed).
    pub fn rev_scope(
        &mut self,
        body: &Body,
        seeds: &[(Atom, Atom)],
        init: Adjs,
        want: &[Var],
    ) -> R<Vec<Atom>> {
        let mut infos = Vec::new();
        for s in &body.stms {
            infos.push(self.emit_fwd(s)?);
        }
        let mut adjs = init;
        for (r, a) in seeds {
            let ty = self.atom_ty(r)?;
            if is_float(&ty) {
                self.add_adj(&mut adjs, r, *a, false)?;
            }
        }
        for (s, info) in body.stms.iter().zip(infos).rev() {
            let span = self.span;
            self.span = s.span;
            let r = self.rev_stm(s, info, &mut adjs);
            self.span = span;
            r?;
        }
        let mut out = Vec::new();
        for v in want {
            let ty = self.ty(*v)?;
            match adjs.m.get(v) {
                Some(a) if is_float(&ty) => out.push(*a),
                _ => out.push(self.zeros(&ty)),
            }
        }
        Ok(out)
    }

    /// `x̄ += c`. `owned`: `c` is a fresh array nothing else refers to.
    pub fn add_adj(&mut self, adjs: &mut Adjs, x: &Atom, c: Atom, owned: bool) -> R<()> {
        let Atom::Var(x) = x else { return Ok(()) };
        let ty = self.ty(*x)?;
        if !is_float(&ty) {
            return Ok(());
        }
        match adjs.m.get(x).copied() {
            None => {
                adjs.m.insert(*x, c);
                if owned {
                    adjs.owned.insert(*x);
                } else {
                    adjs.owned.remove(x);
                }
            }
            Some(old) => {
                let n = self.add_vals(&ty, old, c)?;
                adjs.m.insert(*x, n);
                adjs.owned.insert(*x);
            }
        }
        Ok(())
    }

    /// The adjoint of `x` as an array that may be updated in place (copied or created).
    fn owned_adj(&mut self, adjs: &mut Adjs, x: Var) -> R<Var> {
        let ty = self.ty(x)?;
        let v = match adjs.m.get(&x).copied() {
            Some(Atom::Var(a)) if adjs.owned.contains(&x) => a,
            Some(Atom::Var(a)) => self.let1("adj", ty, Exp::Copy(a)),
            _ => {
                let z = self.zeros(&ty);
                self.var_of(z)?
            }
        };
        adjs.m.insert(x, Atom::Var(v));
        adjs.owned.insert(x);
        Ok(v)
    }

    fn take_adj(&self, adjs: &Adjs, v: Var) -> Option<Atom> {
        adjs.m.get(&v).copied()
    }

    /// The forward statement(s) for `s` in a reverse-mode scope; for a for-loop, the version that
    /// checkpoints its parameters (returns the checkpoint arrays and the iteration count).
    fn emit_fwd(&mut self, s: &Stm) -> R<Option<(Vec<Var>, Atom)>> {
        let Exp::Loop { params, form: LoopForm::For { i, it, bound }, body } = &s.exp else {
            self.push_stm(s.clone());
            return Ok(None);
        };
        let span = self.span;
        self.span = s.span;
        let pvars: HashSet<Var> = params.iter().map(|(p, _)| p.var).collect();
        for (p, _) in params {
            if let Type::Array { shape, .. } = &p.ty {
                if shape.iter().any(|d| matches!(d, Dim::Var(v) if pvars.contains(v))) {
                    self.span = span;
                    return Err(unsupported(
                        s.span,
                        "differentiating a loop whose parameters change shape",
                    ));
                }
            }
        }
        let n = if *it == IntType::I64 {
            *bound
        } else {
            Atom::Var(self.let1(
                "n",
                Type::Prim(PrimType::I64),
                Exp::Convert { from: PrimType::Int(*it), to: PrimType::I64, arg: *bound },
            ))
        };
        let nd = super::build::atom_dim(n).ok_or_else(|| internal(s.span, "loop bound"))?;
        let mut nparams = params.clone();
        let mut bufs = Vec::new();
        let mut inner_bufs = Vec::new();
        let mut stores = Vec::new();
        let i64_i = if *it == IntType::I64 {
            Atom::Var(*i)
        } else {
            let v = self.fresh("i64", Type::Prim(PrimType::I64));
            stores.push(Stm {
                pat: vec![Param { var: v, ty: Type::Prim(PrimType::I64) }],
                exp: Exp::Convert {
                    from: PrimType::Int(*it),
                    to: PrimType::I64,
                    arg: Atom::Var(*i),
                },
                span: s.span,
            });
            Atom::Var(v)
        };
        for (p, _) in params {
            let mut sh = vec![nd];
            sh.extend(shape_of(&p.ty));
            let bty = mk_ty(p.ty.elem(), sh);
            let init = self.zeros(&bty);
            let init = self.var_of(init)?;
            let bp = self.fresh_like(p.var, "_saved", bty.clone());
            let bnext = self.fresh_like(p.var, "_saved", bty.clone());
            stores.push(Stm {
                pat: vec![Param { var: bnext, ty: bty.clone() }],
                exp: Exp::Update {
                    arr: bp,
                    idx: vec![DimIndex::Fix(i64_i)],
                    value: Atom::Var(p.var),
                },
                span: s.span,
            });
            nparams.push((Param { var: bp, ty: bty.clone() }, Atom::Var(init)));
            inner_bufs.push(bnext);
            bufs.push(Param { var: self.fresh_like(p.var, "_saved", bty.clone()), ty: bty });
        }
        let mut nbody = body.clone();
        let mut stms = stores;
        stms.extend(nbody.stms);
        nbody.stms = stms;
        nbody.result.extend(inner_bufs.iter().map(|v| Atom::Var(*v)));
        let mut pat = s.pat.clone();
        pat.extend(bufs.iter().cloned());
        self.push(
            pat,
            Exp::Loop {
                params: nparams,
                form: LoopForm::For { i: *i, it: *it, bound: *bound },
                body: nbody,
            },
        );
        self.span = span;
        Ok(Some((bufs.iter().map(|p| p.var).collect(), n)))
    }

    fn rev_stm(&mut self, s: &Stm, info: Option<(Vec<Var>, Atom)>, adjs: &mut Adjs) -> R<()> {
        let has_adj = s.pat.iter().any(|p| adjs.m.contains_key(&p.var));
        if !has_adj {
            return Ok(());
        }
        let p0 = s.pat.first().map(|p| p.var);
        let ybar = p0.and_then(|v| self.take_adj(adjs, v));
        let ybar_owned = p0.is_some_and(|v| adjs.owned.contains(&v));
        match &s.exp {
            Exp::Atom(a) => {
                if let Some(yb) = ybar {
                    self.add_adj(adjs, a, yb, ybar_owned)?;
                }
            }
            Exp::UnOp(..) | Exp::BinOp(..) | Exp::Math(..) => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let t = self.ty(v)?.elem();
                let parts = self.partials(&s.exp, Atom::Var(v))?;
                for (x, d) in parts {
                    if matches!(x, Atom::Var(_)) {
                        let c = self.mul(t, d, yb);
                        self.add_adj(adjs, &x, c, false)?;
                    }
                }
            }
            Exp::Convert { from, to, arg } => {
                if let (Some(yb), PrimType::Float(_)) = (ybar, from) {
                    let c = Atom::Var(self.let1(
                        "t",
                        Type::Prim(*from),
                        Exp::Convert { from: *to, to: *from, arg: yb },
                    ));
                    self.add_adj(adjs, arg, c, false)?;
                }
            }
            Exp::Select(c, a, b) => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let t = self.ty(v)?.elem();
                let z = fconst(t, 0.0);
                let ca = self.select(t, *c, yb, z);
                let cb = self.select(t, *c, z, yb);
                self.add_adj(adjs, a, ca, false)?;
                self.add_adj(adjs, b, cb, false)?;
            }
            Exp::Cmp(..) | Exp::Iota { .. } | Exp::Assert { .. } => {}
            Exp::Index { arr, idx } if self.sparse.contains(arr) => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let ty = self.ty(v)?;
                let idx = idx
                    .iter()
                    .filter_map(|d| match d {
                        DimIndex::Fix(x) => Some(*x),
                        DimIndex::Slice { .. } => None,
                    })
                    .collect();
                self.contribs.push(Contrib { arr: *arr, idx, val: yb, ty });
            }
            Exp::Index { arr, idx } => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let ty = self.ty(v)?;
                let k = const_index(idx);
                let fresh = !adjs.m.contains_key(arr);
                let slots = match (&k, adjs.zero_slots.remove(arr)) {
                    (Some(_), _) if fresh => Some(Vec::new()),
                    (Some(k), Some((at, slots)))
                        if adjs.m.get(arr) == Some(&Atom::Var(at))
                            && !slots.iter().any(|w| w.starts_with(k) || k.starts_with(w)) =>
                    {
                        Some(slots)
                    }
                    _ => None,
                };
                let a = self.owned_adj(adjs, *arr)?;
                let aty = self.ty(*arr)?;
                let upd = if slots.is_some() {
                    self.let1("adj", aty, Exp::Update { arr: a, idx: idx.clone(), value: yb })
                } else {
                    self.add_at(a, idx, yb, &ty, &aty)?
                };
                adjs.m.insert(*arr, Atom::Var(upd));
                if let (Some(mut slots), Some(k)) = (slots, k) {
                    slots.push(k);
                    adjs.zero_slots.insert(*arr, (upd, slots));
                }
            }
            Exp::Update { arr, idx, value } => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let vty = self.atom_ty(value)?;
                let ybv = self.var_of(yb)?;
                if matches!(value, Atom::Var(_)) {
                    let c = self.let1("t", vty.clone(), Exp::Index { arr: ybv, idx: idx.clone() });
                    self.add_adj(adjs, value, Atom::Var(c), false)?;
                }
                let ty = self.ty(v)?;
                let base =
                    if ybar_owned { ybv } else { self.let1("adj", ty.clone(), Exp::Copy(ybv)) };
                let z = self.zeros(&vty);
                let c = self.let1("adj", ty, Exp::Update { arr: base, idx: idx.clone(), value: z });
                self.add_adj(adjs, &Atom::Var(*arr), Atom::Var(c), true)?;
            }
            Exp::Replicate { shape, value } => {
                let (Some(v), Some(yb)) = (p0, ybar) else { return Ok(()) };
                let ty = self.ty(v)?;
                let c = self.sum_outer(yb, &ty, shape.len())?;
                self.add_adj(adjs, value, c, true)?;
            }
            Exp::Rearrange { arr, perm } => {
                let Some(yb) = ybar else { return Ok(()) };
                let mut inv = vec![0; perm.len()];
                for (i, p) in perm.iter().enumerate() {
                    if let Some(x) = inv.get_mut(*p) {
                        *x = i;
                    }
                }
                let ybv = self.var_of(yb)?;
                let aty = self.ty(*arr)?;
                let c = self.let1("t", aty, Exp::Rearrange { arr: ybv, perm: inv });
                self.add_adj(adjs, &Atom::Var(*arr), Atom::Var(c), false)?;
            }
            Exp::Reshape { arr, .. } => {
                let Some(yb) = ybar else { return Ok(()) };
                let ybv = self.var_of(yb)?;
                let aty = self.ty(*arr)?;
                let c =
                    self.let1("t", aty.clone(), Exp::Reshape { arr: ybv, shape: shape_of(&aty) });
                self.add_adj(adjs, &Atom::Var(*arr), Atom::Var(c), false)?;
            }
            Exp::Copy(arr) => {
                if let Some(yb) = ybar {
                    self.add_adj(adjs, &Atom::Var(*arr), yb, ybar_owned)?;
                }
            }
            Exp::Concat { axis, arrs, .. } => {
                let Some(yb) = ybar else { return Ok(()) };
                let ybv = self.var_of(yb)?;
                let yty = self.ty(ybv)?;
                let ysh = shape_of(&yty);
                let mut off = i64c(0);
                for a in arrs {
                    let aty = self.ty(*a)?;
                    let ash = shape_of(&aty);
                    let len = ash.get(*axis).map(|d| dim_atom(*d)).unwrap_or(i64c(0));
                    let mut idx = Vec::new();
                    for k in 0..*axis {
                        let d = ysh.get(k).map(|d| dim_atom(*d)).unwrap_or(i64c(0));
                        idx.push(DimIndex::Slice { start: i64c(0), len: d, stride: i64c(1) });
                    }
                    idx.push(DimIndex::Slice { start: off, len, stride: i64c(1) });
                    let c = self.let1("t", aty, Exp::Index { arr: ybv, idx });
                    self.add_adj(adjs, &Atom::Var(*a), Atom::Var(c), false)?;
                    off = self.add(PrimType::I64, off, len);
                }
            }
            Exp::ArrayLit { elems, elem_ty } => {
                let Some(yb) = ybar else { return Ok(()) };
                let ybv = self.var_of(yb)?;
                for (k, e) in elems.iter().enumerate() {
                    if matches!(e, Atom::Var(_)) {
                        let c = self.let1(
                            "t",
                            elem_ty.clone(),
                            Exp::Index { arr: ybv, idx: vec![DimIndex::Fix(i64c(k as i64))] },
                        );
                        self.add_adj(adjs, e, Atom::Var(c), false)?;
                    }
                }
            }
            Exp::If { cond, then_body, else_body, .. } => {
                self.rev_if(s, *cond, then_body, else_body, adjs)?
            }
            Exp::Loop { params, form, body } => {
                let Some((bufs, n)) = info else {
                    return Err(internal(s.span, "loop without checkpoints"));
                };
                let LoopForm::For { i, it, .. } = form else {
                    return Err(internal(s.span, "while loop not converted"));
                };
                self.rev_loop(s, params, *i, *it, body, &bufs, n, adjs)?;
            }
            Exp::Map { w, lam, arrs } => self.rev_map(s, *w, lam, arrs, adjs)?,
            Exp::Reduce { .. } | Exp::Scan { .. } | Exp::Hist { .. } | Exp::Scatter { .. } => {
                self.rev_soac(s, adjs)?
            }
            Exp::Apply { .. } => return Err(unsupported(s.span, "differentiating a call")),
            Exp::Ad { .. } => return Err(internal(s.span, "nested `jvp`/`vjp` not expanded")),
        }
        Ok(())
    }

    /// Sum `a` (of type `ty`) over its `k` outer dimensions.
    pub fn sum_outer(&mut self, a: Atom, ty: &Type, k: usize) -> R<Atom> {
        let mut a = a;
        let mut ty = ty.clone();
        for _ in 0..k {
            let sh = shape_of(&ty);
            let Some(w) = sh.first().copied() else { break };
            let row = super::build::row_of(&ty);
            let av = self.var_of(a)?;
            let lam = self.add_lambda(&row)?;
            let ne = self.zeros(&row);
            a = Atom::Var(self.let1(
                "sum",
                row.clone(),
                Exp::Reduce {
                    w: dim_atom(w),
                    lam,
                    neutral: vec![ne],
                    arrs: vec![av],
                    commutative: true,
                },
            ));
            ty = row;
        }
        Ok(a)
    }

    /// `\a b -> a + b` on values of type `t`.
    pub fn add_lambda(&mut self, t: &Type) -> R<Lambda> {
        let pa = self.param("a", t.clone());
        let pb = self.param("b", t.clone());
        let tt = t.clone();
        self.lambda(vec![pa, pb], vec![t.clone()], move |ad, ps| {
            Ok(vec![ad.add_vals(&tt, Atom::Var(ps[0].var), Atom::Var(ps[1].var))?])
        })
    }

    /// The float variables free in `b` (used but bound outside), except `except`.
    pub fn free_floats(&self, b: &Body, except: &[Var]) -> Vec<Var> {
        walk::free_in_body(b)
            .into_iter()
            .filter(|v| !except.contains(v))
            .filter(|v| self.types.get(v).is_some_and(is_float))
            .collect()
    }

    /// Adjoints of the statement's float results, zeros where missing.
    fn pat_adjs(&mut self, pat: &[Param], adjs: &Adjs) -> Vec<(usize, Atom)> {
        let mut out = Vec::new();
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

    fn rev_if(&mut self, s: &Stm, cond: Atom, tb: &Body, eb: &Body, adjs: &mut Adjs) -> R<()> {
        let seeds = self.pat_adjs(&s.pat, adjs);
        // Sparse arrays get their adjoints as contributions, not as full arrays.
        let mut fv: Vec<Var> =
            self.free_floats(tb, &[]).into_iter().filter(|v| !self.sparse.contains(v)).collect();
        for v in self.free_floats(eb, &[]) {
            if !fv.contains(&v) && !self.sparse.contains(&v) {
                fv.push(v);
            }
        }
        let outer = std::mem::take(&mut self.contribs);
        // Each branch's reverse, and the contributions to sparse arrays made in it: these
        // become results of the reversed `if`, after the adjoints of `fv`.
        let branch = |ad: &mut Ad, b: &Body| -> R<(Body, Vec<Contrib>)> {
            let copy = ad.rename_body(b, &HashMap::new());
            let pairs: Vec<(Atom, Atom)> = seeds
                .iter()
                .map(|(k, a)| (copy.result.get(*k).copied().unwrap_or(*a), *a))
                .collect();
            ad.open();
            let r = ad.rev_scope(&copy, &pairs, Adjs::default(), &fv);
            let cs = std::mem::take(&mut ad.contribs);
            let mut res = r.as_ref().ok().cloned().unwrap_or_default();
            for c in &cs {
                res.extend(c.atoms());
            }
            let body = ad.close(res);
            r?;
            Ok((body, cs))
        };
        let branches = branch(self, tb).and_then(|t| Ok((t, branch(self, eb)?)));
        let ((mut then_body, tcs), (mut else_body, ecs)) = match branches {
            Ok(b) => b,
            Err(e) => {
                self.contribs = outer;
                return Err(e);
            }
        };
        // A branch contributes nothing to the other's reads: index -1, which the histogram
        // that adds the contributions up skips, and a zero value.
        let none = |ad: &mut Ad, cs: &[Contrib]| -> Vec<Atom> {
            let mut out = Vec::new();
            for c in cs {
                out.extend(c.idx.iter().map(|_| i64c(-1)));
                out.push(ad.zeros(&c.ty));
            }
            out
        };
        let no_else = none(self, &ecs);
        let no_then = none(self, &tcs);
        then_body.result.extend(no_else);
        let own = else_body.result.split_off(fv.len());
        else_body.result.extend(no_then);
        else_body.result.extend(own);
        let mut pat = Vec::new();
        let mut ret = Vec::new();
        for v in &fv {
            let t = self.ty(*v)?;
            pat.push(Param { var: self.fresh_like(*v, "_adj", t.clone()), ty: t.clone() });
            ret.push(t);
        }
        self.contribs = outer;
        for c in tcs.iter().chain(&ecs) {
            let mut idx = Vec::new();
            for _ in &c.idx {
                let v = self.fresh("i", Type::Prim(PrimType::I64));
                pat.push(Param { var: v, ty: Type::Prim(PrimType::I64) });
                ret.push(Type::Prim(PrimType::I64));
                idx.push(Atom::Var(v));
            }
            let v = self.fresh_like(c.arr, "_adj", c.ty.clone());
            pat.push(Param { var: v, ty: c.ty.clone() });
            ret.push(c.ty.clone());
            self.contribs.push(Contrib { arr: c.arr, idx, val: Atom::Var(v), ty: c.ty.clone() });
        }
        self.push(pat.clone(), Exp::If { cond, then_body, else_body, ret });
        for (v, p) in fv.iter().zip(&pat) {
            self.add_adj(adjs, &Atom::Var(*v), Atom::Var(p.var), true)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn rev_loop(
        &mut self,
        s: &Stm,
        params: &[(Param, Atom)],
        i: Var,
        it: IntType,
        body: &Body,
        bufs: &[Var],
        n: Atom,
        adjs: &mut Adjs,
    ) -> R<()> {
        let pvars: Vec<Var> = params.iter().map(|(p, _)| p.var).collect();
        let mut except = pvars.clone();
        except.push(i);
        let fv = self.free_floats(body, &except);
        // Reverse-loop parameters: adjoints of the float loop parameters, then of the free
        // variables.
        let mut rparams: Vec<(Param, Atom)> = Vec::new();
        let mut float_ks = Vec::new();
        for (k, ((p, _), pv)) in params.iter().zip(&s.pat).enumerate() {
            if is_float(&p.ty) {
                let init = match adjs.m.get(&pv.var) {
                    Some(a) => *a,
                    None => self.zeros(&p.ty),
                };
                let ap = self.fresh_like(p.var, "_adj", p.ty.clone());
                rparams.push((Param { var: ap, ty: p.ty.clone() }, init));
                float_ks.push(k);
            }
        }
        for v in &fv {
            let t = self.ty(*v)?;
            let init = match adjs.m.get(v) {
                Some(a) => *a,
                None => self.zeros(&t),
            };
            let ap = self.fresh_like(*v, "_adj", t.clone());
            rparams.push((Param { var: ap, ty: t }, init));
        }
        let j = self.fresh("j", Type::Prim(PrimType::I64));
        self.open();
        let r = (|| -> R<Vec<Atom>> {
            let nm1 = self.bin(BinOp::Sub, PrimType::I64, n, i64c(1));
            let irev = self.bin(BinOp::Sub, PrimType::I64, nm1, Atom::Var(j));
            let mut extra = HashMap::new();
            let iv = if it == IntType::I64 {
                self.var_of(irev)?
            } else {
                self.let1(
                    "i",
                    Type::Prim(PrimType::Int(it)),
                    Exp::Convert { from: PrimType::I64, to: PrimType::Int(it), arg: irev },
                )
            };
            extra.insert(i, iv);
            for ((p, _), b) in params.iter().zip(bufs) {
                let r = self.let1(
                    &self.name(p.var),
                    p.ty.clone(),
                    Exp::Index { arr: *b, idx: vec![DimIndex::Fix(irev)] },
                );
                extra.insert(p.var, r);
            }
            let copy = self.rename_body(body, &extra);
            let mut init = Adjs::default();
            for (v, (rp, _)) in fv.iter().zip(rparams.iter().skip(float_ks.len())) {
                init.m.insert(*v, Atom::Var(rp.var));
            }
            let seeds: Vec<(Atom, Atom)> = float_ks
                .iter()
                .zip(&rparams)
                .filter_map(|(k, (rp, _))| copy.result.get(*k).map(|r| (*r, Atom::Var(rp.var))))
                .collect();
            let mut want: Vec<Var> = float_ks
                .iter()
                .filter_map(|k| pvars.get(*k).and_then(|p| extra.get(p)).copied())
                .collect();
            want.extend(fv.iter().copied());
            self.rev_scope(&copy, &seeds, init, &want)
        })();
        let res = r.as_ref().ok().cloned().unwrap_or_default();
        let rbody = self.close(res);
        r?;
        let pat: Vec<Param> = rparams
            .iter()
            .map(|(p, _)| Param { var: self.fresh_like(p.var, "", p.ty.clone()), ty: p.ty.clone() })
            .collect();
        self.push(
            pat.clone(),
            Exp::Loop {
                params: rparams,
                form: LoopForm::For { i: j, it: IntType::I64, bound: n },
                body: rbody,
            },
        );
        for (k, p) in float_ks.iter().zip(&pat) {
            if let Some((_, init)) = params.get(*k) {
                self.add_adj(adjs, init, Atom::Var(p.var), false)?;
            }
        }
        for (v, p) in fv.iter().zip(pat.iter().skip(float_ks.len())) {
            adjs.m.insert(*v, Atom::Var(p.var));
            adjs.owned.insert(*v);
        }
        Ok(())
    }

    fn rev_map(&mut self, s: &Stm, w: Atom, lam: &Lambda, arrs: &[Var], adjs: &mut Adjs) -> R<()> {
        let pvars: Vec<Var> = lam.params.iter().map(|p| p.var).collect();
        if let Some((h, fv)) = self.one_hot_result(s, lam, arrs, adjs)? {
            return self.rev_map_at(lam, arrs, h, &fv, adjs);
        }
        let copy = self.rename_lambda(lam);
        // Only results with an adjoint are seeds (a missing one is zero). A result that is a
        // parameter or a free variable itself passes its adjoint straight to that array
        // (summed over the map for a free variable) instead of through the map.
        let bound: HashSet<Var> =
            copy.body.stms.iter().flat_map(|s| s.pat.iter()).map(|p| p.var).collect();
        let mut seeds = Vec::new();
        let mut direct: Vec<(Var, Atom)> = Vec::new();
        for (k, p) in s.pat.iter().enumerate() {
            let Some(a) = adjs.m.get(&p.var).copied() else { continue };
            if !is_float(&p.ty) {
                continue;
            }
            match copy.body.result.get(k) {
                Some(Atom::Var(v)) if !bound.contains(v) => direct.push((*v, a)),
                _ => seeds.push((k, a)),
            }
        }
        for (v, a) in &direct {
            match copy.params.iter().position(|p| p.var == *v) {
                Some(j) => {
                    if let Some(arr) = arrs.get(j) {
                        self.add_adj(adjs, &Atom::Var(*arr), *a, false)?;
                    }
                }
                None => {
                    let aty = self.atom_ty(a)?;
                    let c = self.sum_outer(*a, &aty, 1)?;
                    self.add_adj(adjs, &Atom::Var(*v), c, true)?;
                }
            }
        }
        if seeds.is_empty() {
            return Ok(());
        }
        // Variables the statements never mention get no adjoint from the lambda.
        let mut in_stms: HashSet<Var> = HashSet::new();
        let mut stms_only = Body { stms: copy.body.stms.clone(), result: Vec::new() };
        walk::body_vars(&mut stms_only, &mut |v, binder| {
            if !binder {
                in_stms.insert(*v);
            }
        });
        // Free arrays read only by indexing with fixed indices, at the lambda's top level or in
        // its branches (gathers): their adjoints are (index, value) pairs, results of the map,
        // added by a histogram after it, instead of a full-size array per element.
        let all_fv = self.free_floats(&lam.body, &pvars);
        let sparse: Vec<Var> = all_fv
            .iter()
            .filter(|a| matches!(self.ty(**a), Ok(Type::Array { .. })))
            .filter(|a| only_gathers(&copy.body, **a))
            .copied()
            .collect();
        let fv: Vec<Var> = all_fv
            .iter()
            .filter(|v| !sparse.contains(*v) && in_stms.contains(*v))
            .copied()
            .collect();
        let mut params = copy.params.clone();
        let mut seed_arrs = Vec::new();
        let mut pairs = Vec::new();
        for (k, a) in &seeds {
            let av = self.var_of(*a)?;
            let t = super::build::row_of(&self.ty(av)?);
            let p = self.param("res_adj", t);
            pairs.push((
                copy.body.result.get(*k).copied().unwrap_or(Atom::Var(p.var)),
                Atom::Var(p.var),
            ));
            params.push(p);
            seed_arrs.push(av);
        }
        // The float parameters that get an adjoint, with their arrays.
        let want_params: Vec<(Var, Var)> = copy
            .params
            .iter()
            .zip(arrs)
            .filter(|(p, _)| is_float(&p.ty) && in_stms.contains(&p.var))
            .map(|(p, a)| (p.var, *a))
            .collect();
        let mut want: Vec<Var> = want_params.iter().map(|(p, _)| *p).collect();
        let nwant_params = want.len();
        want.extend(fv.iter().copied());
        let mut ret = Vec::new();
        for v in &want {
            ret.push(self.ty(*v)?);
        }
        let nwant = want.len();
        let outer = std::mem::take(&mut self.contribs);
        let outer_sparse = self.sparse.clone();
        self.sparse.extend(sparse.iter().copied());
        self.open();
        // The contributions, gathered per array (and index count) into one per element of the
        // map: k of them as array literals of k indices and k values, so one histogram adds
        // up each array's adjoint. `found` has one representative per group, with its layout.
        let mut found: Vec<(Contrib, Layout)> = Vec::new();
        let r = self.rev_scope(&copy.body, &pairs, Adjs::default(), &want).and_then(|mut res| {
            let cs = std::mem::take(&mut self.contribs);
            let mut groups: Vec<Vec<Contrib>> = Vec::new();
            for c in cs {
                match groups.iter_mut().find(|g| g[0].arr == c.arr && g[0].idx.len() == c.idx.len())
                {
                    Some(g) => g.push(c),
                    None => groups.push(vec![c]),
                }
            }
            for g in groups {
                let k = g.len();
                if let Some(c) = self.element_contribs(&g)? {
                    let Some(Type::Array { shape, .. }) = c.idx.first().map(|_| &c.ty) else {
                        return Err(internal(self.span, "element contributions"));
                    };
                    let per = match shape[0] {
                        Dim::Const(n) => n as usize,
                        Dim::Var(_) => return Err(internal(self.span, "element contributions")),
                    };
                    res.extend(c.atoms());
                    found.push((c, Layout::Elements(per)));
                    continue;
                }
                let c = if k == 1 {
                    g[0].clone()
                } else {
                    let lit = |ad: &mut Ad, elems: Vec<Atom>, t: &Type| -> Atom {
                        let mut sh = vec![Dim::Const(k as i64)];
                        sh.extend(shape_of(t));
                        let ty = mk_ty(t.elem(), sh);
                        let elem_ty = t.clone();
                        Atom::Var(ad.let1("contribs", ty, Exp::ArrayLit { elems, elem_ty }))
                    };
                    let i64t = Type::Prim(PrimType::I64);
                    let idx = (0..g[0].idx.len())
                        .map(|p| lit(self, g.iter().map(|c| c.idx[p]).collect(), &i64t))
                        .collect();
                    let val = lit(self, g.iter().map(|c| c.val).collect(), &g[0].ty);
                    let ty = self.atom_ty(&val)?;
                    Contrib { arr: g[0].arr, idx, val, ty }
                };
                res.extend(c.atoms());
                found.push((c, Layout::Reads(k)));
            }
            Ok(res)
        });
        self.sparse = outer_sparse;
        self.contribs = outer;
        let res = r.as_ref().ok().cloned().unwrap_or_default();
        let body = self.close(res);
        r?;
        for (c, layout) in &found {
            let i64t = Type::Prim(PrimType::I64);
            let it = match layout {
                Layout::Reads(1) => i64t,
                Layout::Reads(k) | Layout::Elements(k) => {
                    mk_ty(PrimType::I64, vec![Dim::Const(*k as i64)])
                }
            };
            ret.extend(c.idx.iter().map(|_| it.clone()));
            ret.push(c.ty.clone());
        }
        let wd = super::build::atom_dim(w).ok_or_else(|| internal(s.span, "map width"))?;
        let pat: Vec<Param> = ret
            .iter()
            .map(|t| {
                let mut sh = vec![wd];
                sh.extend(shape_of(t));
                let ty = mk_ty(t.elem(), sh);
                Param { var: self.fresh("adj", ty.clone()), ty }
            })
            .collect();
        if pat.is_empty() {
            // Every adjoint went straight to its array: re-running the lambda would be dead.
            return Ok(());
        }
        let mut narrs = arrs.to_vec();
        narrs.extend(seed_arrs);
        self.push(pat.clone(), Exp::Map { w, lam: Lambda { params, body, ret }, arrs: narrs });
        for ((_, a), p) in want_params.iter().zip(&pat) {
            self.add_adj(adjs, &Atom::Var(*a), Atom::Var(p.var), true)?;
        }
        for (v, p) in fv.iter().zip(pat.iter().skip(nwant_params).take(nwant - nwant_params)) {
            let c = self.sum_outer(Atom::Var(p.var), &p.ty, 1)?;
            self.add_adj(adjs, &Atom::Var(*v), c, true)?;
        }
        let mut rest = pat.iter().skip(nwant);
        for (c, layout) in &found {
            let mut idx: Vec<Var> =
                c.idx.iter().filter_map(|_| rest.next().map(|p| p.var)).collect();
            let Some(mut vals) = rest.next().map(|p| p.var) else { break };
            let mut n = w;
            let (Layout::Reads(k) | Layout::Elements(k)) = layout;
            // Element contributions are arrays even when there is one of them (`[1]i64`).
            if *k > 1 || matches!(layout, Layout::Elements(_)) {
                // [w][k] → [w·k]: the k contributions of every element, one after another.
                n = self.bin(BinOp::Mul, PrimType::I64, w, i64c(*k as i64));
                let nd = super::build::atom_dim(n).ok_or_else(|| internal(s.span, "size"))?;
                let flat = |ad: &mut Ad, v: Var| -> R<Var> {
                    let t = ad.ty(v)?;
                    let mut sh = vec![nd];
                    sh.extend(shape_of(&t).into_iter().skip(2));
                    let ty = mk_ty(t.elem(), sh.clone());
                    Ok(ad.let1("flat", ty, Exp::Reshape { arr: v, shape: sh }))
                };
                for i in idx.iter_mut() {
                    *i = flat(self, *i)?;
                }
                vals = flat(self, vals)?;
            }
            let h = match layout {
                Layout::Reads(_) => self.scatter_add(c.arr, &idx, vals, n)?,
                Layout::Elements(_) => self.add_at_elements(c.arr, idx[0], vals, n)?,
            };
            self.add_adj(adjs, &Atom::Var(c.arr), Atom::Var(h), true)?;
        }
        Ok(())
    }

    /// The one-hot adjoint of the map `s`'s only result, with the function's free float
    /// variables, when the map can be reversed at that element alone ([`Ad::rev_map_at`]): none of the arrays or free variables involved take
    /// sparse contributions, which would need the enclosing map's bookkeeping.
    fn one_hot_result(
        &mut self,
        s: &Stm,
        lam: &Lambda,
        arrs: &[Var],
        adjs: &Adjs,
    ) -> R<Option<(OneHot, Vec<Var>)>> {
        let [p] = s.pat.as_slice() else { return Ok(None) };
        let Some(h) = adjs.one_hot.get(&p.var).copied() else { return Ok(None) };
        if adjs.m.get(&p.var) != Some(&Atom::Var(h.adj)) || p.ty.rank() != 1 || !is_float(&p.ty) {
            return Ok(None);
        }
        let pvars: Vec<Var> = lam.params.iter().map(|q| q.var).collect();
        let fv = self.free_floats(&lam.body, &pvars);
        if arrs.iter().chain(&fv).any(|v| self.sparse.contains(v)) {
            return Ok(None);
        }
        Ok(Some((h, fv)))
    }

    /// `ys = map f xs` reversed when `ys`'s adjoint is zero but at `i`: only `f xs[i]` is
    /// differentiated (its forward statements re-run for that element), under the adjoint's
    /// guard. k-means' distances to every center have the adjoint of their minimum: one
    /// center's `d` operations per point instead of all `k`'s.
    fn rev_map_at(
        &mut self,
        lam: &Lambda,
        arrs: &[Var],
        h: OneHot,
        fv: &[Var],
        adjs: &mut Adjs,
    ) -> R<()> {
        let copy = self.rename_lambda(lam);
        let pvars: Vec<Var> = copy.params.iter().map(|q| q.var).collect();
        // The element: each parameter bound to its array's row `i`.
        let mut stms = Vec::new();
        for (q, a) in copy.params.iter().zip(arrs) {
            stms.push(Stm {
                pat: vec![q.clone()],
                exp: Exp::Index { arr: *a, idx: vec![DimIndex::Fix(h.idx)] },
                span: self.span,
            });
        }
        stms.extend(copy.body.stms.iter().cloned());
        let body = Body { stms, result: copy.body.result.clone() };
        let want: Vec<Var> = pvars.iter().copied().chain(fv.iter().copied()).collect();
        let mut tys = Vec::new();
        for v in &want {
            tys.push(self.ty(*v)?);
        }
        let seed = body.result.first().copied().ok_or_else(|| internal(self.span, "map result"))?;
        self.open();
        let got = self.rev_scope(&body, &[(seed, h.val)], Adjs::default(), &want);
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                self.close(Vec::new());
                return Err(e);
            }
        };
        let then_body = self.close(got);
        self.open();
        let mut zeros = Vec::new();
        for t in &tys {
            zeros.push(self.zeros(t));
        }
        let else_body = self.close(zeros);
        let pat: Vec<Param> = tys
            .iter()
            .map(|t| Param { var: self.fresh("adj", t.clone()), ty: t.clone() })
            .collect();
        self.push(pat.clone(), Exp::If { cond: h.guard, then_body, else_body, ret: tys.clone() });
        let (rows, frees) = pat.split_at(pvars.len());
        for (v, q) in fv.iter().zip(frees) {
            self.add_adj(adjs, &Atom::Var(*v), Atom::Var(q.var), true)?;
        }
        // Each array's adjoint gets its element's at `i`, when `i` is in bounds.
        for ((a, q), t) in arrs.iter().zip(rows).zip(&tys) {
            if is_float(t) {
                self.add_at_if(adjs, *a, h.idx, Atom::Var(q.var), h.guard)?;
            }
        }
        Ok(())
    }

    /// `adj with [idx] = adj[idx] + val`, for the adjoint array `adj` of type `aty` whose
    /// element or row at `idx` has type `ty`.
    fn add_at(&mut self, adj: Var, idx: &[DimIndex], val: Atom, ty: &Type, aty: &Type) -> R<Var> {
        let cur = self.let1("cur", ty.clone(), Exp::Index { arr: adj, idx: idx.to_vec() });
        let new = self.add_vals(ty, Atom::Var(cur), val)?;
        Ok(self.let1("adj", aty.clone(), Exp::Update { arr: adj, idx: idx.to_vec(), value: new }))
    }

    /// `a`'s adjoint with `val` added at row `i` when `guard` holds (the index of an extremum,
    /// which an empty array does not have); the new adjoint's variable.
    pub fn add_at_if(
        &mut self,
        adjs: &mut Adjs,
        a: Var,
        i: Atom,
        val: Atom,
        guard: Atom,
    ) -> R<Var> {
        let aty = self.ty(a)?;
        let ty = super::build::row_of(&aty);
        let adj = self.owned_adj(adjs, a)?;
        let idx = [DimIndex::Fix(i)];
        self.open();
        let upd = self.add_at(adj, &idx, val, &ty, &aty)?;
        let then_body = self.close(vec![Atom::Var(upd)]);
        self.open();
        let else_body = self.close(vec![Atom::Var(adj)]);
        let r = self.let1(
            "adj",
            aty.clone(),
            Exp::If { cond: guard, then_body, else_body, ret: vec![aty] },
        );
        adjs.m.insert(a, Atom::Var(r));
        adjs.owned.insert(a);
        Ok(r)
    }

    /// A group of reads of one array in a map's function, reversed, as contributions to single
    /// elements when that takes at most [`MAX_ELEMENT_CONTRIBS`] per map element: the reads
    /// of rows of a constant size, or with several indices. Each element's index into the
    /// flattened array and its value are computed in the function (one array literal of each),
    /// so what the map returns is a histogram's input as it is, which a backend may add up as
    /// the map computes it; flattened after the map, rows would need index arrays built by
    /// two more maps. `None` for a group that is already that (single indices of elements) or
    /// too large.
    fn element_contribs(&mut self, g: &[Contrib]) -> R<Option<Contrib>> {
        let Some(first) = g.first() else { return Ok(None) };
        let row = shape_of(&first.ty);
        let Some(row_len) =
            row.iter().try_fold(
                1i64,
                |n, d| if let Dim::Const(c) = d { n.checked_mul(*c) } else { None },
            )
        else {
            return Ok(None);
        };
        let per = (g.len() as i64).saturating_mul(row_len);
        if first.idx.len() == 1 && row_len == 1 || !(1..=MAX_ELEMENT_CONTRIBS).contains(&per) {
            return Ok(None);
        }
        let elem = first.ty.elem();
        let dims = shape_of(&self.ty(first.arr)?);
        let (mut is, mut vs) = (Vec::new(), Vec::new());
        for c in g {
            // The row's first element in the flattened array; negative for a branch that
            // read nothing (its indices are -1), and then so are all of the row's elements.
            let mut f = c.idx[0];
            for (i, d) in c.idx.iter().zip(&dims).skip(1) {
                let m = self.bin(BinOp::Mul, PrimType::I64, f, dim_atom(*d));
                f = self.bin(BinOp::Add, PrimType::I64, m, *i);
            }
            let base = self.bin(BinOp::Mul, PrimType::I64, f, i64c(row_len));
            for e in 0..row_len {
                is.push(self.bin(BinOp::Add, PrimType::I64, base, i64c(e)));
                if row.is_empty() {
                    vs.push(c.val);
                    continue;
                }
                let mut at = Vec::new();
                let mut rem = e;
                for d in row.iter().rev() {
                    let Dim::Const(n) = d else { return Ok(None) };
                    at.push(DimIndex::Fix(i64c(rem % n)));
                    rem /= n;
                }
                at.reverse();
                let v = self.var_of(c.val)?;
                let x = self.let1("t", Type::Prim(elem), Exp::Index { arr: v, idx: at });
                vs.push(Atom::Var(x));
            }
        }
        let lit = |ad: &mut Ad, elems: Vec<Atom>, t: PrimType| {
            let ty = mk_ty(t, vec![Dim::Const(per)]);
            Atom::Var(ad.let1("contribs", ty, Exp::ArrayLit { elems, elem_ty: Type::Prim(t) }))
        };
        let idx = lit(self, is, PrimType::I64);
        let val = lit(self, vs, elem);
        Ok(Some(Contrib {
            arr: first.arr,
            idx: vec![idx],
            val,
            ty: mk_ty(elem, vec![Dim::Const(per)]),
        }))
    }

    /// An array shaped like `a` with `vals[j]` added at element `idx[j]` of `a` flattened
    /// (indices out of bounds add nothing).
    fn add_at_elements(&mut self, a: Var, idx: Var, vals: Var, n: Atom) -> R<Var> {
        let aty = self.ty(a)?;
        self.hist_flat(&aty, idx, vals, n)
    }

    /// An array shaped like `a` with `vals[j]` added at `a[idx[0][j], idx[1][j], ...]`: an
    /// element, or a row when there are fewer indices than `a`'s rank. Indices out of bounds
    /// add nothing (a branch not taken contributes at index -1).
    fn scatter_add(&mut self, a: Var, idx: &[Var], vals: Var, w: Atom) -> R<Var> {
        let aty = self.ty(a)?;
        let t = aty.elem();
        let sh = shape_of(&aty);
        let row: Vec<Dim> = sh.iter().skip(idx.len()).copied().collect();
        let wd = super::build::atom_dim(w).ok_or_else(|| internal(self.span, "width"))?;
        let i64t = Type::Prim(PrimType::I64);
        let mut rowlen = i64c(1);
        for d in &row {
            rowlen = self.bin(BinOp::Mul, PrimType::I64, rowlen, dim_atom(*d));
        }
        // The flat index of each contribution's first element.
        let first = if idx.len() == 1 && row.is_empty() {
            idx[0]
        } else {
            let ps: Vec<Param> = idx.iter().map(|_| self.param("i", i64t.clone())).collect();
            let outer: Vec<Dim> = sh.iter().take(idx.len()).copied().collect();
            let lam = self.lambda(ps, vec![i64t.clone()], move |ad, ps| {
                let mut f = i64c(0);
                for (p, d) in ps.iter().zip(&outer) {
                    let m = ad.bin(BinOp::Mul, PrimType::I64, f, dim_atom(*d));
                    f = ad.bin(BinOp::Add, PrimType::I64, m, Atom::Var(p.var));
                }
                // A negative index stays negative, so the whole row is skipped.
                Ok(vec![ad.bin(BinOp::Mul, PrimType::I64, f, rowlen)])
            })?;
            self.let1(
                "flat",
                Type::Array { elem: PrimType::I64, shape: vec![wd] },
                Exp::Map { w, lam, arrs: idx.to_vec() },
            )
        };
        let (is, vs, n) = if row.is_empty() {
            (first, vals, w)
        } else {
            // Every element of each row: [w][rowlen] flat indices, and the values flattened.
            let rd = super::build::atom_dim(rowlen).ok_or_else(|| internal(self.span, "row"))?;
            let iota = self.let1(
                "iota",
                Type::Array { elem: PrimType::I64, shape: vec![rd] },
                Exp::Iota { n: rowlen, start: i64c(0), step: i64c(1), it: IntType::I64 },
            );
            let pb = self.param("i", i64t.clone());
            let rty = Type::Array { elem: PrimType::I64, shape: vec![rd] };
            let lam = self.lambda(vec![pb], vec![rty.clone()], move |ad, ps| {
                let b = ps[0].var;
                let pc = ad.param("c", Type::Prim(PrimType::I64));
                let inner =
                    ad.lambda(vec![pc], vec![Type::Prim(PrimType::I64)], move |ad, ps| {
                        Ok(vec![ad.bin(
                            BinOp::Add,
                            PrimType::I64,
                            Atom::Var(b),
                            Atom::Var(ps[0].var),
                        )])
                    })?;
                Ok(vec![Atom::Var(ad.let1(
                    "flat",
                    Type::Array { elem: PrimType::I64, shape: vec![rd] },
                    Exp::Map { w: rowlen, lam: inner, arrs: vec![iota] },
                ))])
            })?;
            let fl = self.let1(
                "flat",
                Type::Array { elem: PrimType::I64, shape: vec![wd, rd] },
                Exp::Map { w, lam, arrs: vec![first] },
            );
            let n = self.bin(BinOp::Mul, PrimType::I64, w, rowlen);
            let nd = super::build::atom_dim(n).ok_or_else(|| internal(self.span, "size"))?;
            let is = self.let1(
                "flat",
                Type::Array { elem: PrimType::I64, shape: vec![nd] },
                Exp::Reshape { arr: fl, shape: vec![nd] },
            );
            let vs = self.let1(
                "flat",
                Type::Array { elem: t, shape: vec![nd] },
                Exp::Reshape { arr: vals, shape: vec![nd] },
            );
            (is, vs, n)
        };
        self.hist_flat(&aty, is, vs, n)
    }

    /// `hist (+)` of `vs` at `is`, indices of elements of an array of type `aty` flattened,
    /// into zeros of that type.
    fn hist_flat(&mut self, aty: &Type, is: Var, vs: Var, n: Atom) -> R<Var> {
        let t = aty.elem();
        let sh = shape_of(aty);
        let mut total = i64c(1);
        for d in &sh {
            total = self.bin(BinOp::Mul, PrimType::I64, total, dim_atom(*d));
        }
        let td = super::build::atom_dim(total).ok_or_else(|| internal(self.span, "size"))?;
        let fty = Type::Array { elem: t, shape: vec![td] };
        let z = self.zeros(&fty);
        let zv = self.var_of(z)?;
        let lam = self.add_lambda(&Type::Prim(t))?;
        let h = self.let1(
            "adj",
            fty,
            Exp::Hist {
                dest: vec![zv],
                lam,
                neutral: vec![fconst(t, 0.0)],
                is,
                vs: vec![vs],
                w: n,
            },
        );
        if sh.len() == 1 {
            Ok(h)
        } else {
            Ok(self.let1("adj", aty.clone(), Exp::Reshape { arr: h, shape: sh }))
        }
    }
}

/// How a map returns the contributions of its reads of one array, per element: `k` reads'
/// indices and values (rows, for reads of rows), or `k` single elements of the array
/// flattened ([`Ad::element_contribs`]).
enum Layout {
    Reads(usize),
    Elements(usize),
}

/// The most contributions to single elements a map element returns for one array.
const MAX_ELEMENT_CONTRIBS: i64 = 64;

/// Whether `a` is used in `b` only by reads `a[i, ...]` with fixed indices (of an element or a
/// row), in `b`'s statements or, recursively, in the branches of its `if`s; and at least once.
fn only_gathers(b: &Body, a: Var) -> bool {
    fn go(b: &Body, a: Var, reads: &mut usize) -> bool {
        for s in &b.stms {
            match &s.exp {
                Exp::Index { arr, idx } if *arr == a => {
                    let fixed =
                        idx.iter().all(|d| matches!(d, DimIndex::Fix(x) if *x != Atom::Var(a)));
                    if idx.is_empty() || !fixed {
                        return false;
                    }
                    *reads += 1;
                }
                Exp::If { cond, then_body, else_body, .. } => {
                    if *cond == Atom::Var(a) || !go(then_body, a, reads) || !go(else_body, a, reads)
                    {
                        return false;
                    }
                }
                e => {
                    let mut used = false;
                    crate::ir::lower::rewrite::walk_vars_exp(e, &mut |v| used |= v == a);
                    if used {
                        return false;
                    }
                }
            }
        }
        !b.result.contains(&Atom::Var(a))
    }
    let mut reads = 0;
    go(b, a, &mut reads) && reads > 0
}

/// The indices of `x[i, j, ...]` when all are integer constants.
fn const_index(idx: &[DimIndex]) -> Option<Vec<i64>> {
    idx.iter()
        .map(|d| match d {
            DimIndex::Fix(Atom::Const(c)) => c.as_i128().and_then(|k| i64::try_from(k).ok()),
            _ => None,
        })
        .collect()
}
