//! A small integer linear program solver: a dense two-phase simplex with depth-first branch and
//! bound for integrality, whose answers are exact and deterministic.
//!
//! The problems AUTOMAP builds are small (a few variables per application of one top-level
//! definition), so a dense tableau keeps the solver simple and free of dependencies (it runs in
//! wasm32 as is). The search runs in f64 with tolerances; the integer solution it returns is
//! checked exactly against the constraints, and if the check fails the same search is rerun over
//! exact rationals. Pivoting uses Bland's rule (no cycling); a branch-and-bound child starts from
//! its parent's optimal tableau plus the new bound row (dual simplex), not from scratch.
//! Branching takes the lowest-numbered fractional variable, rounding down first; ties between
//! optima are resolved by that fixed order, so the same problem always gives the same solution.
//! A presolve first substitutes away the equalities between two variables (`x = y + c`,
//! `x = c`) that make up most rank constraints, so the tableau only holds the variables that are
//! really free.

use std::cmp::Ordering;
use std::fmt;

/// A variable's index in its [`Problem`].
pub type Var = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Le,
    Eq,
    Ge,
}

#[derive(Clone, Debug)]
pub struct Constraint {
    pub terms: Vec<(Var, i64)>,
    pub cmp: Cmp,
    pub rhs: i64,
}

#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: String,
    /// Inclusive upper bound (every variable is at least 0).
    pub upper: Option<i64>,
    pub integer: bool,
}

/// Minimise `objective` subject to `constraints`, all variables non-negative.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub vars: Vec<VarInfo>,
    pub constraints: Vec<Constraint>,
    pub objective: Vec<(Var, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub values: Vec<i64>,
    pub objective: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IlpError {
    Infeasible,
    Unbounded,
    /// The search exceeded its node limit or exact arithmetic overflowed.
    TooLarge,
}

impl fmt::Display for IlpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IlpError::Infeasible => write!(f, "infeasible"),
            IlpError::Unbounded => write!(f, "unbounded"),
            IlpError::TooLarge => write!(f, "too large to solve"),
        }
    }
}

/// Branch-and-bound nodes explored before giving up.
const NODE_LIMIT: usize = 20_000;
/// Tableau cells built over a whole branch-and-bound search (see `solve_direct`).
/// The largest search in examples/ and tests/ builds about 15 million.
const WORK_LIMIT: usize = 100_000_000;

impl Problem {
    pub fn int_var(&mut self, name: impl Into<String>, upper: Option<i64>) -> Var {
        self.vars.push(VarInfo { name: name.into(), upper, integer: true });
        self.vars.len() - 1
    }

    pub fn binary(&mut self, name: impl Into<String>) -> Var {
        self.int_var(name, Some(1))
    }

    pub fn constrain(&mut self, terms: Vec<(Var, i64)>, cmp: Cmp, rhs: i64) {
        self.constraints.push(Constraint { terms, cmp, rhs });
    }

    /// The exact optimum with integral values for the integer variables.
    ///
    /// Equalities between at most two integer variables (`x = y + c`, `x = c`, which are most of
    /// AUTOMAP's rank constraints) are first eliminated by substitution (see [`presolve`]); the
    /// smaller problem is solved and its solution mapped back and checked exactly.
    pub fn solve(&self) -> Result<Solution, IlpError> {
        COUNTERS.with(|c| {
            let mut k = c.get();
            k.solves += 1;
            c.set(k)
        });
        let pre = presolve(self)?;
        // The search runs in f64 (with tolerances); its integer answer is checked exactly, and the
        // exact rational search is the fallback when the check fails.
        let reduced = match pre.reduced.solve_direct::<F64>() {
            Ok(s) if pre.reduced.satisfied(&s.values) => s,
            Err(e @ (IlpError::Infeasible | IlpError::Unbounded)) => return Err(e),
            _ => pre.reduced.solve_direct::<Rat>()?,
        };
        let values: Vec<i64> = pre
            .map
            .iter()
            .map(|&(v, d)| match v {
                Some(v) => reduced.values.get(v).and_then(|x| x.checked_add(d)),
                None => Some(d),
            })
            .collect::<Option<_>>()
            .ok_or(IlpError::TooLarge)?;
        let objective: i128 =
            self.objective.iter().map(|&(v, k)| k as i128 * values[v] as i128).sum();
        let objective = i64::try_from(objective).map_err(|_| IlpError::TooLarge)?;
        if !self.satisfied(&values) {
            // Never expected; the unreduced problem is the reference.
            return self.solve_direct::<Rat>();
        }
        Ok(Solution { values, objective })
    }

