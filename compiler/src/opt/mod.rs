//! Core-IR to core-IR rewrites. `simplify`, after differentiation: elimination of common
//! scalar subexpressions (cse.rs), copy propagation of variable-to-variable bindings and
//! removal of dead code (including the forward statements that
//! reverse mode re-executes but whose values end up unused), so the derivative program is
//! ordinary, lean core IR. `inline_map_calls` (inline.rs), before the wasm backend: a `map`
//! whose function only calls a small function gets that function's body; `hoist_map_invariants`
//! (hoist.rs), after it: rearrangements of arrays bound outside a `map` move before it.
//! `simplify` also turns dead fixed-index reads and updates into their bounds checks, and
//! elements of replicates into their values (checks.rs), removes copies that nothing updates in
//! place (copies.rs), binds the parameters of maps over replicated scalars to the scalars
//! (replicated.rs), removes the arrays a loop fills that nothing reads (unused_saves.rs) and
//! the loop parameters that nothing needs or that no iteration changes (loop_params.rs), and
//! moves the scalar computations that no iteration changes before their loop
//! (loop_invariants.rs). `for_backends` first folds a `reduce`'s or `scan`'s `ne` in once where
//! it may not be neutral (neutral_elements.rs), as the interpreter does, since a parallel
//! backend starts every thread from it. The GPU backend alone runs three more after
//! `for_backends`: sums over a map
//! of histograms, or of arrays with one row set, become one histogram (summed_hists.rs,
//! summed_rows.rs), and a map's repeated results are returned once (repeated_results.rs).

use crate::ir::*;

mod checks;
mod column_scans;
mod copies;
mod cse;
mod destinations;
mod hoist;
mod inline;
mod loop_invariants;
mod loop_params;
mod neutral_elements;
mod outer_products;
mod repeated_results;
mod replicated;
mod small_arrays;
mod summed_hists;
mod summed_rows;
#[cfg(test)]
mod testing;
mod unused_saves;
pub use column_scans::scans_of_rows_by_columns;
pub use destinations::replicates_before_maps;
pub use hoist::hoist_map_invariants;
pub use inline::inline_map_calls;
pub use neutral_elements::neutral_elements_once;
pub use outer_products::outer_products_as_matrix_products;
pub use repeated_results::repeated_results_once;
pub use small_arrays::small_arrays_in_scalars;
pub use summed_hists::summed_histograms_as_one;
pub use summed_rows::summed_rows_as_histograms;

/// The program that the backends compile: `prog` (after AD and `simplify`) with maps that only
/// call a small function given its body (so the loops inside are vectorised, and
/// matrix-product nests are found, at the map) and transposes of arrays bound outside a map made
/// once before it, small arrays of scalars kept in scalars (small_arrays.rs), and the zeros that
/// an adjoint's map fills a row of made before that map (`ogham show opt` prints it).
pub fn for_backends(prog: &Program) -> Program {
    let mut prog = prog.clone();
    let neutral = neutral_elements_once(&mut prog);
    let products = outer_products_as_matrix_products(&mut prog);
    if small_arrays_in_scalars(&mut prog) || products || neutral {
        simplify(&mut prog);
    }
    inline_map_calls(&mut prog);
    hoist_map_invariants(&mut prog);
    replicates_before_maps(&mut prog);
    prog
}

/// A fresh variable called `name` (`names` is the program's, by index).
fn new_var(names: &mut Vec<String>, name: &str) -> Var {
    names.push(name.to_string());
    Var(names.len() as u32 - 1)
}

/// Simplify every function of `prog` in place.
pub fn simplify(prog: &mut Program) {
    for f in &mut prog.funs {
        cse::common_subexpressions(f);
        copy_prop(f);
        crate::ir::lower::dce(&mut f.body);
        let params = loop_params::loop_params(f);
        if loop_invariants::loop_invariants(f) || params {
            // Values moved before different loops may be the same.
            cse::common_subexpressions(f);
            copy_prop(f);
            crate::ir::lower::dce(&mut f.body);
        }
        let reps = replicated::maps_over_replicates(f);
        if copies::unneeded_copies(f) || reps {
            copy_prop(f);
            crate::ir::lower::dce(&mut f.body);
        }
    }
    // What only a dead read or update kept alive dies after it, which may leave more dead reads
    // (a map that could fail only by its own dead reads); a few rounds settle it. Elements of
    // replicates become copies of their values, which copy propagation removes.
    // The same goes for the arrays a loop fills for reads that died (unused_saves.rs).
    for _ in 0..8 {
        let mut changed = checks::dead_bounds(prog);
        for f in &mut prog.funs {
            changed |= unused_saves::unused_saves(f, &mut prog.names);
            changed |= loop_params::loop_params(f);
        }
        if !changed {
            break;
        }
        for f in &mut prog.funs {
            // Checks made in different rounds may be the same.
            cse::common_subexpressions(f);
            copy_prop(f);
            crate::ir::lower::dce(&mut f.body);
        }
    }
}

