//! The LP relaxations of the branch and bound: a bounded-variable dual simplex on a compact
//! dense tableau (one row per basic variable, one column per nonbasic one).
//!
//! Constraint row i gets a slack `s_i = b_i - a_i·x` whose bounds encode the comparison (`<=`:
//! `s_i >= 0`; `>=`: `s_i <= 0`; `=`: `s_i = 0`), so the slacks are the first basis and variable
//! bounds are bounds, not rows. Each structural variable starts at the bound its cost prefers
//! (lower when the cost is non-negative), which makes that basis dual feasible; the dual simplex
//! then restores primal feasibility, so no phase 1 is needed. A branch tightens one bound of
//! one variable, which keeps the basis dual feasible: the child re-optimises from its parent's
//! tableau in a few dual pivots, and the tableau never grows.
//!
//! Pivoting follows Bland's rule (the leaving row is the infeasible basic variable with the
//! smallest index, the entering column the smallest ratio with ties to the smallest index), so
//! the search never cycles and is deterministic.

use std::cmp::Ordering;

use super::num::Num;
use super::{Cmp, IlpError, Problem, COUNTERS};

/// Stands in for a missing upper bound of a variable whose cost is negative, so that it can
/// start at an upper bound. An optimum that leaves such a variable there is unbounded (or needs
/// values far beyond anything an ILP here can mean).
const BIG: i128 = 1 << 40;

/// Dual simplex iterations per LP before giving up.
const PIVOT_LIMIT: usize = 100_000;

#[derive(Clone)]
pub(super) struct Lp<N> {
    /// `rows × cols`, row-major. Row i reads `x_{basic[i]} = β_i - Σ_k t[i][k]·x_{nonbasic[k]}`.
    t: Vec<N>,
    cols: usize,
    /// `β_i`: row i's constant term, so the values can be recomputed without the round-off that
    /// incremental updates pick up (see [`Lp::refresh`]).
    beta: Vec<N>,
    basic: Vec<usize>,
    nonbasic: Vec<usize>,
    /// Reduced cost per column: the objective is `z_0 + Σ_k d[k]·x_{nonbasic[k]}`.
    d: Vec<N>,
    /// Current value per variable (structural first, then one slack per row).
    val: Vec<N>,
    lo: Vec<Option<N>>,
    up: Vec<Option<N>>,
    /// Per variable: its upper bound is [`BIG`], not the problem's.
    artificial: Vec<bool>,
    /// Per variable, when nonbasic: it sits at its upper bound (else at its lower bound).
    at_up: Vec<bool>,
    /// Per structural variable.
    cost: Vec<N>,
}

impl<N: Num> Lp<N> {
    /// The relaxation of `p` (every variable between 0 and its upper bound), solved.
    pub fn new(p: &Problem) -> Result<Lp<N>, IlpError> {
        let n = p.vars.len();
        let m = p.constraints.len();
        let mut cost = vec![N::ZERO; n];
        for &(v, k) in &p.objective {
            cost[v] = cost[v].add(N::int(k as i128))?;
        }
        let mut lo = Vec::with_capacity(n + m);
        let mut up = Vec::with_capacity(n + m);
        let mut artificial = vec![false; n + m];
        let mut at_up = vec![false; n + m];
        let mut val = vec![N::ZERO; n + m];
        for (v, info) in p.vars.iter().enumerate() {
            lo.push(Some(N::ZERO));
            match info.upper {
                Some(u) if u < 0 => return Err(IlpError::Infeasible),
                Some(u) => up.push(Some(N::int(u as i128))),
                None if cost[v].is_neg() => {
                    up.push(Some(N::int(BIG)));
                    artificial[v] = true;
                }
                None => up.push(None),
            }
            if cost[v].is_neg() {
                at_up[v] = true;
                val[v] = up[v].unwrap_or(N::ZERO);
            }
        }
        let mut t = vec![N::ZERO; m * n];
        for (i, c) in p.constraints.iter().enumerate() {
            let (l, u) = match c.cmp {
                Cmp::Le => (Some(N::ZERO), None),
                Cmp::Ge => (None, Some(N::ZERO)),
                Cmp::Eq => (Some(N::ZERO), Some(N::ZERO)),
            };
            lo.push(l);
            up.push(u);
            let row = &mut t[i * n..(i + 1) * n];
            for &(v, k) in &c.terms {
                row[v] = row[v].add(N::int(k as i128))?;
            }
            let mut s = N::int(c.rhs as i128);
            for (a, x) in row.iter().zip(&val) {
                if !a.is_zero() && !x.is_zero() {
                    s = s.sub(a.mul(*x)?)?;
                }
            }
            val[n + i] = s;
        }
        let mut lp = Lp {
            t,
            cols: n,
            beta: p.constraints.iter().map(|c| N::int(c.rhs as i128)).collect(),
            basic: (n..n + m).collect(),
            nonbasic: (0..n).collect(),
            d: cost.clone(),
            val,
            lo,
            up,
            artificial,
            at_up,
            cost,
        };
        lp.optimise()?;
        Ok(lp)
    }