    /// [`Problem::solve`] without the presolve.
    fn solve_direct<N: Num>(&self) -> Result<Solution, IlpError> {
        let n = self.vars.len();
        let mut best: Option<(N, Vec<N>)> = None;
        let mut nodes = 0;
        // The budget counts tableau cells over the whole search: it bounds the work
        // deterministically (no clock), so a pathological program gives up quickly.
        let mut work = 0usize;
        let root = self.root_lp::<N>()?;
        // Depth first; a child is its parent's optimal LP plus one bound.
        let mut stack: Vec<(Lp<N>, Option<Bound>)> = vec![(root, None)];
        while let Some((mut lp, bound)) = stack.pop() {
            nodes += 1;
            COUNTERS.with(|c| {
                let mut k = c.get();
                k.nodes += 1;
                c.set(k)
            });
            if nodes > NODE_LIMIT {
                return Err(IlpError::TooLarge);
            }
            work += lp.cells();
            if work > WORK_LIMIT {
                return Err(IlpError::TooLarge);
            }
            if let Some((v, cmp, val)) = bound {
                match lp.add_bound(v, cmp, val) {
                    Ok(()) => {}
                    Err(IlpError::Infeasible) => continue,
                    Err(e) => return Err(e),
                }
            }
            let (obj, x) = lp.solution()?;
            if let Some((b, _)) = &best {
                // The objective has integer coefficients, so an integral optimum is at least
                // the relaxation's ceiling.
                if obj.ceil() >= b.ceil() {
                    continue;
                }
            }
            let frac = (0..n).find(|&i| self.vars[i].integer && !x[i].is_integer());
            match frac {
                None => best = Some((obj, x)),
                Some(i) => {
                    let fl = x[i].floor();
                    // Push "up" first so "down" is explored first.
                    stack.push((lp.clone(), Some((i, Cmp::Ge, fl + 1))));
                    stack.push((lp, Some((i, Cmp::Le, fl))));
                }
            }
        }
        let (obj, x) = best.ok_or(IlpError::Infeasible)?;
        let values: Vec<i64> = x.iter().map(|v| v.floor()).collect();
        if !obj.is_integer() || !x.iter().all(N::is_integer) {
            return Err(IlpError::TooLarge);
        }
        let objective: i128 =
            self.objective.iter().map(|&(v, k)| k as i128 * values[v] as i128).sum();
        let objective = i64::try_from(objective).map_err(|_| IlpError::TooLarge)?;
        Ok(Solution { values, objective })
    }

    /// Whether integer values satisfy every constraint and bound (checked exactly).
    pub fn satisfied(&self, values: &[i64]) -> bool {
        let bounds =
            self.vars.iter().zip(values).all(|(v, &x)| x >= 0 && v.upper.is_none_or(|u| x <= u));
        bounds
            && self.constraints.iter().all(|c| {
                let lhs: i128 = c.terms.iter().map(|&(v, k)| k as i128 * values[v] as i128).sum();
                let rhs = c.rhs as i128;
                match c.cmp {
                    Cmp::Le => lhs <= rhs,
                    Cmp::Eq => lhs == rhs,
                    Cmp::Ge => lhs >= rhs,
                }
            })
    }

    /// The root LP relaxation: every variable between 0 and its upper bound.
    fn root_lp<N: Num>(&self) -> Result<Lp<N>, IlpError> {
        let n = self.vars.len();
        let mut rows: Vec<(Vec<N>, Cmp, N)> = Vec::new();
        for c in &self.constraints {
            let mut a = vec![N::ZERO; n];
            for &(v, k) in &c.terms {
                a[v] = a[v].add(N::int(k as i128))?;
            }
            rows.push((a, c.cmp, N::int(c.rhs as i128)));
        }
        for (v, info) in self.vars.iter().enumerate() {
            if let Some(u) = info.upper {
                if u < 0 {
                    return Err(IlpError::Infeasible);
                }
                let mut a = vec![N::ZERO; n];
                a[v] = N::ONE;
                rows.push((a, Cmp::Le, N::int(u as i128)));
            }
        }
        let mut cost = vec![N::ZERO; n];
        for &(v, k) in &self.objective {
            cost[v] = cost[v].add(N::int(k as i128))?;
        }
        simplex(n, &rows, &cost)
    }
}

