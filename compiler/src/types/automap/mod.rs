//! AUTOMAP: rank-polymorphic application, inferred per top-level definition by an integer linear
//! program (seed note 001, DESIGN.md "Types and AUTOMAP").
//!
//! `rank` generates the rank constraints of one definition, this module turns them into an ILP
//! (`ilp`), solves it, checks that the optimum is unique, and `elab` rewrites the definition with
//! every inserted `map`/`rep` explicit. The checker then type-checks the elaborated definition as
//! ordinary source (so sizes, overloading and generalisation are exactly those of explicit code).

mod elab;
mod rank;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::diag::Diagnostic;
use crate::syntax::ast::{Expr, ValDec};

use super::env::Globals;
use super::ilp::{Cmp, IlpError, Problem, Var};
pub use elab::{InsertKind, Insertion};
use rank::{Lin, Rank};

/// Candidates listed in an ambiguity error.
const MAX_CANDIDATES: usize = 5;

/// The hint when the only elaboration needs a `rep` beyond the frame that cannot be kept: `why`.
pub(crate) fn rep_hint(why: &str) -> String {
    format!(
        "AUTOMAP: the only rank-correct elaboration replicates an argument beyond its maps, {why}"
    )
}

/// What rank analysis made of one definition.
pub(crate) enum Outcome {
    /// The unique optimum inserts nothing.
    Unchanged,
    /// The definition with its insertions made explicit, and the `rep` nodes it materialises.
    Elaborated(ValDec, Vec<crate::syntax::ast::NodeId>),
    /// Ambiguous or infeasible at an application.
    Error(Diagnostic),
    /// The analysis could not follow the definition; the ordinary checker's errors stand.
    GiveUp,
    /// The ordinary checker's errors stand, with this hint on the first.
    Hint(String),
}

/// The ILP of one definition and its solution, for `ogham show ilp`.
#[derive(Clone, Debug, Default)]
pub struct DefReport {
    pub name: String,
    pub ilp: String,
    pub variables: usize,
    pub constraints: usize,
    pub result: String,
    pub insertions: Vec<Insertion>,
    /// The ILP itself (for benchmarks).
    pub problem: Problem,
}

struct Built {
    problem: Problem,
    /// Per application: (M, R).
    pairs: Vec<(Var, Var)>,
    /// Per application: the index of its `M = 0 ∨ R = 0` clause.
    disj: Vec<usize>,
}

fn build(r: &Rank, apps: &[rank::App]) -> Built {
    let mut p = Problem::default();
    // No upper bounds: the objective never pushes a rank up, and bounds would only be rows.
    for name in &r.rvar_names {
        p.int_var(name.clone(), None);
    }
    let lin = |l: &Lin| l.terms.clone();
    for (e, _) in &r.eqs {
        p.constrain(lin(e), Cmp::Eq, -e.c);
    }
    let mut pairs = Vec::new();
    let mut disj = Vec::new();
    for a in apps {
        let (m, rr) = (a.m, a.r);
        let t = p.int_var(format!("T{}", r.rvar_names[rr].trim_start_matches('R')), None);
        // M = 0 ∨ R = 0: an application is mapped or replicated, not both.
        disj.push(p.clauses.len());
        p.either(vec![(m, Cmp::Le, 0), (rr, Cmp::Le, 0)]);
        // T >= R - F: the reps not induced by the frame (T is minimised, so T = max(0, R - F)).
        let tf = Lin::var(t).minus(&Lin::var(rr)).plus(&a.frame);
        p.constrain(tf.terms.clone(), Cmp::Ge, -tf.c);
        if r.is_fun(&a.arg_base) {
            // Functions are never replicated beyond the frame.
            let x = Lin::var(rr).minus(&a.frame);
            p.constrain(x.terms.clone(), Cmp::Le, -x.c);
        }
        p.objective.push((m, 1));
        p.objective.push((t, 1));
        pairs.push((m, rr));
    }
    Built { problem: p, pairs, disj }
}

