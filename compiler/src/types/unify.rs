//! Unification with occurs check, overloading classes and sizes, and the size-aware variants the
//! solver needs: equality up to sizes (`:>`), the join of branches (`if`, `match`), and loops.

use crate::syntax::ast::{Liftedness, Name};

use super::ity::{DVar, Dim, PrimSet, Store, TVar, Ty};
use super::poly::{for_each_atom, from_poly, is_compound, to_poly, Poly};

/// Why two types do not unify. The solver turns this into a diagnostic with the constraint's span.
#[derive(Clone, Debug)]
pub(crate) enum Mismatch {
    /// The types differ in structure: report the two whole types.
    Types,
    /// Two known, different sizes. `outer` when they are the outermost dimensions of the types.
    Size { expected: Dim, found: Dim, outer: bool },
    /// An overloaded type met a type outside its class.
    Class { set: PrimSet, found: Ty },
    /// A type that must not contain functions met one that does.
    Fun { found: Ty },
    /// Binding a variable to a type containing it.
    Occurs,
}

/// How sizes are treated.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mode<'a> {
    /// Sizes need not agree (`e :> t`).
    pub ignore_dims: bool,
    /// Sizes named here (in either type) match anything (`let [n] p = e`).
    pub wild: &'a [Name],
}

/// `a = b` for sizes in normal form that differ, at least one computed: the one binding that
/// makes them equal when their difference has a single size variable, alone in a term whose
/// coefficient divides every other coefficient (`n₁ + 1 = m` gives `n₁ = m - 1`, `2*n₁ = 2*k`
/// gives `n₁ = k`: sizes are below 2^63, so no wrapped solution is a size); otherwise nothing
/// (the sizes differ, or too little is known yet to tell).
fn solve_for_one(a: &Dim, b: &Dim) -> Option<(DVar, Dim)> {
    // A size variable on both sides would cancel: `n₁ + n₂ = n₁` says `n₂ = 0` only by
    // accident of what is unknown yet, so such sizes stay different.
    let vars = |d: &Dim| {
        let mut vs = Vec::new();
        for_each_atom(d, &mut |x| {
            if let Dim::Var(v) = x {
                vs.push(*v)
            }
        });
        vs
    };
    let (va, vb) = (vars(a), vars(b));
    if va.iter().any(|v| vb.contains(v)) {
        return None;
    }
    let diff = to_poly(a).sub(&to_poly(b));
    let mut var = None;
    for (m, c) in diff.terms() {
        let mut has_var = false;
        for x in m {
            for_each_atom(x, &mut |y| has_var |= matches!(y, Dim::Var(_)));
        }
        if !has_var {
            continue;
        }
        match (m.as_slice(), var) {
            ([Dim::Var(v)], None) => var = Some((*v, *c)),
            _ => return None,
        }
    }
    let (v, c) = var?;
    // c·v + rest = 0, so v = -rest / c.
    let rest = diff.sub(&Poly::atom(Dim::Var(v)).scale(c));
    let quotient = rest.divide_exactly(c.checked_neg()?)?;
    Some((v, from_poly(quotient)))
}

impl Store {
    pub fn unify(&mut self, expected: &Ty, found: &Ty, mode: Mode) -> Result<(), Mismatch> {
        self.unify_at(expected, found, mode, true)
    }