    /// Tableau cells (the unit of work the search budget counts).
    pub fn cells(&self) -> usize {
        self.t.len().max(self.cols)
    }

    /// (optimum, values of the structural variables); `Unbounded` when the optimum leans on a
    /// stand-in bound.
    pub fn solution(&self) -> Result<(N, Vec<N>), IlpError> {
        let n = self.cost.len();
        let big = N::int(BIG);
        for v in 0..n {
            if self.artificial[v] && self.val[v].cmp_to(&big) != Ordering::Less {
                return Err(IlpError::Unbounded);
            }
        }
        let x = self.val[..n].to_vec();
        let mut obj = N::ZERO;
        for (c, xj) in self.cost.iter().zip(&x) {
            if !c.is_zero() {
                obj = obj.add(c.mul(*xj)?)?;
            }
        }
        Ok((obj, x))
    }

    /// Tighten `x_v <= k` (`Cmp::Le`) or `x_v >= k` (`Cmp::Ge`) and re-optimise.
    pub fn add_bound(&mut self, v: usize, cmp: Cmp, k: i64) -> Result<(), IlpError> {
        let k = N::int(k as i128);
        match cmp {
            Cmp::Le => {
                if self.artificial[v] || self.up[v].is_none_or(|u| k.cmp_to(&u) == Ordering::Less) {
                    self.up[v] = Some(k);
                    self.artificial[v] = false;
                }
            }
            Cmp::Ge => {
                if self.lo[v].is_none_or(|l| k.cmp_to(&l) == Ordering::Greater) {
                    self.lo[v] = Some(k);
                }
            }
            Cmp::Eq => {
                self.add_bound(v, Cmp::Le, k.floor())?;
                return self.add_bound(v, Cmp::Ge, k.floor());
            }
        }
        if let (Some(l), Some(u)) = (self.lo[v], self.up[v]) {
            if l.cmp_to(&u) == Ordering::Greater {
                return Err(IlpError::Infeasible);
            }
        }
        // A nonbasic variable moves with its bound (keeping its side, so the reduced costs stay
        // dual feasible); a basic one that is now out of bounds leaves in the dual simplex.
        if let Some(col) = self.nonbasic.iter().position(|&j| j == v) {
            let target = if self.at_up[v] { self.up[v] } else { self.lo[v] };
            if let Some(target) = target {
                let delta = target.sub(self.val[v])?;
                if !delta.is_zero() {
                    self.shift(col, delta)?;
                }
                self.val[v] = target;
            }
        }
        self.optimise()
    }

    /// Move nonbasic column `col` by `delta`, updating the basic variables.
    fn shift(&mut self, col: usize, delta: N) -> Result<(), IlpError> {
        let j = self.nonbasic[col];
        self.val[j] = self.val[j].add(delta)?;
        for (i, &b) in self.basic.iter().enumerate() {
            let a = self.t[i * self.cols + col];
            if !a.is_zero() {
                self.val[b] = self.val[b].sub(a.mul(delta)?)?.clean();
            }
        }
        Ok(())
    }

