//! A `map` that returns the same value at two of its results returns it once: the second
//! result's uses read the first. Reverse mode returns a bias's adjoint and its layer's
//! pre-activation adjoint as one value (`(r, r)`), in the MLP's gradient an `[n][h]` array
//! stored twice. Maps are rewritten innermost first, so a repeat an inner map returned becomes
//! a repeated result of the map around it.
//!
//! The GPU backend runs it (`backend::wgsl`). The wasm backend does not: it sums a result that
//! only a `reduce` reads as the map makes it, never storing it, and one result read by both
//! the reduction and something else would have to be stored.

use std::collections::HashMap;

use crate::ir::lower::rewrite::Subst;
use crate::ir::*;

/// Rewrite every map of `prog` with repeated results; whether any was.
pub fn repeated_results_once(prog: &mut Program) -> bool {
    let mut changed = false;
    for f in &mut prog.funs {
        changed |= body(&mut f.body);
    }
    changed
}

fn body(b: &mut Body) -> bool {
    let mut changed = false;
    let mut subst: HashMap<Var, Atom> = HashMap::new();
    for s in &mut b.stms {
        // Inner bodies first: their repeats become this map's function's repeated results.
        crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |inner| {
            changed |= body(inner);
        });
        let Exp::Map { lam, .. } = &mut s.exp else { continue };
        if s.pat.len() != lam.body.result.len() {
            continue;
        }
        let mut k = 0;
        while k < lam.body.result.len() {
            let same =
                |i: &usize| lam.body.result[*i] == lam.body.result[k] && lam.ret[*i] == lam.ret[k];
            match (0..k).find(same) {
                Some(i) => {
                    lam.body.result.remove(k);
                    lam.ret.remove(k);
                    let gone = s.pat.remove(k);
                    subst.insert(gone.var, Atom::Var(s.pat[i].var));
                    changed = true;
                }
                None => k += 1,
            }
        }
    }
    // A removed result is bound only by its map, so only later statements name it.
    if !subst.is_empty() {
        Subst(&subst).body(b);
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::opt::testing::rewritten_by;

    /// The MLP's hidden layer: the bias's adjoint is the pre-activation's, returned by the
    /// inner map twice and by the outer map as two `[n][h]` arrays; once each now.
    #[test]
    fn a_repeated_adjoint_is_returned_once() {
        let src = "
          def matvec [m][k] (w: [m][k]f32) (v: [k]f32) : [m]f32 =
            map (\\r -> f32.sum (map2 (*) r v)) w
          def loss [n][i][h] (xs: [n][i]f32) (w: [h][i]f32, b: [h]f32) : f32 =
            f32.sum (map (\\x -> f32.sum (map2 (\\a c -> f32.tanh (a + c)) (matvec w x) b)) xs)
          entry main [n][i][h] (xs: [n][i]f32) (w: [h][i]f32) (b: [h]f32) =
            vjp (\\(w, b) -> loss xs (w, b)) (w, b) 1";
        let args = "[[1f32, 2f32], [0.5f32, -1f32], [0f32, 3f32]] \
                    [[0.1f32, 0.2f32], [-0.3f32, 0.4f32]] [0.5f32, -0.5f32]";
        let (after, expected, got) = rewritten_by(src, "main", args, super::repeated_results_once);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert!(
            !after.lines().any(|l| l.trim_start().starts_with("in (") && {
                let items: Vec<&str> =
                    l.trim_start()[4..].trim_end_matches(')').split(", ").collect();
                (1..items.len()).any(|j| items[..j].contains(&items[j]))
            }),
            "{after}"
        );
    }
}
