//! Hoisting of loop-invariant rearrangements out of `map` functions:
//! `map (\r -> map (\c -> dot r c) (transpose b)) a` transposes `b` once, before the outer map,
//! instead of once per row of `a`. Only `rearrange` moves (it cannot fail, so the program fails
//! exactly when it did), of an array bound outside the function, and only when the function
//! merely reads the result (indexes it, maps or reduces over it, returns it): an array that is
//! updated in place, or that a loop carries, must stay fresh per element.

use std::collections::HashSet;

use crate::ad::walk;
use crate::ir::*;

/// Hoist, in place, the invariant rearrangements of every `map` function (see the module's
/// comment), innermost first, so a statement invariant in several enclosing maps leaves them all.
pub fn hoist_map_invariants(prog: &mut Program) {
    for f in &mut prog.funs {
        super::rewrite_maps(&mut f.body, &mut hoist);
    }
}

/// Remove from `lam`'s body the statements that can move before the map, and return them.
fn hoist(lam: &mut Lambda) -> Vec<Stm> {
    let mut bound: HashSet<Var> = lam.params.iter().map(|p| p.var).collect();
    walk::body_vars(&mut lam.body, &mut |v, binder| {
        if binder {
            bound.insert(*v);
        }
    });
    let mut moved = Vec::new();
    let mut kept = Vec::with_capacity(lam.body.stms.len());
    for s in std::mem::take(&mut lam.body.stms) {
        let operand = match &s.exp {
            Exp::Rearrange { arr, .. } => Some(*arr),
            _ => None,
        };
        // The result's type names only sizes bound outside too.
        let pat_free = s.pat.iter().all(|p| match &p.ty {
            Type::Array { shape, .. } => {
                shape.iter().all(|d| !matches!(d, Dim::Var(v) if bound.contains(v)))
            }
            Type::Prim(_) => true,
        });
        match operand {
            Some(arr) if !bound.contains(&arr) && pat_free => moved.push(s),
            _ => kept.push(s),
        }
    }
    lam.body.stms = kept;
    // Put back those whose results the function does more with than read.
    let (read_only, written): (Vec<Stm>, Vec<Stm>) =
        moved.into_iter().partition(|s| only_read(&lam.body, s.pat[0].var));
    let mut stms = written;
    stms.append(&mut lam.body.stms);
    lam.body.stms = stms;
    read_only
}

/// Whether every use of `v` in `b` is a read: the array of an `Index`, one of the arrays of a
/// `map`, `reduce` or `scan`, or a result. Counted as all uses minus the reads.
fn only_read(b: &Body, v: Var) -> bool {
    let mut all = 0;
    walk::body_vars(&mut b.clone(), &mut |w, binder| all += usize::from(!binder && *w == v));
    all == reads(b, v)
}

fn reads(b: &Body, v: Var) -> usize {
    let mut n = b.result.iter().filter(|a| **a == Atom::Var(v)).count();
    for s in &b.stms {
        n += match &s.exp {
            Exp::Index { arr, .. } => usize::from(*arr == v),
            Exp::Map { arrs, .. } | Exp::Reduce { arrs, .. } | Exp::Scan { arrs, .. } => {
                arrs.iter().filter(|a| **a == v).count()
            }
            _ => 0,
        };
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| n += reads(b, v));
    }
    n
}

#[cfg(test)]
mod tests {
    use crate::driver;
    use crate::ir::print::print_program;

    fn hoisted(src: &str) -> String {
        let mut prog = driver::compile(src).unwrap().ir;
        super::hoist_map_invariants(&mut prog);
        print_program(&prog)
    }

    #[test]
    fn an_invariant_transpose_leaves_the_map() {
        let out = hoisted(
            "entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
               map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a",
        );
        let main = &out[out.find("fun main").unwrap()..];
        let (t, m) = (main.find("rearrange").unwrap(), main.find("map(").unwrap());
        assert!(t < m, "the transpose is still inside the map:\n{out}");
    }

    #[test]
    fn a_transpose_of_the_maps_own_values_stays() {
        let out = hoisted(
            "entry main [n][m] (a: [n][m][m]f32) : [n][m][m]f32 = map (\\x -> transpose x) a",
        );
        let main = &out[out.find("fun main").unwrap()..];
        let (t, m) = (main.find("rearrange").unwrap(), main.find("map(").unwrap());
        assert!(t > m, "a transpose of the map's element left the map:\n{out}");
    }
}