    /// Dual simplex from a dual feasible basis until the basic variables are within bounds.
    fn optimise(&mut self) -> Result<(), IlpError> {
        for pivots in 0..PIVOT_LIMIT {
            // Leaving: the out-of-bounds basic variable with the smallest index.
            let mut leave: Option<(usize, usize, bool)> = None;
            for (i, &b) in self.basic.iter().enumerate() {
                let x = self.val[b];
                let below = self.lo[b].is_some_and(|l| x.sub(l).is_ok_and(|s| s.is_neg()));
                let above = self.up[b].is_some_and(|u| x.sub(u).is_ok_and(|s| s.is_pos()));
                if (below || above) && leave.is_none_or(|(_, w, _)| b < w) {
                    leave = Some((i, b, below));
                }
            }
            let Some((r, v, below)) = leave else {
                return if pivots > 0 { self.refresh() } else { Ok(()) };
            };
            // Entering: raising x_v (below its lower bound) takes a column that can rise with a
            // negative coefficient or fall with a positive one; lowering it, the reverse.
            let row = &self.t[r * self.cols..(r + 1) * self.cols];
            let mut enter: Option<(usize, N, usize)> = None;
            for (k, (&a, &dk)) in row.iter().zip(&self.d).enumerate() {
                if a.is_zero() {
                    continue;
                }
                let j = self.nonbasic[k];
                let fixed = match (self.lo[j], self.up[j]) {
                    (Some(l), Some(u)) => l.cmp_to(&u) != Ordering::Less,
                    _ => false,
                };
                if fixed {
                    continue;
                }
                let rises = !self.at_up[j];
                if (below == rises) != a.is_neg() {
                    continue;
                }
                let mut ratio = dk.div(a)?;
                if ratio.is_neg() {
                    ratio = N::ZERO.sub(ratio)?;
                }
                let better = match &enter {
                    None => true,
                    Some((_, q, w)) => match ratio.cmp_to(q) {
                        Ordering::Less => true,
                        Ordering::Equal => j < *w,
                        Ordering::Greater => false,
                    },
                };
                if better {
                    enter = Some((k, ratio, j));
                }
            }
            let Some((k, _, _)) = enter else { return Err(IlpError::Infeasible) };
            let target = if below { self.lo[v] } else { self.up[v] };
            let target = target.ok_or(IlpError::TooLarge)?;
            let a = self.t[r * self.cols + k];
            // x_v changes by -a·Δ when the entering variable moves by Δ.
            let delta = self.val[v].sub(target)?.div(a)?;
            self.shift(k, delta)?;
            self.val[v] = target;
            self.pivot(r, k)?;
            self.at_up[v] = !below;
            COUNTERS.with(|c| c.set(c.get().with_pivot()));
        }
        Err(IlpError::TooLarge)
    }

    /// Recompute the basic variables from `β` and the nonbasic values (which sit exactly at
    /// their bounds), dropping the round-off of the incremental updates.
    fn refresh(&mut self) -> Result<(), IlpError> {
        for (i, &b) in self.basic.iter().enumerate() {
            let mut x = self.beta[i];
            let row = &self.t[i * self.cols..(i + 1) * self.cols];
            for (a, &j) in row.iter().zip(&self.nonbasic) {
                let v = self.val[j];
                if !a.is_zero() && !v.is_zero() {
                    x = x.sub(a.mul(v)?)?;
                }
            }
            self.val[b] = x.clean();
        }
        Ok(())
    }

    /// Exchange basic row `r` and nonbasic column `k`.
    fn pivot(&mut self, r: usize, k: usize) -> Result<(), IlpError> {
        let cols = self.cols;
        let inv = self.t[r * cols + k].recip()?;
        let mut nz = Vec::new();
        for c in 0..cols {
            let x = &mut self.t[r * cols + c];
            if c == k {
                *x = inv;
            } else if !x.is_zero() {
                *x = x.mul(inv)?;
                nz.push(c);
            }
        }
        self.beta[r] = self.beta[r].mul(inv)?;
        let br = self.beta[r];
        let (before, rest) = self.t.split_at_mut(r * cols);
        let (prow, after) = rest.split_at_mut(cols);
        let rows = before.chunks_exact_mut(cols).chain(after.chunks_exact_mut(cols));
        let betas = self.beta.iter_mut().enumerate().filter(|&(i, _)| i != r).map(|(_, b)| b);
        for (row, beta) in rows.zip(betas) {
            let f = row[k];
            if f.is_zero() {
                continue;
            }
            *beta = beta.sub(f.mul(br)?)?.clean();
            for &c in &nz {
                row[c] = row[c].sub(f.mul(prow[c])?)?.clean();
            }
            row[k] = N::ZERO.sub(f.mul(inv)?)?.clean();
        }
        let f = self.d[k];
        if !f.is_zero() {
            for &c in &nz {
                self.d[c] = self.d[c].sub(f.mul(prow[c])?)?.clean();
            }
            self.d[k] = N::ZERO.sub(f.mul(inv)?)?.clean();
        }
        std::mem::swap(&mut self.basic[r], &mut self.nonbasic[k]);
        Ok(())
    }
}
