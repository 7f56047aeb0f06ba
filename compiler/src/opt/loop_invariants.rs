//! Scalar computations that no iteration changes move before their loop. Reverse mode's sweep
//! of a loop indexes its saves at `iterations - 1 - j`, computing `iterations - 1` in every
//! iteration; a loop in a kernel or on the GPU backend's host pays for each statement in each
//! iteration. Only operations that cannot fail move (not integer division, whose error must
//! come only if the loop runs), so a loop that runs no iteration computes a value it does not
//! use and nothing else changes.

use std::collections::HashSet;

use crate::ir::lower::rewrite::for_each_body_mut;
use crate::ir::*;

/// Move such statements out of every loop of `f`; whether any moved.
pub fn loop_invariants(f: &mut FunDef) -> bool {
    body(&mut f.body)
}

fn body(b: &mut Body) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms) {
        for_each_body_mut(&mut s.exp, &mut |inner| changed |= body(inner));
        if let Exp::Loop { params, form, body: lb } = &mut s.exp {
            // What the loop binds: its parameters, its counter and its statements that stay.
            let mut inside: HashSet<Var> = params.iter().map(|(p, _)| p.var).collect();
            if let LoopForm::For { i, .. } = form {
                inside.insert(*i);
            }
            let mut kept = Vec::with_capacity(lb.stms.len());
            for x in std::mem::take(&mut lb.stms) {
                let invariant = cannot_fail(&x.exp)
                    && x.pat.iter().all(|p| matches!(p.ty, Type::Prim(_)))
                    && operands(&x.exp).iter().all(|v| !inside.contains(v));
                if invariant {
                    out.push(x);
                    changed = true;
                } else {
                    inside.extend(x.pat.iter().map(|p| p.var));
                    kept.push(x);
                }
            }
            lb.stms = kept;
        }
        out.push(s);
    }
    b.stms = out;
    changed
}

/// Scalar operations that give a value for any operands.
fn cannot_fail(e: &Exp) -> bool {
    match e {
        Exp::BinOp(op, t, _, _) => {
            !(matches!(t, crate::prim::PrimType::Int(_))
                && matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem | BinOp::Pow))
        }
        Exp::Atom(_)
        | Exp::UnOp(..)
        | Exp::Cmp(..)
        | Exp::Convert { .. }
        | Exp::Math(..)
        | Exp::Select(..) => true,
        _ => false,
    }
}

fn operands(e: &Exp) -> Vec<Var> {
    let atoms: Vec<&Atom> = match e {
        Exp::Atom(a) | Exp::UnOp(_, _, a) => vec![a],
        Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => vec![a, b],
        Exp::Convert { arg, .. } => vec![arg],
        Exp::Math(_, _, args) => args.iter().collect(),
        Exp::Select(c, a, b) => vec![c, a, b],
        _ => Vec::new(),
    };
    atoms
        .into_iter()
        .filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, flight_gradient_holds, run, FLIGHT};

    /// The sweep of a `while` loop's vjp computes `iterations - 1` once; an integer division
    /// by a value from outside stays in the loop (it may fail only if the loop runs).
    #[test]
    fn invariant_scalars_move_before_their_loop() {
        let src = format!(
            "{FLIGHT}
            entry div (n: i64) (k: i64) (a: f64) : (i64, f64) =
              loop (s, t) = (0, 0) for i < n do (s + n / k + i, t + a * 2)"
        );
        let (c, ir) = compile(&src);
        let grad = &ir[ir.find("fun grad").unwrap()..ir.find("fun div").unwrap()];
        let sweep = &grad[grad.rfind(" loop (").unwrap()..];
        assert!(!sweep.contains(" - 1i64"), "{grad}");
        flight_gradient_holds(&c);
        let div = &ir[ir.find("fun div").unwrap()..];
        let (before, body) = div.split_at(div.find(" loop (").unwrap());
        assert!(before.contains(" * 2.0f64") && !body.contains(" * 2.0f64"), "{div}");
        assert!(body.contains(" / "), "{div}");
        assert_eq!(run(&c, "div", "3i64 2i64 1.5f64").unwrap(), "6i64 9.0f64");
        let e = run(&c, "div", "3i64 0i64 1.5f64").unwrap_err();
        assert!(e.contains("division by zero"), "{e}");
        assert_eq!(run(&c, "div", "0i64 0i64 1.5f64").unwrap(), "0i64 0.0f64");
    }
}
