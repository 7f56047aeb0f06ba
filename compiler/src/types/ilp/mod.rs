//! A small integer linear program solver: depth-first branch and bound over LP relaxations
//! solved by a bounded-variable dual simplex, whose answers are exact and deterministic.
//!
//! The problems AUTOMAP builds are small (a few variables per application of one top-level
//! definition), so a dense tableau keeps the solver simple and free of dependencies (it runs in
//! wasm32 as is). Besides linear constraints a problem has clauses, disjunctions of bounds such
//! as AUTOMAP's `M = 0 ∨ R = 0`; the search branches on a violated clause directly (one child
//! per literal) rather than through big-M binaries. The search runs in f64 with tolerances; the
//! integer solution it returns is checked exactly against the constraints and clauses, and if
//! the check fails the same search is rerun over exact rationals ([`num`]). A child node is its
//! parent's optimal tableau with tightened bounds, re-optimised by a few dual pivots ([`lp`]).
//! Branching takes the first violated clause, else the lowest-numbered fractional variable,
//! rounding down first; ties between optima are resolved by that fixed order, so the same
//! problem always gives the same solution. A presolve ([`presolve`]) first substitutes away the
//! equalities between two variables (`x = y + c`, `x = c`) that make up most rank constraints.

use std::fmt;
use std::rc::Rc;

mod lp;
mod num;
mod presolve;

use lp::Lp;
use num::{Num, Rat, F64};
use presolve::presolve;

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

impl Cmp {
    /// `lhs cmp rhs`.
    pub fn holds<T: Ord>(self, lhs: T, rhs: T) -> bool {
        self.holds_for(lhs.cmp(&rhs))
    }

    /// `lhs cmp rhs`, given how `lhs` compares to `rhs` (for numbers compared with a tolerance).
    pub fn holds_for(self, lhs_to_rhs: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Cmp::Le => lhs_to_rhs != Greater,
            Cmp::Eq => lhs_to_rhs == Equal,
            Cmp::Ge => lhs_to_rhs != Less,
        }
    }

    /// The operator as printed.
    fn symbol(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Eq => "=",
            Cmp::Ge => ">=",
        }
    }
}

/// A bound on one variable: `x_v <= k` (`Cmp::Le`), `x_v >= k` (`Cmp::Ge`) or `x_v = k`.
pub type Literal = (Var, Cmp, i64);

/// Minimise `objective` subject to `constraints` and `clauses`, all variables non-negative.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub vars: Vec<VarInfo>,
    pub constraints: Vec<Constraint>,
    /// Disjunctions: at least one literal of each holds. The search branches on them directly
    /// (one child per literal) instead of encoding them with big-M binaries, whose relaxations
    /// are weak and whose rows and columns make every tableau larger.
    pub clauses: Vec<Vec<Literal>>,
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

/// A branching bound: `x_v <= k` (`Cmp::Le`) or `x_v >= k` (`Cmp::Ge`).
type Bound = Literal;