    fn unify_at(&mut self, a: &Ty, b: &Ty, mode: Mode, outer: bool) -> Result<(), Mismatch> {
        let a = self.resolve(a);
        let b = self.resolve(b);
        match (&a, &b) {
            (Ty::Err, Ty::Var(v)) | (Ty::Var(v), Ty::Err) => {
                if self.tvar(*v).rigid.is_none() {
                    self.bind(*v, Ty::Err);
                }
                Ok(())
            }
            (Ty::Err, _) | (_, Ty::Err) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(()),
            (Ty::Var(x), _) if self.tvar(*x).rigid.is_none() => self.bind_var(*x, &b, mode),
            (_, Ty::Var(y)) if self.tvar(*y).rigid.is_none() => self.bind_var(*y, &a, mode),
            (Ty::Prim(p), Ty::Prim(q)) if p == q => Ok(()),
            (Ty::Array { dim: d1, elem: e1, .. }, Ty::Array { dim: d2, elem: e2, .. }) => {
                self.unify_dim(d1, d2, mode, outer)?;
                self.unify_at(e1, e2, mode, false)
            }
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                for (x, y) in xs.iter().zip(ys) {
                    self.unify_at(x, y, mode, false)?;
                }
                Ok(())
            }
            (Ty::Record(xs), Ty::Record(ys))
                if xs.len() == ys.len() && xs.keys().zip(ys.keys()).all(|(a, b)| a == b) =>
            {
                for (x, y) in xs.values().zip(ys.values()) {
                    self.unify_at(x, y, mode, false)?;
                }
                Ok(())
            }
            (Ty::Sum(xs), Ty::Sum(ys))
                if xs.len() == ys.len()
                    && xs
                        .iter()
                        .zip(ys)
                        .all(|((c, ts), (d, us))| c == d && ts.len() == us.len()) =>
            {
                for (x, y) in xs.values().flatten().zip(ys.values().flatten()) {
                    self.unify_at(x, y, mode, false)?;
                }
                Ok(())
            }
            (
                Ty::Arrow { param: p1, from: f1, to: t1 },
                Ty::Arrow { param: p2, from: f2, to: t2 },
            ) => {
                self.unify_at(f1, f2, mode, false)?;
                let t1 = self.zonk(t1);
                let t2 = self.zonk(t2);
                let p1 = p1.as_ref().filter(|p| t1.mentions(p));
                let p2 = p2.as_ref().filter(|p| t2.mentions(p));
                let (t1, t2) = match (p1, p2) {
                    (Some(x), Some(y)) if x == y => (t1, t2),
                    (Some(x), Some(y)) => {
                        let z = Dim::Name(self.invent("p"));
                        (t1.subst_name(x, &z), t2.subst_name(y, &z))
                    }
                    (Some(x), None) => {
                        let k =
                            self.existential("the size of a function's result", Default::default());
                        (t1.subst_name(x, &k), t2)
                    }
                    (None, Some(y)) => {
                        let k =
                            self.existential("the size of a function's result", Default::default());
                        (t1, t2.subst_name(y, &k))
                    }
                    (None, None) => (t1, t2),
                };
                self.unify_at(&t1, &t2, mode, false)
            }
            _ => Err(Mismatch::Types),
        }
    }

    pub fn unify_dim(
        &mut self,
        d1: &Dim,
        d2: &Dim,
        mode: Mode,
        outer: bool,
    ) -> Result<(), Mismatch> {
        if mode.ignore_dims {
            return Ok(());
        }
        let d1 = self.dim(d1);
        let d2 = self.dim(d2);
        let wild = |d: &Dim| matches!(d, Dim::Name(n) if mode.wild.contains(n));
        if d1 == d2 || wild(&d1) || wild(&d2) {
            return Ok(());
        }
        let mismatch = || Mismatch::Size { expected: d1.clone(), found: d2.clone(), outer };
        match (&d1, &d2) {
            (Dim::Var(v), d) | (d, Dim::Var(v)) => {
                if d.mentions_var(*v) {
                    // `n = n + 1` has no solution.
                    return Err(mismatch());
                }
                self.dvars[*v as usize].bound = Some(d.clone());
                self.binds += 1;
                Ok(())
            }
            _ if is_compound(&d1) || is_compound(&d2) => match solve_for_one(&d1, &d2) {
                Some((v, d)) => {
                    self.dvars[v as usize].bound = Some(d);
                    self.binds += 1;
                    Ok(())
                }
                None => Err(mismatch()),
            },
            _ => Err(mismatch()),
        }
    }

    pub fn bind(&mut self, v: TVar, t: Ty) {
        self.tvars[v as usize].bound = Some(t);
        self.binds += 1;
    }

    /// Bind a flexible variable, checking the occurs condition and its class.
    fn bind_var(&mut self, v: TVar, t: &Ty, mode: Mode) -> Result<(), Mismatch> {
        let t = if mode.ignore_dims { self.fresh_dims(&self.zonk(t)) } else { t.clone() };
        if self.occurs(v, &t) {
            return Err(Mismatch::Occurs);
        }
        let info = self.tvar(v).clone();
        let t = if info.plain { t.without_unique() } else { t };
        if let Some(set) = info.prims {
            match &t {
                Ty::Prim(p) if set.contains(*p) => {}
                Ty::Var(w) if self.tvar(*w).rigid.is_none() => {
                    let w = *w as usize;
                    let merged = match self.tvars[w].prims {
                        Some(s) => s.intersect(set),
                        None => set,
                    };
                    if merged.is_empty() {
                        return Err(Mismatch::Class { set, found: t.clone() });
                    }
                    self.tvars[w].prims = Some(merged);
                }
                Ty::Err => {}
                _ => return Err(Mismatch::Class { set, found: t.clone() }),
            }
        }
        if info.no_fun {
            self.forbid_functions(&t)?;
        }
        self.bind(v, t);
        Ok(())
    }

    /// Require that `t` has no function types, now and after later bindings.
    pub fn forbid_functions(&mut self, t: &Ty) -> Result<(), Mismatch> {
        let z = self.zonk(t);
        if z.contains_arrow() {
            return Err(Mismatch::Fun { found: z });
        }
        let mut vs = Vec::new();
        self.free_tvars(&z, &mut vs);
        for w in vs {
            let info = self.tvar_mut(w);
            if let Some((_, Liftedness::Lifted)) = info.rigid {
                return Err(Mismatch::Fun { found: z });
            }
            info.no_fun = true;
        }
        Ok(())
    }

    /// Require that `t` is one of the primitive types in `set`.
    pub fn require_prim(&mut self, t: &Ty, set: PrimSet) -> Result<(), Mismatch> {
        match self.resolve(t) {
            Ty::Prim(p) if set.contains(p) => Ok(()),
            Ty::Err => Ok(()),
            Ty::Var(v) if self.tvar(v).rigid.is_none() => {
                let info = self.tvar_mut(v);
                let merged = match info.prims {
                    Some(s) => s.intersect(set),
                    None => set,
                };
                if merged.is_empty() {
                    return Err(Mismatch::Class { set, found: Ty::Var(v) });
                }
                info.prims = Some(merged);
                Ok(())
            }
            other => Err(Mismatch::Class { set, found: other }),
        }
    }

    /// The same type with every size replaced by a fresh size variable.
    pub fn fresh_dims(&mut self, t: &Ty) -> Ty {
        t.map_dims(&mut |_| {
            self.dvars.push(Default::default());
            Dim::Var(self.dvars.len() as u32 - 1)
        })
    }

    /// A loop parameter's type: the initial value's shape with sizes to be found.
    pub fn loop_param_dims(&mut self, t: &Ty) -> Ty {
        t.map_dims(&mut |_| {
            self.dvars.push(super::ity::DVarInfo { loop_param: true, ..Default::default() });
            Dim::Var(self.dvars.len() as u32 - 1)
        })
    }

    /// Is `d` a loop parameter's size not known yet, or a branch join's existential of one?
    fn loop_sized(&self, d: &Dim) -> bool {
        match d {
            Dim::Var(v) => self.dvars[*v as usize].loop_param,
            Dim::Name(n) => self.alternatives.contains_key(n),
            _ => false,
        }
    }

    /// The sizes `d` may be: those of a branch join's existential, else `d` itself.
    pub fn alternatives_of(&self, d: &Dim) -> Vec<Dim> {
        match d {
            Dim::Name(n) => self.alternatives.get(n).cloned().unwrap_or_else(|| vec![d.clone()]),
            _ => vec![d.clone()],
        }
    }

    /// The type of `if c then a else b`: `a` and `b` must agree, except that two different known
    /// sizes give a fresh existential.
    pub fn join(&mut self, a: &Ty, b: &Ty, why: &str, span: crate::Span) -> Result<Ty, Mismatch> {
        let a = self.resolve(a);
        let b = self.resolve(b);
        match (&a, &b) {
            // A constructor's type not known yet (`if c then #some (iota n) else none`) takes the
            // other branch's constructors with sizes of its own, which the join then compares.
            (Ty::Var(v), Ty::Sum(_)) | (Ty::Sum(_), Ty::Var(v))
                if self.tvar(*v).rigid.is_none() =>
            {
                let sum = if matches!(a, Ty::Sum(_)) { &a } else { &b };
                let copy = self.fresh_dims(sum);
                self.unify(&Ty::Var(*v), &copy, Mode::default())?;
                if matches!(a, Ty::Sum(_)) {
                    self.join(&a, &copy, why, span)
                } else {
                    self.join(&copy, &b, why, span)
                }
            }
            (Ty::Var(_), _) | (_, Ty::Var(_)) | (Ty::Err, _) | (_, Ty::Err) => {
                self.unify(&a, &b, Mode::default())?;
                Ok(a)
            }
            (
                Ty::Array { dim: d1, elem: e1, unique: u1 },
                Ty::Array { dim: d2, elem: e2, unique: u2 },
            ) => {
                let d1 = self.dim(d1);
                let d2 = self.dim(d2);
                let dim = match (&d1, &d2) {
                    _ if d1 == d2 => d1,
                    // A loop parameter's size is not fixed by a branch: the loop's result
                    // decides it from what each branch may be (`alternatives`).
                    _ if self.loop_sized(&d1) || self.loop_sized(&d2) => {
                        let mut alts = self.alternatives_of(&d1);
                        alts.extend(self.alternatives_of(&d2));
                        let k = self.existential(why, span);
                        if let Dim::Name(n) = &k {
                            self.alternatives.insert(n.clone(), alts);
                        }
                        k
                    }
                    // A size not known yet becomes the other branch's, unless that one is
                    // computed (from it, or from names the unknown size may not see: `xs[0:i-1]`
                    // against a parameter's `xs`) or is itself known only at run time (a nested
                    // `if`'s).
                    (Dim::Var(_), d) | (d, Dim::Var(_)) => {
                        let existential = is_compound(d)
                            || matches!(d, Dim::Name(n) if self.invented.contains_key(n));
                        if !existential && self.unify_dim(&d1, &d2, Mode::default(), false).is_ok()
                        {
                            d1
                        } else {
                            self.existential(why, span)
                        }
                    }
                    _ => self.existential(why, span),
                };
                let elem = self.join(e1, e2, why, span)?;
                Ok(Ty::Array { dim, elem: Box::new(elem), unique: *u1 && *u2 })
            }
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                let mut out = Vec::new();
                for (x, y) in xs.iter().zip(ys) {
                    out.push(self.join(x, y, why, span)?);
                }
                Ok(Ty::Tuple(out))
            }
            (Ty::Record(xs), Ty::Record(ys))
                if xs.len() == ys.len() && xs.keys().zip(ys.keys()).all(|(a, b)| a == b) =>
            {
                let mut out = std::collections::BTreeMap::new();
                for ((n, x), y) in xs.iter().zip(ys.values()) {
                    out.insert(n.clone(), self.join(x, y, why, span)?);
                }
                Ok(Ty::Record(out))
            }
            (Ty::Sum(xs), Ty::Sum(ys))
                if xs.len() == ys.len()
                    && xs.iter().zip(ys).all(|((a, x), (b, y))| a == b && x.len() == y.len()) =>
            {
                let mut out = std::collections::BTreeMap::new();
                for ((n, x), y) in xs.iter().zip(ys.values()) {
                    let ps = x.iter().zip(y).map(|(x, y)| self.join(x, y, why, span));
                    out.insert(n.clone(), ps.collect::<Result<_, _>>()?);
                }
                Ok(Ty::Sum(out))
            }
            _ => {
                self.unify(&a, &b, Mode::default())?;
                Ok(a)
            }
        }
    }

    /// Collect corresponding sizes of three types of the same shape (loop parameter, initial
    /// value, body result); positions where the shapes differ are skipped.
    pub fn zip_dims3(&self, a: &Ty, b: &Ty, c: &Ty, out: &mut Vec<(Dim, Dim, Dim)>) {
        let (a, b, c) = (self.resolve(a), self.resolve(b), self.resolve(c));
        match (&a, &b, &c) {
            (
                Ty::Array { dim: d1, elem: e1, .. },
                Ty::Array { dim: d2, elem: e2, .. },
                Ty::Array { dim: d3, elem: e3, .. },
            ) => {
                out.push((d1.clone(), d2.clone(), d3.clone()));
                self.zip_dims3(e1, e2, e3, out);
            }
            (Ty::Tuple(xs), Ty::Tuple(ys), Ty::Tuple(zs))
                if xs.len() == ys.len() && ys.len() == zs.len() =>
            {
                for ((x, y), z) in xs.iter().zip(ys).zip(zs) {
                    self.zip_dims3(x, y, z, out);
                }
            }
            (Ty::Record(xs), Ty::Record(ys), Ty::Record(zs)) => {
                for (n, x) in xs {
                    if let (Some(y), Some(z)) = (ys.get(n), zs.get(n)) {
                        self.zip_dims3(x, y, z, out);
                    }
                }
            }
            _ => {}
        }
    }
}