/// How many times each variable of `b` is used (dims and results included).
fn use_counts(b: &Body) -> std::collections::HashMap<Var, usize> {
    let mut uses = std::collections::HashMap::new();
    crate::ad::walk::body_vars(&mut b.clone(), &mut |v, binder| {
        if !binder {
            *uses.entry(*v).or_default() += 1;
        }
    });
    uses
}

/// Replace uses of `let v = w` (same type) by `w`. Variables are bound once in the program and
/// every use of `v` follows its binding, so `w` is in scope at each of them.
fn copy_prop(f: &mut FunDef) {
    use std::collections::HashMap;
    let mut types: HashMap<Var, Type> = f.params.iter().map(|p| (p.var, p.ty.clone())).collect();
    crate::ad::walk::body_types(&f.body, &mut types);
    let mut subst: HashMap<Var, Var> = HashMap::new();
    collect_copies(&f.body, &types, &mut subst);
    if subst.is_empty() {
        return;
    }
    let resolve = |mut v: Var| {
        for _ in 0..64 {
            match subst.get(&v) {
                Some(w) => v = *w,
                None => break,
            }
        }
        v
    };
    crate::ad::walk::body_vars(&mut f.body, &mut |v, binder| {
        if !binder {
            *v = resolve(*v);
        }
    });
}

fn collect_copies(
    b: &Body,
    types: &std::collections::HashMap<Var, Type>,
    out: &mut std::collections::HashMap<Var, Var>,
) {
    for s in &b.stms {
        if let ([p], Exp::Atom(Atom::Var(w))) = (s.pat.as_slice(), &s.exp) {
            if types.get(w) == Some(&p.ty) {
                out.insert(p.var, *w);
            }
        }
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| collect_copies(b, types, out));
    }
}

/// Apply `f` to every `map` function in `b`, innermost first; the statements `f` returns go just
/// before that `map`.
fn rewrite_maps(b: &mut Body, f: &mut impl FnMut(&mut Lambda) -> Vec<Stm>) {
    let mut out = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms) {
        match &mut s.exp {
            Exp::If { then_body, else_body, .. } => {
                rewrite_maps(then_body, f);
                rewrite_maps(else_body, f);
            }
            Exp::Loop { body, .. } => rewrite_maps(body, f),
            Exp::Map { lam, .. } => {
                rewrite_maps(&mut lam.body, f);
                out.extend(f(lam));
            }
            Exp::Reduce { lam, .. }
            | Exp::Scan { lam, .. }
            | Exp::Hist { lam, .. }
            | Exp::Ad { lam, .. } => rewrite_maps(&mut lam.body, f),
            _ => {}
        }
        out.push(s);
    }
    b.stms = out;
}

#[cfg(test)]
mod tests {
    use super::testing::{compile, run};

    /// Reverse mode re-executes an `if` for one of its two results: the other is not computed.
    #[test]
    fn unread_results_of_an_if_are_not_computed() {
        let src = "entry main (c: bool) (x: f64) (y: f64) =
  let f (x, y) = let (a, b) = if c then (f64.sin x, f64.cos y) else (x, y) in a * x + b * 0
  in vjp f (x, y) 1";
        let (c, ir) = compile(src);
        // The only cosine left is the sine's derivative.
        assert_eq!(ir.matches("f64.cos(").count(), 1, "{ir}");
        assert_eq!(run(&c, "main", "true 0.0 5.0").as_deref(), Ok("0.0f64 0.0f64"));
        assert_eq!(run(&c, "main", "false 1.5 5.0").as_deref(), Ok("3.0f64 0.0f64"));
    }
}