/// The literals whose conjunction is `lit`'s negation over the integers (`None` for a
/// continuous variable, whose negation is not a closed bound: its children then overlap).
fn negate((v, cmp, k): Literal, integer: bool) -> Option<Vec<Literal>> {
    if !integer {
        return None;
    }
    Some(match cmp {
        Cmp::Le => vec![(v, Cmp::Ge, k.checked_add(1)?)],
        Cmp::Ge => vec![(v, Cmp::Le, k.checked_sub(1)?)],
        // x != k is itself a disjunction; the later children then overlap this one.
        Cmp::Eq => return None,
    })
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

    /// Require at least one of `literals` (e.g. `x = 0 ∨ y = 0` as `[(x, Le, 0), (y, Le, 0)]`).
    pub fn either(&mut self, literals: Vec<Literal>) {
        self.clauses.push(literals);
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
        let root = Lp::<N>::new(self)?;
        // Depth first; a child is its parent's optimal LP plus one bound.
        // Children share their parent's tableau until they are explored (a clause can have many
        // children, most of them pruned at once), and the last one to go takes it over.
        let mut stack: Vec<(Rc<Lp<N>>, Vec<Bound>)> = vec![(Rc::new(root), Vec::new())];
        'nodes: while let Some((lp, bounds)) = stack.pop() {
            let mut lp = Rc::unwrap_or_clone(lp);
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
            for (v, cmp, val) in bounds {
                match lp.add_bound(v, cmp, val) {
                    Ok(()) => {}
                    Err(IlpError::Infeasible) => continue 'nodes,
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
            // A clause that no literal satisfies: one child per literal, the k-th also negating
            // the literals before it (so the children are disjoint), explored in order.
            let holds = |&(v, cmp, k): &Literal| cmp.holds_for(x[v].cmp_to(&N::int(k as i128)));
            if let Some(clause) = self.clauses.iter().find(|c| !c.iter().any(holds)) {
                let mut children = Vec::new();
                let mut negated = Vec::new();
                for &lit in clause {
                    let mut b = negated.clone();
                    b.push(lit);
                    children.push(b);
                    match negate(lit, self.vars[lit.0].integer) {
                        Some(mut neg) => negated.append(&mut neg),
                        None => break,
                    }
                }
                let lp = Rc::new(lp);
                for b in children.into_iter().rev() {
                    stack.push((Rc::clone(&lp), b));
                }
                continue;
            }
            let frac = (0..n).find(|&i| self.vars[i].integer && !x[i].is_integer());
            match frac {
                None => best = Some((obj, x)),
                Some(i) => {
                    let fl = x[i].floor();
                    // Push "up" first so "down" is explored first.
                    let lp = Rc::new(lp);
                    stack.push((Rc::clone(&lp), vec![(i, Cmp::Ge, fl + 1)]));
                    stack.push((lp, vec![(i, Cmp::Le, fl)]));
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
        let literal = |&(v, cmp, k): &Literal| cmp.holds(values[v], k);
        bounds
            && self.clauses.iter().all(|c| c.iter().any(literal))
            && self.constraints.iter().all(|c| {
                let lhs: i128 = c.terms.iter().map(|&(v, k)| k as i128 * values[v] as i128).sum();
                c.cmp.holds(lhs, c.rhs as i128)
            })
    }
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
    pub(super) fn with_pivot(mut self) -> Self {
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
            writeln!(f, "  {} {} {}", sum(&c.terms), c.cmp.symbol(), c.rhs)?;
        }
        for c in &self.clauses {
            let lits: Vec<String> = c
                .iter()
                .map(|&(v, cmp, k)| format!("{} {} {k}", self.vars[v].name, cmp.symbol()))
                .collect();
            writeln!(f, "  {}", lits.join(" or "))?;
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

    #[test]
    fn clause_is_a_disjunction() {
        // maximise x + 2y, x + y <= 6, x, y in 0..=5, and x = 0 or y = 0: without the clause the
        // optimum is x=1, y=5 (11); with it, y=5 alone (10).
        let mut p = Problem::default();
        let x = p.int_var("x", Some(5));
        let y = p.int_var("y", Some(5));
        p.objective = vec![(x, -1), (y, -2)];
        p.constrain(vec![(x, 1), (y, 1)], Cmp::Le, 6);
        assert_eq!(p.solve().map(|s| s.objective), Ok(-11));
        p.either(vec![(x, Cmp::Le, 0), (y, Cmp::Le, 0)]);
        let s = p.solve().unwrap();
        assert_eq!((s.values.clone(), s.objective), (vec![0, 5], -10));
        assert_eq!(p.solve_direct::<Rat>(), Ok(s.clone()));
        assert_eq!(p.solve_direct::<F64>(), Ok(s));
        assert!(p.to_string().contains("x <= 0 or y <= 0"), "{p}");
    }

    #[test]
    fn clauses_on_fixed_variables() {
        // x is fixed to 3 by presolve, so `x <= 0 or y <= 0` forces y = 0.
        let mut p = Problem::default();
        let x = p.int_var("x", None);
        let y = p.int_var("y", None);
        p.objective = vec![(y, -1)];
        p.constrain(vec![(x, 1)], Cmp::Eq, 3);
        p.constrain(vec![(y, 1)], Cmp::Le, 4);
        p.either(vec![(x, Cmp::Le, 0), (y, Cmp::Le, 0)]);
        assert_eq!(p.solve().map(|s| s.values), Ok(vec![3, 0]));
        // Both fixed away from their literals: infeasible.
        p.constrain(vec![(y, 1)], Cmp::Eq, 2);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
        assert_eq!(p.solve_direct::<Rat>(), Err(IlpError::Infeasible));
    }

    #[test]
    fn clause_excludes_a_found_optimum() {
        // Two optima of x + y >= 1 at cost 1; excluding the first by a clause finds the other,
        // excluding both leaves only worse solutions.
        let mut p = Problem::default();
        let x = p.int_var("x", None);
        let y = p.int_var("y", None);
        p.objective = vec![(x, 1), (y, 1)];
        p.constrain(vec![(x, 1), (y, 1)], Cmp::Ge, 1);
        let first = p.solve().unwrap();
        p.constrain(vec![(x, 1), (y, 1)], Cmp::Eq, first.objective);
        let flip = |v: Var, s: &Solution| {
            if s.values[v] > 0 {
                (v, Cmp::Le, 0)
            } else {
                (v, Cmp::Ge, 1)
            }
        };
        p.either(vec![flip(x, &first), flip(y, &first)]);
        let second = p.solve().unwrap();
        assert_ne!(first.values, second.values);
        p.either(vec![flip(x, &second), flip(y, &second)]);
        assert_eq!(p.solve(), Err(IlpError::Infeasible));
    }
}