/// A problem with its two-variable equalities substituted away.
struct Presolved {
    reduced: Problem,
    /// Per original variable: `value = reduced[v] + d`, or the constant `d` when `v` is `None`.
    map: Vec<(Option<Var>, i64)>,
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
fn presolve(p: &Problem) -> Result<Presolved, IlpError> {
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
        out.sort_unstable_by_key(|t| t.0);
        let mut merged: Vec<(Var, i64)> = Vec::new();
        for (v, k) in out {
            match merged.last_mut() {
                Some(last) if last.0 == v => last.1 += k,
                _ => merged.push((v, k)),
            }
        }
        merged.retain(|t| t.1 != 0);
        (merged, r)
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
        out.sort_unstable_by_key(|t| t.0);
        let mut merged: Vec<(Var, i64)> = Vec::new();
        for (v, k) in out {
            match merged.last_mut() {
                Some(last) if last.0 == v => last.1 += k,
                _ => merged.push((v, k)),
            }
        }
        merged.retain(|t| t.1 != 0);
        Ok((merged, i64::try_from(r).map_err(|_| IlpError::TooLarge)?))
    };
    for c in &p.constraints {
        let (terms, rhs) = subst(&c.terms, c.rhs as i128)?;
        if terms.is_empty() {
            let ok = match c.cmp {
                Cmp::Le => 0 <= rhs,
                Cmp::Eq => 0 == rhs,
                Cmp::Ge => 0 >= rhs,
            };
            if !ok {
                return Err(IlpError::Infeasible);
            }
            continue;
        }
        reduced.constraints.push(Constraint { terms, cmp: c.cmp, rhs });
    }
    let (objective, _) = subst(&p.objective, 0)?;
    reduced.objective = objective;
    Ok(Presolved { reduced, map })
}

/// Two-phase simplex: minimise `cost · x` subject to `rows`, `x >= 0`.
fn simplex<N: Num>(n: usize, rows: &[(Vec<N>, Cmp, N)], cost: &[N]) -> Result<Lp<N>, IlpError> {
    let m = rows.len();
    // Columns: n structural, one slack/surplus per inequality, one artificial per row that needs
    // one, then the right-hand side.
    let n_slack = rows.iter().filter(|r| r.1 != Cmp::Eq).count();
    let mut n_art = 0;
    let mut kinds = Vec::with_capacity(m);
    for (_, cmp, rhs) in rows {
        // Normalise to rhs >= 0; a `<=` row with rhs >= 0 starts with its slack basic.
        let neg = rhs.is_neg();
        let cmp = match (cmp, neg) {
            (Cmp::Le, true) => Cmp::Ge,
            (Cmp::Ge, true) => Cmp::Le,
            (c, _) => *c,
        };
        if cmp != Cmp::Le {
            n_art += 1;
        }
        kinds.push((neg, cmp));
    }
    let width = n + n_slack + n_art + 1;
    let rhs_col = width - 1;
    let mut t = vec![vec![N::ZERO; width]; m];
    let mut basis = vec![0usize; m];
    let mut slack = n;
    let mut art = n + n_slack;
    for (i, ((a, _, rhs), (neg, cmp))) in rows.iter().zip(&kinds).enumerate() {
        let sign = if *neg { N::int(-1) } else { N::ONE };
        for j in 0..n {
            t[i][j] = a[j].mul(sign)?;
        }
        t[i][rhs_col] = rhs.mul(sign)?;
        match cmp {
            Cmp::Le => {
                t[i][slack] = N::ONE;
                basis[i] = slack;
                slack += 1;
            }
            Cmp::Ge => {
                t[i][slack] = N::int(-1);
                slack += 1;
                t[i][art] = N::ONE;
                basis[i] = art;
                art += 1;
            }
            Cmp::Eq => {
                t[i][art] = N::ONE;
                basis[i] = art;
                art += 1;
            }
        }
    }
    let art_start = n + n_slack;
    // Phase 1: minimise the sum of the artificials.
    if n_art > 0 {
        let mut c1 = vec![N::ZERO; width - 1];
        for c in c1.iter_mut().skip(art_start) {
            *c = N::ONE;
        }
        run(&mut t, &mut basis, &c1, width - 1)?;
        let infeas =
            basis.iter().zip(&t).any(|(&b, row)| b >= art_start && !row[rhs_col].is_zero());
        if infeas {
            return Err(IlpError::Infeasible);
        }
        // Drive artificials out of the basis where possible (they are at zero).
        for i in 0..m {
            if basis[i] >= art_start {
                if let Some(j) = (0..art_start).find(|&j| !t[i][j].is_zero()) {
                    pivot(&mut t, &mut basis, i, j)?;
                }
            }
        }
    }
    // Rows whose artificial could not be driven out are zero outside the artificial columns
    // (redundant equalities); they and the artificial columns go, which changes no pivot below.
    let keep: Vec<bool> = basis.iter().map(|&b| b < art_start).collect();
    let mut k = 0;
    t.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    basis.retain(|&b| b < art_start);
    for row in &mut t {
        row.drain(art_start..art_start + n_art);
    }
    // Phase 2: the real objective.
    let mut c2 = vec![N::ZERO; art_start];
    c2[..n].copy_from_slice(cost);
    run(&mut t, &mut basis, &c2, art_start)?;
    Ok(Lp { t, basis, cost: c2, n })
}