/// Run rank analysis on one definition.
pub(crate) fn analyse(
    v: &ValDec,
    globals: &Globals,
    user_defs: &dyn Fn(&str) -> bool,
    next_id: &mut u32,
) -> (Outcome, DefReport) {
    let mut r = Rank::new(globals, user_defs);
    r.def(v);
    let mut spine_list: Vec<(&crate::syntax::ast::NodeId, &rank::Spine)> =
        r.spines.iter().collect();
    spine_list.sort_by_key(|(_, s)| (s.span.start, std::cmp::Reverse(s.span.end)));
    let apps: Vec<rank::App> = spine_list.iter().flat_map(|(_, s)| s.apps.clone()).collect();
    let b = build(&r, &apps);
    let mut report = DefReport {
        name: v.name.clone(),
        ilp: b.problem.to_string(),
        variables: b.problem.vars.len(),
        constraints: b.problem.constraints.len(),
        problem: b.problem.clone(),
        ..DefReport::default()
    };
    if zero_feasible(&r) {
        // A size-0 solution exists, so it is the unique optimum: no ILP needed.
        report.result = "optimum 0 (no insertion is rank-correct; found without the ILP)\n".into();
        return (Outcome::Unchanged, report);
    }
    let sols = match solve_split(&b.problem, &b.pairs) {
        Ok(s) => s,
        Err(e) => {
            report.result = format!("{e}");
            if r.incomplete || e != IlpError::Infeasible {
                return (Outcome::GiveUp, report);
            }
            return (infeasible(&r, &b, &apps, v), report);
        }
    };
    let first = sols[0].clone();
    let objective: i64 = b.problem.objective.iter().map(|&(v, k)| k * first[v]).sum();
    let _ = writeln!(report.result, "optimum {objective}: {}", show_sol(&b.problem, &first));
    for s in sols.iter().skip(1) {
        let _ = writeln!(report.result, "also optimal: {}", show_sol(&b.problem, s));
    }
    if objective == 0 {
        return (Outcome::Unchanged, report);
    }
    let used = {
        let mut u = HashSet::new();
        elab::names_in(&v.body, &mut u);
        for p in &v.params {
            elab::pat_names(p, &mut u);
        }
        u
    };
    if sols.len() > 1 {
        if r.incomplete {
            return (Outcome::GiveUp, report);
        }
        return (ambiguous(&r, &sols, &apps, v, used, next_id), report);
    }
    let mut el = elab::Elab {
        spines: &r.spines,
        maps: &r.maps,
        vals: &first,
        next_id,
        used,
        counter: 0,
        insertions: vec![],
        reps: vec![],
        errors: vec![],
    };
    let body = el.expr(&v.body);
    report.insertions = el.insertions.clone();
    if let Some(e) = el.errors.into_iter().next() {
        return (Outcome::Hint(format!("AUTOMAP: {}", e.message)), report);
    }
    if !el.reps.is_empty() && (el.used.contains("rep") || user_defs("rep")) {
        // The inserted `rep` would name the program's own `rep`.
        return (
            Outcome::Hint(rep_hint("with the intrinsic `rep`, which this program redefines")),
            report,
        );
    }
    let mut out = v.clone();
    out.body = body;
    (Outcome::Elaborated(out, el.reps), report)
}

fn show_sol(p: &Problem, vals: &[i64]) -> String {
    let nz: Vec<String> = p
        .vars
        .iter()
        .zip(vals)
        .filter(|(_, &x)| x != 0)
        .map(|(v, x)| format!("{}={x}", v.name))
        .collect();
    if nz.is_empty() {
        "all zero".to_string()
    } else {
        nz.join(" ")
    }
}

