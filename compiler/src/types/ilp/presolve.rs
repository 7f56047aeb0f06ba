//! Presolve: the equalities between two variables that make up most rank constraints are
//! substituted away before the search.

use super::{Cmp, Constraint, IlpError, Problem, Var, VarInfo};

/// A problem with its two-variable equalities substituted away.
pub(super) struct Presolved {
    pub reduced: Problem,
    /// Per original variable: `value = reduced[v] + d`, or the constant `d` when `v` is `None`.
    pub map: Vec<(Option<Var>, i64)>,
}

/// Union-find with offsets over the integer variables plus a constant node (index `n`, value 0):
/// `value(x) = value(parent) + offset`.
struct Classes {
    parent: Vec<(usize, i64)>,
}

impl Classes {
    fn find(&mut self, x: usize) -> (usize, i64) {
        let (mut y, mut d) = (x, 0i64);
        while self.parent[y].0 != y {
            d += self.parent[y].1;
            y = self.parent[y].0;
        }
        self.parent[x] = (y, d);
        (y, d)
    }

    /// Record `value(a) = value(b) + c`; `Err` when it contradicts what is known. The root kept
    /// is the constant if either class has it, else the lower-numbered one (a fixed choice, so
    /// the reduced problem, and with it the solution, is deterministic).
    fn union(&mut self, a: usize, b: usize, c: i64) -> Result<bool, IlpError> {
        let (ra, da) = self.find(a);
        let (rb, db) = self.find(b);
        if ra == rb {
            return if da == db + c { Ok(false) } else { Err(IlpError::Infeasible) };
        }
        // value(ra) = value(rb) + db + c - da
        let off = db.checked_add(c).and_then(|x| x.checked_sub(da)).ok_or(IlpError::TooLarge)?;
        let n = self.parent.len() - 1;
        if rb == n || (ra != n && ra > rb) {
            self.parent[ra] = (rb, off);
        } else {
            self.parent[rb] = (ra, -off);
        }
        Ok(true)
    }
}