/// A branching bound: `x_v <= k` (`Cmp::Le`) or `x_v >= k` (`Cmp::Ge`).
type Bound = (Var, Cmp, i64);

/// An LP solved to optimality, kept so that a branch-and-bound child (one more bound) starts
/// from its parent's optimal basis: the new bound row is expressed in the nonbasic columns and
/// a few dual simplex pivots restore feasibility, instead of two phases from scratch.
#[derive(Clone)]
struct Lp<N> {
    /// Rows over the structural and slack columns, right-hand side last.
    t: Vec<Vec<N>>,
    basis: Vec<usize>,
    /// Per column (without the right-hand side).
    cost: Vec<N>,
    n: usize,
}

impl<N: Num> Lp<N> {
    fn cells(&self) -> usize {
        self.t.len() * (self.cost.len() + 1)
    }

    /// (optimum, values of the structural variables).
    fn solution(&self) -> Result<(N, Vec<N>), IlpError> {
        let rhs = self.cost.len();
        let mut x = vec![N::ZERO; self.n];
        for (i, &b) in self.basis.iter().enumerate() {
            if b < self.n {
                x[b] = self.t[i][rhs];
            }
        }
        let mut obj = N::ZERO;
        for (c, xj) in self.cost.iter().zip(&x) {
            obj = obj.add(c.mul(*xj)?)?;
        }
        Ok((obj, x))
    }

    /// Add `x_v <= val` (`Cmp::Le`) or `x_v >= val` (`Cmp::Ge`) and re-optimise.
    fn add_bound(&mut self, v: Var, cmp: Cmp, val: i64) -> Result<(), IlpError> {
        let s = self.cost.len();
        for row in &mut self.t {
            row.insert(s, N::ZERO);
        }
        self.cost.push(N::ZERO);
        let rhs = s + 1;
        // x_v + s = val, or -x_v + s = -val, with x_v replaced by its row when basic.
        let mut row = vec![N::ZERO; rhs + 1];
        match self.basis.iter().position(|&b| b == v) {
            Some(r) => {
                for (c, x) in row.iter_mut().zip(&self.t[r]) {
                    *c = N::ZERO.sub(*x)?;
                }
                row[v] = N::ZERO;
                row[rhs] = N::int(val as i128).add(row[rhs])?;
            }
            None => {
                row[v] = N::ONE;
                row[rhs] = N::int(val as i128);
            }
        }
        if cmp == Cmp::Ge {
            for c in &mut row {
                *c = N::ZERO.sub(*c)?;
            }
        }
        row[s] = N::ONE;
        self.t.push(row);
        self.basis.push(s);
        self.dual_simplex()?;
        run(&mut self.t, &mut self.basis, &self.cost, s + 1)
    }

    /// Dual simplex with Bland's rule (leave: the infeasible row with the smallest basic
    /// variable; enter: the smallest ratio, ties to the smallest column), from a dual feasible
    /// basis.
    fn dual_simplex(&mut self) -> Result<(), IlpError> {
        let rhs = self.cost.len();
        let d = reduced_costs(&self.t, &self.basis, &self.cost)?;
        let mut d = d;
        for _ in 0..100_000 {
            let leave = (0..self.t.len())
                .filter(|&i| self.t[i][rhs].is_neg())
                .min_by_key(|&i| self.basis[i]);
            let Some(r) = leave else { return Ok(()) };
            let mut enter: Option<(usize, N)> = None;
            for (j, (&a, dj)) in self.t[r][..rhs].iter().zip(&d).enumerate() {
                if !a.is_neg() {
                    continue;
                }
                let ratio = dj.div(N::ZERO.sub(a)?)?;
                if enter.as_ref().is_none_or(|(_, q)| ratio.cmp_to(q) == Ordering::Less) {
                    enter = Some((j, ratio));
                }
            }
            let Some((j, _)) = enter else { return Err(IlpError::Infeasible) };
            pivot(&mut self.t, &mut self.basis, r, j)?;
            let f = d[j];
            for (dk, pv) in d.iter_mut().zip(&self.t[r]) {
                if !pv.is_zero() {
                    *dk = dk.sub(f.mul(*pv)?)?.clean();
                }
            }
            COUNTERS.with(|c| c.set(c.get().with_pivot()));
        }
        Err(IlpError::TooLarge)
    }
}