/// Whether the rank equalities hold with every M and R zero. They are then difference
/// constraints `x + c = y` (or `x = c`), decided by a union-find with offsets; anything else
/// answers `false` and leaves it to the ILP.
fn zero_feasible(r: &Rank) -> bool {
    let n = r.n_rvars;
    let mut is_mr = vec![false; n];
    for s in r.spines.values() {
        for a in &s.apps {
            is_mr[a.m] = true;
            is_mr[a.r] = true;
        }
    }
    // parent[x] = (p, d): value(x) = value(p) + d. Node n is the constant 0.
    let mut parent: Vec<(usize, i64)> = (0..=n).map(|i| (i, 0)).collect();
    fn find(parent: &mut [(usize, i64)], x: usize) -> (usize, i64) {
        let mut d = 0;
        let mut y = x;
        let mut steps = 0;
        while parent[y].0 != y && steps < 100_000 {
            d += parent[y].1;
            y = parent[y].0;
            steps += 1;
        }
        parent[x] = (y, d);
        (y, d)
    }
    for (e, _) in &r.eqs {
        let terms: Vec<(usize, i64)> =
            e.terms.iter().copied().filter(|&(v, _)| !is_mr[v]).collect();
        // Σ k·v + c = 0 with at most two unit terms of opposite sign.
        let (a, b, c) = match terms.as_slice() {
            [] => {
                if e.c != 0 {
                    return false;
                }
                continue;
            }
            [(v, 1)] => (*v, n, e.c),
            [(v, -1)] => (*v, n, -e.c),
            [(x, 1), (y, -1)] => (*x, *y, e.c),
            [(x, -1), (y, 1)] => (*y, *x, -e.c),
            _ => return false,
        };
        // value(a) - value(b) + c = 0, i.e. value(a) = value(b) - c.
        let (ra, da) = find(&mut parent, a);
        let (rb, db) = find(&mut parent, b);
        if ra == rb {
            if da != db - c {
                return false;
            }
        } else if ra == n {
            // value(rb) = value(ra) + da - db + c
            parent[rb] = (ra, da - db + c);
        } else {
            parent[ra] = (rb, db - c - da);
        }
    }
    // Non-negativity: members of the constant's class are fixed; other classes can be shifted up.
    (0..n).all(|x| {
        let (root, d) = find(&mut parent, x);
        root != n || d >= 0
    })
}