/// Eliminate equalities `k·x = r` and `k·x - k·y = r` over integer variables (to a fixpoint, as
/// each substitution can shorten others), fix variables whose upper bound is 0, and drop the
/// constraints left without variables (or report them infeasible). Each class of equal-up-to-a-
/// constant variables becomes one variable of the reduced problem, shifted so that every member
/// is non-negative exactly when it is, with the tightest upper bound among its members.
pub(super) fn presolve(p: &Problem) -> Result<Presolved, IlpError> {
    let n = p.vars.len();
    let mut cl = Classes { parent: (0..=n).map(|i| (i, 0)).collect() };
    for (v, info) in p.vars.iter().enumerate() {
        match info.upper {
            Some(u) if u < 0 => return Err(IlpError::Infeasible),
            Some(0) if info.integer => {
                cl.union(v, n, 0)?;
            }
            _ => {}
        }
    }
    // Substitute the classes into a constraint: (terms by root, rhs), terms merged and sorted.
    let rewrite = |cl: &mut Classes, terms: &[(Var, i64)], rhs: i64| {
        let mut out: Vec<(Var, i64)> = Vec::new();
        let mut r = rhs as i128;
        for &(v, k) in terms {
            if !p.vars[v].integer {
                out.push((v, k));
                continue;
            }
            let (root, d) = cl.find(v);
            r -= k as i128 * d as i128;
            if root != n {
                out.push((root, k));
            }
        }
        (merge_terms(out), r)
    };
    loop {
        let mut changed = false;
        for c in p.constraints.iter().filter(|c| c.cmp == Cmp::Eq) {
            let (terms, r) = rewrite(&mut cl, &c.terms, c.rhs);
            if terms.iter().any(|&(v, _)| v >= n || !p.vars[v].integer) {
                continue;
            }
            match terms.as_slice() {
                [] if r != 0 => return Err(IlpError::Infeasible),
                [(x, k)] => {
                    if r % *k as i128 != 0 {
                        return Err(IlpError::Infeasible);
                    }
                    let val = i64::try_from(r / *k as i128).map_err(|_| IlpError::TooLarge)?;
                    changed |= cl.union(*x, n, val)?;
                }
                [(x, a), (y, b)] if *a == -*b => {
                    if r % *a as i128 != 0 {
                        return Err(IlpError::Infeasible);
                    }
                    let c = i64::try_from(r / *a as i128).map_err(|_| IlpError::TooLarge)?;
                    // a·x - a·y = r: value(x) = value(y) + r/a
                    changed |= cl.union(*x, *y, c)?;
                }
                _ => {}
            }
        }
        if !changed {
            break;
        }
    }
    // Per root: the shift that keeps every member non-negative, and the tightest upper bound.
    let mut shift = vec![0i64; n];
    let root_of: Vec<(usize, i64)> = (0..n).map(|v| cl.find(v)).collect();
    for (v, &(root, d)) in root_of.iter().enumerate() {
        if root == n {
            if d < 0 || p.vars[v].upper.is_some_and(|u| d > u) {
                return Err(IlpError::Infeasible);
            }
        } else {
            shift[root] = shift[root].max(-d);
        }
    }
    // value(v) = value(root) + d = y + (shift[root] + d), y >= 0 the reduced variable.
    let mut reduced = Problem::default();
    let mut index = vec![usize::MAX; n];
    let mut map = Vec::with_capacity(n);
    for (v, &(root, d)) in root_of.iter().enumerate() {
        if root == n {
            map.push((None, d));
            continue;
        }
        if index[root] == usize::MAX {
            index[root] = reduced.vars.len();
            reduced.vars.push(VarInfo {
                name: p.vars[root].name.clone(),
                upper: None,
                integer: p.vars[root].integer,
            });
        }
        let off = shift[root] + d;
        let rv = &mut reduced.vars[index[root]];
        if let Some(u) = p.vars[v].upper {
            let u = u - off;
            if u < 0 {
                return Err(IlpError::Infeasible);
            }
            rv.upper = Some(rv.upper.map_or(u, |w| w.min(u)));
        }
        map.push((Some(index[root]), off));
    }
    // Constraints in terms of the reduced variables: value(v) = y + off.
    let subst = |terms: &[(Var, i64)], rhs: i128| -> Result<(Vec<(Var, i64)>, i64), IlpError> {
        let mut r = rhs;
        let mut out: Vec<(Var, i64)> = Vec::new();
        for &(v, k) in terms {
            let (y, off) = map[v];
            r -= k as i128 * off as i128;
            if let Some(y) = y {
                out.push((y, k));
            }
        }
        Ok((merge_terms(out), i64::try_from(r).map_err(|_| IlpError::TooLarge)?))
    };
    for c in &p.constraints {
        let (terms, rhs) = subst(&c.terms, c.rhs as i128)?;
        if terms.is_empty() {
            if !c.cmp.holds(0, rhs) {
                return Err(IlpError::Infeasible);
            }
            continue;
        }
        reduced.constraints.push(Constraint { terms, cmp: c.cmp, rhs });
    }
    // Clauses: a literal on a fixed variable is decided here (a true one satisfies its clause,
    // a false one drops out); a clause left with one literal is a constraint.
    'clauses: for c in &p.clauses {
        let mut lits = Vec::new();
        for &(v, cmp, k) in c {
            let (y, off) = map[v];
            let k = k.checked_sub(off).ok_or(IlpError::TooLarge)?;
            match y {
                Some(y) => lits.push((y, cmp, k)),
                None => {
                    if cmp.holds(0, k) {
                        continue 'clauses;
                    }
                }
            }
        }
        match lits.as_slice() {
            [] => return Err(IlpError::Infeasible),
            [(y, cmp, k)] => {
                reduced.constraints.push(Constraint { terms: vec![(*y, 1)], cmp: *cmp, rhs: *k })
            }
            _ => reduced.clauses.push(lits),
        }
    }
    let (objective, _) = subst(&p.objective, 0)?;
    reduced.objective = objective;
    Ok(Presolved { reduced, map })
}

/// Terms sorted by variable, one per variable, zero coefficients dropped.
fn merge_terms(mut terms: Vec<(Var, i64)>) -> Vec<(Var, i64)> {
    terms.sort_unstable_by_key(|t| t.0);
    let mut merged: Vec<(Var, i64)> = Vec::new();
    for (v, k) in terms {
        match merged.last_mut() {
            Some(last) if last.0 == v => last.1 += k,
            _ => merged.push((v, k)),
        }
    }
    merged.retain(|t| t.1 != 0);
    merged
}