/// The reduced costs `c_j - c_B B^-1 a_j` of every column (and minus the objective at the end).
fn reduced_costs<N: Num>(t: &[Vec<N>], basis: &[usize], cost: &[N]) -> Result<Vec<N>, IlpError> {
    let width = t.first().map_or(0, |r| r.len());
    let mut d: Vec<N> = cost.to_vec();
    d.resize(width.max(cost.len()), N::ZERO);
    for (i, &b) in basis.iter().enumerate() {
        let cb = cost[b];
        if cb.is_zero() {
            continue;
        }
        for (dj, tij) in d.iter_mut().zip(&t[i]) {
            if !tij.is_zero() {
                *dj = dj.sub(cb.mul(*tij)?)?;
            }
        }
    }
    Ok(d)
}

/// Primal simplex iterations with Bland's rule over the columns `0..cols`. The reduced costs
/// `c_j - c_B B^-1 a_j` are kept as an extra row updated by each pivot (basic columns stay at
/// exactly zero), so an iteration scans one row instead of recomputing every column.
fn run<N: Num>(
    t: &mut [Vec<N>],
    basis: &mut [usize],
    cost: &[N],
    cols: usize,
) -> Result<(), IlpError> {
    let width = t.first().map_or(0, |r| r.len());
    let rhs_col = width.saturating_sub(1);
    let mut d = reduced_costs(t, basis, cost)?;
    for _ in 0..100_000 {
        let Some(j) = (0..cols).find(|&j| d[j].is_neg()) else { return Ok(()) };
        // Ratio test; Bland: smallest ratio, ties to the smallest basic index.
        let mut leave: Option<(usize, N)> = None;
        for (i, row) in t.iter().enumerate() {
            if row[j].is_pos() {
                let ratio = row[rhs_col].div(row[j])?;
                let better = match &leave {
                    None => true,
                    Some((l, r)) => match ratio.cmp_to(r) {
                        Ordering::Less => true,
                        Ordering::Equal => basis[i] < basis[*l],
                        Ordering::Greater => false,
                    },
                };
                if better {
                    leave = Some((i, ratio));
                }
            }
        }
        let Some((i, _)) = leave else { return Err(IlpError::Unbounded) };
        pivot(t, basis, i, j)?;
        let f = d[j];
        for (dk, pv) in d.iter_mut().zip(&t[i]) {
            if !pv.is_zero() {
                *dk = dk.sub(f.mul(*pv)?)?.clean();
            }
        }
        COUNTERS.with(|c| c.set(c.get().with_pivot()));
    }
    Err(IlpError::TooLarge)
}

fn pivot<N: Num>(
    t: &mut [Vec<N>],
    basis: &mut [usize],
    i: usize,
    j: usize,
) -> Result<(), IlpError> {
    let inv = t[i][j].recip()?;
    let prow: Vec<N> = t[i].iter().map(|v| v.mul(inv)).collect::<Result<_, _>>()?;
    let nz: Vec<usize> = (0..prow.len()).filter(|&c| !prow[c].is_zero()).collect();
    for (k, row) in t.iter_mut().enumerate() {
        if k == i {
            continue;
        }
        let f = row[j];
        if f.is_zero() {
            continue;
        }
        for &c in &nz {
            row[c] = row[c].sub(f.mul(prow[c])?)?.clean();
        }
    }
    t[i] = prow;
    basis[i] = j;
    Ok(())
}

/// Work done by the solver on this thread since the last [`take_counters`] (for benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Calls of [`Problem::solve`].
    pub solves: usize,
    /// Branch-and-bound nodes (LP relaxations).
    pub nodes: usize,
    /// Simplex pivots.
    pub pivots: usize,
}

impl Counters {
    fn with_pivot(mut self) -> Self {
        self.pivots += 1;
        self
    }
}

thread_local! {
    static COUNTERS: std::cell::Cell<Counters> = const { std::cell::Cell::new(Counters { solves: 0, nodes: 0, pivots: 0 }) };
}

/// The counters accumulated so far, reset to zero.
pub fn take_counters() -> Counters {
    COUNTERS.with(|c| c.replace(Counters::default()))
}

/// An exact rational with a positive denominator, in lowest terms; overflow is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rat {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The arithmetic the simplex runs on: exact rationals ([`Rat`]) or tolerant floats ([`F64`]).
trait Num: Copy + fmt::Debug {
    const ZERO: Self;
    const ONE: Self;
    fn int(n: i128) -> Self;
    fn add(self, o: Self) -> Result<Self, IlpError>;
    fn sub(self, o: Self) -> Result<Self, IlpError>;
    fn mul(self, o: Self) -> Result<Self, IlpError>;
    fn recip(self) -> Result<Self, IlpError>;
    fn div(self, o: Self) -> Result<Self, IlpError> {
        self.mul(o.recip()?)
    }
    fn is_zero(&self) -> bool;
    fn is_neg(&self) -> bool;
    fn is_pos(&self) -> bool;
    fn is_integer(&self) -> bool;
    fn floor(&self) -> i64;
    fn ceil(&self) -> i64;
    fn cmp_to(&self, o: &Self) -> Ordering;
    /// Snap round-off noise to zero (keeps float tableaux sparse and their signs exact).
    fn clean(self) -> Self {
        self
    }
}