/// Solve the ILP one connected component at a time (applications that share no rank variable
/// are independent, and most are): the optimal solution, then up to `MAX_CANDIDATES - 1` other
/// optima of the first component that has several (different on the M/R binaries).
fn solve_split(p: &Problem, pairs: &[(Var, Var)]) -> Result<Vec<Vec<i64>>, IlpError> {
    let n = p.vars.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let linked = p
        .constraints
        .iter()
        .map(|c| c.terms.iter().map(|t| t.0).collect::<Vec<_>>())
        .chain(p.clauses.iter().map(|c| c.iter().map(|l| l.0).collect()));
    for vars in linked {
        if let Some((&first, rest)) = vars.split_first() {
            for &v in rest {
                let (a, b) = (root(&mut parent, first), root(&mut parent, v));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let roots: Vec<usize> = (0..n).map(|v| root(&mut parent, v)).collect();
    let mut comps: Vec<usize> = roots.clone();
    comps.sort_unstable();
    comps.dedup();
    let mut full = vec![0i64; n];
    let mut alternatives: Vec<Vec<i64>> = Vec::new();
    for comp in comps {
        let vars: Vec<usize> = (0..n).filter(|&v| roots[v] == comp).collect();
        let mut index = vec![usize::MAX; n];
        for (i, &v) in vars.iter().enumerate() {
            index[v] = i;
        }
        let mut sub = Problem {
            vars: vars.iter().map(|&v| p.vars[v].clone()).collect(),
            ..Problem::default()
        };
        for c in &p.constraints {
            if c.terms.first().is_some_and(|&(v, _)| roots[v] == comp) {
                let terms = c.terms.iter().map(|&(v, k)| (index[v], k)).collect();
                sub.constrain(terms, c.cmp, c.rhs);
            } else if c.terms.is_empty() && !trivially_true(c) {
                return Err(IlpError::Infeasible);
            }
        }
        for c in &p.clauses {
            if c.first().is_some_and(|&(v, _, _)| roots[v] == comp) {
                sub.either(c.iter().map(|&(v, cmp, k)| (index[v], cmp, k)).collect());
            } else if c.is_empty() {
                return Err(IlpError::Infeasible);
            }
        }
        sub.objective = p
            .objective
            .iter()
            .filter(|&&(v, _)| roots[v] == comp)
            .map(|&(v, k)| (index[v], k))
            .collect();
        if sub.objective.is_empty() && sub.constraints.is_empty() {
            continue;
        }
        let s = sub.solve()?;
        for (i, &v) in vars.iter().enumerate() {
            full[v] = s.values[i];
        }
        if s.objective == 0 || !alternatives.is_empty() {
            continue;
        }
        // Ambiguity: another optimum that maps or replicates at a different set of applications.
        // Each optimum found is excluded by a clause (some application's M or R switches between
        // zero and non-zero), and the search asks for another at the same objective.
        let pairs: Vec<(usize, usize)> = pairs
            .iter()
            .filter(|&&(m, _)| roots[m] == comp)
            .map(|&(m, r)| (index[m], index[r]))
            .collect();
        sub.constrain(sub.objective.clone(), Cmp::Eq, s.objective);
        let mut last = s.values.clone();
        let mut found = Vec::new();
        while found.len() + 1 < MAX_CANDIDATES {
            let mut clause = Vec::new();
            for &(m, r) in &pairs {
                for v in [m, r] {
                    clause.push(if last[v] > 0 { (v, Cmp::Le, 0) } else { (v, Cmp::Ge, 1) });
                }
            }
            sub.either(clause);
            match sub.solve() {
                Ok(s2) => {
                    last = s2.values.clone();
                    found.push((vars.clone(), s2.values));
                }
                Err(_) => break,
            }
        }
        for (vars, vals) in found {
            let mut alt = Vec::new();
            alt.extend(vars.iter().zip(vals));
            alternatives.push(alt.into_iter().flat_map(|(v, x)| [*v as i64, x]).collect());
        }
    }
    let mut sols = vec![full.clone()];
    for alt in alternatives {
        let mut s = full.clone();
        for pair in alt.chunks(2) {
            if let [v, x] = pair {
                s[*v as usize] = *x;
            }
        }
        sols.push(s);
    }
    Ok(sols)
}

fn trivially_true(c: &super::ilp::Constraint) -> bool {
    c.cmp.holds(0, c.rhs)
}

/// Which application makes the ILP infeasible: the first whose `M = 0 ∨ R = 0` is the obstacle.
fn infeasible(r: &Rank, b: &Built, apps: &[rank::App], v: &ValDec) -> Outcome {
    for (i, a) in apps.iter().enumerate() {
        let mut p = b.problem.clone();
        if b.disj[i] < p.clauses.len() {
            // Relaxed: this application may both map and replicate.
            p.clauses.remove(b.disj[i]);
        }
        if solve_split(&p, &[]).is_ok() {
            return Outcome::Error(
                Diagnostic::ty(
                    a.span,
                    "no rank-correct elaboration: this application would need both implicit \
                     maps and implicit replicates",
                )
                .with_label("cannot be made rank-correct")
                .with_hint("insert the `map` or `replicate` you mean explicitly"),
            );
        }
    }
    let _ = (r, v);
    Outcome::GiveUp
}

fn ambiguous(
    r: &Rank,
    sols: &[Vec<i64>],
    apps: &[rank::App],
    v: &ValDec,
    used: HashSet<String>,
    next_id: &mut u32,
) -> Outcome {
    // Show the outermost spine whose (M, R) differ between candidates.
    let differs =
        |a: &rank::App| sols.iter().any(|s| s[a.m] != sols[0][a.m] || s[a.r] != sols[0][a.r]);
    let mut best: Option<(&crate::syntax::ast::NodeId, &rank::Spine)> = None;
    for (id, s) in &r.spines {
        if s.apps.iter().any(differs) {
            let wider = match best {
                None => true,
                Some((bid, bs)) => {
                    (
                        s.span.end - s.span.start,
                        std::cmp::Reverse(s.span.start),
                        std::cmp::Reverse(id.0),
                    ) > (
                        bs.span.end - bs.span.start,
                        std::cmp::Reverse(bs.span.start),
                        std::cmp::Reverse(bid.0),
                    )
                }
            };
            if wider {
                best = Some((id, s));
            }
        }
    }
    let (span, node) = match best {
        Some((id, s)) => (s.span, find(&v.body, *id)),
        None => (apps.first().map_or(v.span, |a| a.span), None),
    };
    let mut cands = Vec::new();
    for s in sols {
        let mut el = elab::Elab {
            spines: &r.spines,
            maps: &r.maps,
            vals: s,
            next_id,
            used: used.clone(),
            counter: 0,
            insertions: vec![],
            reps: vec![],
            errors: vec![],
        };
        let e = el.expr(node.unwrap_or(&v.body));
        let text = crate::syntax::printer::print_expr(&e);
        if !cands.contains(&text) {
            cands.push(text);
        }
    }
    let mut d = Diagnostic::ty(
        span,
        format!("ambiguous: {} equally small elaborations of this application", sols.len()),
    )
    .with_label("AUTOMAP cannot choose how to lift this");
    for (i, c) in cands.iter().enumerate() {
        d = d.with_hint(format!("candidate {}: {c}", i + 1));
    }
    Outcome::Error(
        d.with_hint(
            "add a type annotation (or write the `map` you mean) to choose one".to_string(),
        ),
    )
}

fn find(e: &Expr, id: crate::syntax::ast::NodeId) -> Option<&Expr> {
    if e.id == id {
        return Some(e);
    }
    let mut found = None;
    crate::syntax::visit::for_each_child_expr(&e.kind, &mut |c| {
        if found.is_none() {
            found = find(c, id);
        }
    });
    found
}

/// Where an insertion is, as `line:col`.
pub fn describe(ins: &Insertion, src: &str) -> String {
    let (l, c) = ins.span.line_col(src);
    let what = match ins.kind {
        InsertKind::Map(n) => format!("map x{n}"),
        InsertKind::Rep { n, fused: true } => format!("rep x{n} (induced, fused)"),
        InsertKind::Rep { n, fused: false } => format!("rep x{n}"),
    };
    let text = src.get(ins.span.range()).unwrap_or("");
    format!("{l}:{c}: {what}: {text}")
}

/// `ogham show elab`: every user definition after elaboration, as source, each followed by the
/// maps and reps AUTOMAP inserted (`line:col: kind: the argument`).
pub fn print_elaborated(cp: &super::CheckedProgram, reports: &[DefReport], src: &str) -> String {
    use crate::syntax::ast::{Dec, Program};
    let mut out = String::new();
    for d in cp.program.decs.iter().skip(cp.prelude_decs) {
        let one = Program {
            decs: vec![d.clone()],
            next_id: cp.program.next_id,
            instances: Default::default(),
        };
        out.push_str(&crate::syntax::printer::print_program(&one));
        if let Dec::Val(v) = d {
            if let Some(r) = reports.iter().rev().find(|r| r.name == v.name) {
                for ins in &r.insertions {
                    let _ = writeln!(out, "-- inserted at {}", describe(ins, src));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// `ogham show ilp`: each user definition's rank ILP and its solution.
pub fn print_ilps(reports: &[DefReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let _ =
            writeln!(out, "{}: {} variables, {} constraints", r.name, r.variables, r.constraints);
        out.push_str(&r.ilp);
        for l in r.result.lines() {
            let _ = writeln!(out, "  {l}");
        }
        out.push('\n');
    }
    out
}
