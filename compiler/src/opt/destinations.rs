//! Destinations made before the maps that fill them. Reverse mode's adjoint of `a[i]` is
//! `replicate n 0 with [i] = adj`, where the `map` that computes `adj` comes before the
//! `replicate`. A backend can compute a map's result straight into the slot of an array updated
//! in place (`ir::inplace::slot_results`) only if that array exists when the map starts; this
//! pass moves such a `replicate` to just before the map, which is possible when its operands are
//! bound earlier. It changes no result and no error (a replicate cannot fail), and it does not
//! raise peak memory: the map's result no longer needs memory of its own.

use crate::ir::lower::rewrite::{for_each_body_mut, mentioned};
use crate::ir::*;

/// Move, in every body of `prog`, each `replicate` that an update writes a map's result into to
/// just before that map (see the module's comment).
pub fn replicates_before_maps(prog: &mut Program) {
    for f in &mut prog.funs {
        in_body(&mut f.body);
    }
}

fn in_body(b: &mut Body) {
    for s in &mut b.stms {
        for_each_body_mut(&mut s.exp, &mut in_body);
    }
    for u in 0..b.stms.len() {
        let Exp::Update { arr, value: Atom::Var(v), .. } = &b.stms[u].exp else { continue };
        let binds = |s: &Stm, x: &Var| s.pat.iter().any(|p| p.var == *x);
        let Some(m) = b.stms[..u].iter().position(|s| binds(s, v)) else { continue };
        let Some(r) = b.stms[..u].iter().position(|s| binds(s, arr)) else { continue };
        if r <= m || !matches!(b.stms[m].exp, Exp::Map { .. }) {
            continue;
        }
        let Exp::Replicate { .. } = b.stms[r].exp else { continue };
        let uses = mentioned(&b.stms[r]);
        let late = b.stms[m..r].iter().flat_map(|s| &s.pat).any(|p| uses.contains(&p.var));
        if !late {
            let rep = b.stms.remove(r);
            b.stms.insert(m, rep);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::print::print_program;
    use crate::opt::testing::{compile, run};

    #[test]
    fn the_zeros_an_adjoint_is_written_into_move_before_its_map() {
        let (mut c, before) = compile(
            "entry g [n] (w: [2][n]f64) (x: [n]f64) = \
               vjp (\\w -> f64.sum (map2 (*) w[1] x)) w 1",
        );
        let expected = run(&c, "g", "[[1.0, 2.0], [3.0, 4.0]] [5.0, 6.0]");
        assert_eq!(expected.as_deref(), Ok("[[0.0f64, 0.0f64],\n [5.0f64, 6.0f64]]"));
        replicates_before_maps(&mut c.ir);
        let after = print_program(&c.ir);
        assert_ne!(before, after, "{before}");
        // The zeros of `w`'s adjoint come before the map whose result fills one of its rows.
        let zeros = after.find("replicate([2]").expect(&after);
        let update = after.find(" with [1i64] = ").expect(&after);
        let map = after[..update].rfind("map(").expect(&after);
        assert!(zeros < map, "{after}");
        crate::ir::validate::validate(&c.ir).expect("valid IR");
        assert_eq!(run(&c, "g", "[[1.0, 2.0], [3.0, 4.0]] [5.0, 6.0]"), expected);
    }

    #[test]
    fn a_replicate_of_a_value_the_map_computes_stays_after_it() {
        let (mut c, before) = compile(
            "entry f [n] (x: [n]f64) = \
               let ys = map (\\a -> a * 2) x \
               let z = replicate 2 (replicate n (f64.sum ys)) \
               let z = z with [0] = ys \
               in z",
        );
        replicates_before_maps(&mut c.ir);
        assert_eq!(before, print_program(&c.ir));
    }
}