impl Rat {
    fn new(num: i128, den: i128) -> Result<Rat, IlpError> {
        if den == 0 {
            return Err(IlpError::TooLarge);
        }
        let g = gcd(num, den).max(1);
        let (mut num, mut den) = (num / g, den / g);
        if den < 0 {
            num = num.checked_neg().ok_or(IlpError::TooLarge)?;
            den = den.checked_neg().ok_or(IlpError::TooLarge)?;
        }
        Ok(Rat { num, den })
    }
}

impl Num for Rat {
    const ZERO: Self = Rat { num: 0, den: 1 };
    const ONE: Self = Rat { num: 1, den: 1 };

    fn int(n: i128) -> Rat {
        Rat { num: n, den: 1 }
    }

    fn add(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_add(o.num).ok_or(IlpError::TooLarge)?));
        }
        if self.den == o.den {
            return Rat::new(self.num.checked_add(o.num).ok_or(IlpError::TooLarge)?, self.den);
        }
        let a = self.num.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        let b = o.num.checked_mul(self.den).ok_or(IlpError::TooLarge)?;
        let d = self.den.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        Rat::new(a.checked_add(b).ok_or(IlpError::TooLarge)?, d)
    }

    fn sub(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_sub(o.num).ok_or(IlpError::TooLarge)?));
        }
        self.add(Rat { num: -o.num, den: o.den })
    }

    fn mul(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_mul(o.num).ok_or(IlpError::TooLarge)?));
        }
        let n = self.num.checked_mul(o.num).ok_or(IlpError::TooLarge)?;
        let d = self.den.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        Rat::new(n, d)
    }

    fn recip(self) -> Result<Rat, IlpError> {
        Rat::new(self.den, self.num)
    }

    fn is_zero(&self) -> bool {
        self.num == 0
    }
    fn is_neg(&self) -> bool {
        self.num < 0
    }
    fn is_pos(&self) -> bool {
        self.num > 0
    }
    fn is_integer(&self) -> bool {
        self.den == 1
    }
    fn floor(&self) -> i64 {
        self.num.div_euclid(self.den) as i64
    }
    fn ceil(&self) -> i64 {
        -((-self.num).div_euclid(self.den)) as i64
    }
    fn cmp_to(&self, o: &Rat) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

/// Absolute tolerance of the float simplex: coefficients are small integers and the problems
/// small, so genuine nonzero values are far above it.
const EPS: f64 = 1e-9;

/// An f64 with tolerant comparisons, for the fast search; its answers are checked exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
struct F64(f64);

fn finite(x: f64) -> Result<F64, IlpError> {
    if x.is_finite() && x.abs() < 1e15 {
        Ok(F64(x))
    } else {
        Err(IlpError::TooLarge)
    }
}

impl Num for F64 {
    const ZERO: Self = F64(0.0);
    const ONE: Self = F64(1.0);

