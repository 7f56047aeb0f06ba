//! Loop parameters that do nothing are removed. Reverse mode runs a `while` loop twice before
//! its sweep: once to count the iterations and once, as a `for` loop, to save what the sweep
//! reads. Each copy re-executes the whole primal body, so each carries values only the other
//! needs (the position of a projectile in both, the loop condition in the `for`), and the sweep
//! carries adjoints it never changes (that of a result the loop only passes on).
//!
//! - A parameter is *dead* when its value after the loop is unused and nothing needed inside
//!   the loop reads it; it goes, and `dce` then removes what computed it.
//! - A scalar parameter is *invariant* when each iteration passes it on unchanged; it becomes
//!   its initial value, bound before the loop, and the loop's result for it a copy of that.

use std::collections::{HashMap, HashSet};

use crate::ir::lower::rewrite::for_each_body_mut;
use crate::ir::*;

/// Remove such parameters from every loop of `f`; whether any was.
pub fn loop_params(f: &mut FunDef) -> bool {
    if !has_loop(&f.body) {
        return false;
    }
    let uses = super::use_counts(&f.body);
    body(&mut f.body, &uses)
}

fn has_loop(b: &Body) -> bool {
    b.stms.iter().any(|s| {
        let mut inside = false;
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |inner| inside |= has_loop(inner));
        inside || matches!(s.exp, Exp::Loop { .. })
    })
}

/// `uses` counts the uses of each variable in the whole function; it only grows stale by
/// over-counting (a removal elsewhere), which keeps a parameter, never drops a needed one.
fn body(b: &mut Body, uses: &HashMap<Var, usize>) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms) {
        for_each_body_mut(&mut s.exp, &mut |inner| changed |= body(inner, uses));
        let (mut before, mut after) = (Vec::new(), Vec::new());
        if let Exp::Loop { params, form, body: lb } = &mut s.exp {
            let cond = match form {
                LoopForm::While(c) => Some(*c),
                LoopForm::For { .. } => None,
            };
            let mut j = 0;
            while j < params.len() {
                let p = &params[j].0;
                let invariant = Some(p.var) != cond
                    && matches!(p.ty, Type::Prim(_))
                    && lb.result[j] == Atom::Var(p.var);
                if !invariant {
                    j += 1;
                    continue;
                }
                let (p, init) = params.remove(j);
                let result = s.pat.remove(j);
                lb.result.remove(j);
                after.push(Stm {
                    pat: vec![result],
                    exp: Exp::Atom(Atom::Var(p.var)),
                    span: s.span,
                });
                before.push(Stm { pat: vec![p], exp: Exp::Atom(init), span: s.span });
                changed = true;
            }
            let live = live_params(params, cond, lb, &s.pat, uses);
            // A loop kept only for what may fail in it still carries one value.
            let first = if live.contains(&true) { None } else { Some(0) };
            for j in (0..params.len()).rev() {
                if !live[j] && first != Some(j) {
                    params.remove(j);
                    s.pat.remove(j);
                    lb.result.remove(j);
                    changed = true;
                }
            }
        }
        out.extend(before);
        out.push(s);
        out.extend(after);
    }
    b.stms = out;
    changed
}

/// Which parameters are needed: those whose value after the loop is used, the `while`
/// condition, and, until nothing changes, those read by what computes the needed results (or
/// may fail) in the body, or that size a needed parameter.
fn live_params(
    params: &[(Param, Atom)],
    cond: Option<Var>,
    lb: &Body,
    pat: &[Param],
    uses: &HashMap<Var, usize>,
) -> Vec<bool> {
    let mut live: Vec<bool> = pat
        .iter()
        .zip(params)
        .map(|(r, (p, _))| uses.get(&r.var).is_some_and(|n| *n > 0) || Some(p.var) == cond)
        .collect();
    loop {
        let mut probe = lb.clone();
        probe.result = lb.result.iter().zip(&live).filter(|(_, l)| **l).map(|(a, _)| *a).collect();
        crate::ir::lower::dce(&mut probe);
        let mut needed: HashSet<Var> = HashSet::new();
        crate::ad::walk::body_vars(&mut probe, &mut |v, binder| {
            if !binder {
                needed.insert(*v);
            }
        });
        for ((p, _), _) in params.iter().zip(&live).filter(|(_, l)| **l) {
            if let Type::Array { shape, .. } = &p.ty {
                needed.extend(shape.iter().filter_map(|d| match d {
                    Dim::Var(v) => Some(*v),
                    Dim::Const(_) => None,
                }));
            }
        }
        let mut grew = false;
        for (l, (p, _)) in live.iter_mut().zip(params) {
            if !*l && needed.contains(&p.var) {
                *l = true;
                grew = true;
            }
        }
        if !grew {
            return live;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, flight_gradient_holds, run, FLIGHT};

    /// The vjp of a `while` loop: the counting loop no longer carries the position, the saving
    /// loop neither the position nor the height nor the condition, and the sweep not the
    /// adjoints it passes on unchanged.
    #[test]
    fn parameters_that_do_nothing_go() {
        let (c, ir) = compile(FLIGHT);
        let grad = &ir[ir.find("fun grad").unwrap()..];
        // The number of parameters of each loop.
        let loops: Vec<usize> = grad
            .lines()
            .filter_map(|l| {
                Some(l.split_once(" loop (")?.1.split_once(") =")?.0.split(',').count())
            })
            .collect();
        // Counting: condition, height, velocity, counter. Saving: the velocity and its saves.
        // The sweep: the velocity's adjoint (the position's is 1 throughout, the height's 0).
        assert_eq!(loops, [4, 2, 1], "{ir}");
        flight_gradient_holds(&c);
    }

    /// A parameter only another needed one reads stays; so does one sizing a needed array, the
    /// condition of a `while`, and one an update that may fail reads.
    #[test]
    fn needed_parameters_stay() {
        let src = "
            entry main (n: i64) (k: i64) : (i64, i64) =
              let (a, b, _, _) =
                loop (a, b, c, d) = (0, 1, 0, k) for i < n do
                  let xs = replicate 3 b
                  in (a + b + xs[d], b * 2, c + 1, d)
              in (a, b)
            entry w (n: i64) : i64 =
              let (_, j) = loop (go, j) = (true, 0) while go do (j + 1 < n, j + 1) in j
            entry d (x: f64) = vjp (\\y -> y * y) x 1";
        let (c, ir) = compile(src);
        let main = &ir[ir.find("fun main").unwrap()..ir.find("fun w").unwrap()];
        assert!(main.contains("loop (a_") && !main.contains(" c_"), "{main}");
        assert_eq!(run(&c, "main", "3i64 2i64").unwrap(), "14i64 8i64");
        let e = run(&c, "main", "3i64 5i64").unwrap_err();
        assert!(e.contains("out of bounds"), "{e}");
        assert_eq!(run(&c, "w", "4i64").unwrap(), "4i64");
    }
}