    fn int(n: i128) -> F64 {
        F64(n as f64)
    }
    fn add(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 + o.0)
    }
    fn sub(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 - o.0)
    }
    fn mul(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 * o.0)
    }
    fn recip(self) -> Result<F64, IlpError> {
        if self.is_zero() {
            return Err(IlpError::TooLarge);
        }
        finite(1.0 / self.0)
    }
    fn is_zero(&self) -> bool {
        self.0.abs() <= EPS
    }
    fn is_neg(&self) -> bool {
        self.0 < -EPS
    }
    fn is_pos(&self) -> bool {
        self.0 > EPS
    }
    fn is_integer(&self) -> bool {
        (self.0 - self.0.round()).abs() <= 1e-6
    }
    fn floor(&self) -> i64 {
        if self.is_integer() {
            self.0.round() as i64
        } else {
            self.0.floor() as i64
        }
    }
    fn ceil(&self) -> i64 {
        if self.is_integer() {
            self.0.round() as i64
        } else {
            self.0.ceil() as i64
        }
    }
    fn cmp_to(&self, o: &F64) -> Ordering {
        let tol = EPS * 1f64.max(self.0.abs()).max(o.0.abs());
        if (self.0 - o.0).abs() <= tol {
            Ordering::Equal
        } else if self.0 < o.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }
    fn clean(self) -> F64 {
        if self.is_zero() {
            F64::ZERO
        } else {
            self
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let term = |v: Var, k: i64| -> String {
            match k {
                1 => self.vars[v].name.clone(),
                -1 => format!("-{}", self.vars[v].name),
                k => format!("{k}*{}", self.vars[v].name),
            }
        };
        let sum = |ts: &[(Var, i64)]| -> String {
            if ts.is_empty() {
                return "0".to_string();
            }
            ts.iter().map(|&(v, k)| term(v, k)).collect::<Vec<_>>().join(" + ").replace("+ -", "- ")
        };
        writeln!(f, "  minimise {}", sum(&self.objective))?;
        for c in &self.constraints {
            let op = match c.cmp {
                Cmp::Le => "<=",
                Cmp::Eq => "=",
                Cmp::Ge => ">=",
            };
            writeln!(f, "  {} {op} {}", sum(&c.terms), c.rhs)?;
        }
        let vars: Vec<String> = self
            .vars
            .iter()
            .map(|v| match v.upper {
                Some(1) => format!("{} in {{0,1}}", v.name),
                Some(u) => format!("{} in 0..={u}", v.name),
                None => format!("{} >= 0", v.name),
            })
            .collect();
        writeln!(f, "  variables: {}", vars.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knapsack_optimum() {
        // maximise 5a + 4b + 3c  s.t. 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8
        // (as minimisation); the integer optimum is a=2, b=0, c=1 with value 13.
        let mut p = Problem::default();
        let a = p.int_var("a", None);
        let b = p.int_var("b", None);
        let c = p.int_var("c", None);
        p.objective = vec![(a, -5), (b, -4), (c, -3)];
        p.constrain(vec![(a, 2), (b, 3), (c, 1)], Cmp::Le, 5);
        p.constrain(vec![(a, 4), (b, 1), (c, 2)], Cmp::Le, 11);
        p.constrain(vec![(a, 3), (b, 4), (c, 2)], Cmp::Le, 8);
        let s = p.solve().unwrap();
        assert_eq!(s.objective, -13);
        assert_eq!(s.values, vec![2, 0, 1]);
    }

    #[test]
    fn binary_knapsack_needs_branching() {
        // Items (weight, value): (5,10), (4,40), (6,30), (3,50); capacity 10 -> items 2 and 4, 90.
        let mut p = Problem::default();
        let xs: Vec<Var> = (0..4).map(|i| p.binary(format!("x{i}"))).collect();
        let w = [5, 4, 6, 3];
        let v = [10, 40, 30, 50];
        p.objective = xs.iter().zip(v).map(|(&x, v)| (x, -v)).collect();
        p.constrain(xs.iter().zip(w).map(|(&x, w)| (x, w)).collect(), Cmp::Le, 10);
        let s = p.solve().unwrap();
        assert_eq!(s.objective, -90);
        assert_eq!(s.values, vec![0, 1, 0, 1]);
    }

    #[test]
    fn infeasible_and_unbounded() {
        let mut p = Problem::default();
        let x = p.int_var("x", None);
        p.constrain(vec![(x, 2)], Cmp::Eq, 3);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));

        let mut p = Problem::default();
        let x = p.int_var("x", None);
        let y = p.int_var("y", Some(4));
        p.constrain(vec![(x, 1), (y, 1)], Cmp::Le, 3);
        p.constrain(vec![(x, 1)], Cmp::Ge, 5);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));

        let mut p = Problem::default();
        let x = p.int_var("x", None);
        p.objective = vec![(x, -1)];
        assert_eq!(p.solve(), Err(IlpError::Unbounded));
    }

    /// `M = 0 ∨ R = 0` by big-M binaries, with `M + 1 = R + 2` (the rank equality of
    /// `sqrt [1,2,3]`-like applications): the only solution with R = 0 is M = 1.
    #[test]
    fn big_m_disjunction() {
        let u = 32;
        let mut p = Problem::default();
        let m = p.int_var("M", Some(u));
        let r = p.int_var("R", Some(u));
        let bm = p.binary("bM");
        let br = p.binary("bR");
        p.constrain(vec![(m, 1), (bm, -u)], Cmp::Le, 0);
        p.constrain(vec![(r, 1), (br, -u)], Cmp::Le, 0);
        p.constrain(vec![(bm, 1), (br, 1)], Cmp::Le, 1);
        p.constrain(vec![(m, 1), (r, -1)], Cmp::Eq, 1);
        p.objective = vec![(m, 1), (r, 1)];
        let s = p.solve().unwrap();
        assert_eq!(s.values[..2], [1, 0]);
        // Forcing R >= 1 makes the disjunction infeasible.
        p.constrain(vec![(r, 1)], Cmp::Ge, 1);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
    }

    /// `T = max(0, R - F)` through an auxiliary T minimised in the objective.
    #[test]
    fn max_by_auxiliary_variable() {
        for (rank, frame, want) in [(3, 1, 2), (1, 3, 0), (2, 2, 0)] {
            let mut p = Problem::default();
            let r = p.int_var("R", None);
            let f = p.int_var("F", None);
            let t = p.int_var("T", None);
            p.constrain(vec![(r, 1)], Cmp::Eq, rank);
            p.constrain(vec![(f, 1)], Cmp::Eq, frame);
            p.constrain(vec![(t, 1), (r, -1), (f, 1)], Cmp::Ge, 0);
            p.objective = vec![(t, 1)];
            let s = p.solve().unwrap();
            assert_eq!(s.values[t], want);
            assert_eq!(s.objective, want);
        }
    }

    #[test]
    fn no_good_cut_finds_second_optimum() {
        // x + y = 1 over binaries: two optima; cutting the first gives the other.
        let mut p = Problem::default();
        let x = p.binary("x");
        let y = p.binary("y");
        p.constrain(vec![(x, 1), (y, 1)], Cmp::Eq, 1);
        p.objective = vec![(x, 1), (y, 1)];
        let s = p.solve().unwrap();
        assert_eq!(s.values, vec![1, 0]);
        p.constrain(vec![(x, 1), (y, -1)], Cmp::Le, 0);
        let s2 = p.solve().unwrap();
        assert_eq!(s2.values, vec![0, 1]);
    }

    #[test]
    fn deterministic() {
        let mut p = Problem::default();
        let xs: Vec<Var> = (0..6).map(|i| p.int_var(format!("x{i}"), Some(5))).collect();
        p.constrain(xs.iter().map(|&x| (x, 1)).collect(), Cmp::Eq, 7);
        p.objective = xs.iter().map(|&x| (x, 1)).collect();
        let a = p.solve().unwrap();
        for _ in 0..5 {
            assert_eq!(p.solve().unwrap(), a);
        }
        assert!(p.satisfied(&a.values));
    }

    /// Equalities `x = y + c` and `x = c` are substituted away before the simplex; the optimum
    /// is the same as without the presolve.
    #[test]
    fn presolve_keeps_the_optimum() {
        let mut p = Problem::default();
        let x = p.int_var("x", None);
        let y = p.int_var("y", None);
        let z = p.int_var("z", Some(9));
        let w = p.int_var("w", None);
        let b = p.binary("b");
        p.constrain(vec![(x, 1), (y, -1)], Cmp::Eq, 2); // x = y + 2
        p.constrain(vec![(z, 2), (y, -2)], Cmp::Eq, -2); // z = y - 1
        p.constrain(vec![(w, 1)], Cmp::Eq, 3);
        p.constrain(vec![(x, 1), (w, 1), (b, -5)], Cmp::Ge, 6);
        p.constrain(vec![(y, 1), (b, 4)], Cmp::Le, 5);
        p.objective = vec![(x, 1), (z, 1), (b, 3)];
        let pre = presolve(&p).unwrap();
        assert_eq!(pre.reduced.vars.len(), 2, "x, y, z share one variable, w is fixed");
        let with = p.solve().unwrap();
        let without = p.solve_direct::<Rat>().unwrap();
        assert_eq!(with.objective, without.objective);
        assert!(p.satisfied(&with.values));
        assert_eq!(with.values, vec![3, 1, 0, 3, 0]);
    }

    #[test]
    fn presolve_detects_infeasible_equality_chains() {
        // x = y + 1, y = z + 1, z = x + 1: no solution.
        let mut p = Problem::default();
        let v: Vec<Var> = (0..3).map(|i| p.int_var(format!("x{i}"), None)).collect();
        for i in 0..3 {
            p.constrain(vec![(v[i], 1), (v[(i + 1) % 3], -1)], Cmp::Eq, 1);
        }
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
        // x = y - 3 forces a negative x once y = 2.
        let mut p = Problem::default();
        let x = p.int_var("x", None);
        let y = p.int_var("y", None);
        p.constrain(vec![(x, 1), (y, -1)], Cmp::Eq, -3);
        p.constrain(vec![(y, 1)], Cmp::Eq, 2);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
        // An upper bound violated through the chain.
        let mut p = Problem::default();
        let x = p.int_var("x", Some(1));
        let y = p.int_var("y", None);
        p.constrain(vec![(x, 1), (y, -1)], Cmp::Eq, 2);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
        assert_eq!(p.solve_direct::<Rat>(), Err(IlpError::Infeasible));
    }
}
