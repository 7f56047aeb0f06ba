//! Arrays a loop fills but nothing reads are not made. Reverse mode saves every loop-carried
//! value of every iteration (`x_saved with [i] = x`), and the reverse sweep then reads only the
//! ones its adjoints need (a projectile's velocities, not its position or its loop condition).
//! A loop parameter whose value after the loop is unused, and which inside the loop only flows
//! through updates at fixed indices into its next value, is removed with those updates; each
//! update leaves its bounds check (none for a loop counter inside the array's size), so the
//! loop still fails where it would have.

use std::collections::HashMap;

use crate::ir::*;

/// Remove such loop parameters from every loop of `f`; whether any was. `names` gets the
/// variables the bounds checks bind.
pub fn unused_saves(f: &mut FunDef, names: &mut Vec<String>) -> bool {
    // `simplify` asks in every round, of every function: most have no loop carrying an array.
    if !carries_array(&f.body) {
        return false;
    }
    let uses = super::use_counts(&f.body);
    let mut types: HashMap<Var, Type> = f.params.iter().map(|p| (p.var, p.ty.clone())).collect();
    crate::ad::walk::body_types(&f.body, &mut types);
    let ranges = crate::ir::ranges::index_ranges(&f.body);
    let cx = Cx { uses: &uses, types: &types, ranges: &ranges };
    body(&mut f.body, &cx, names)
}

/// Whether a loop in `b` (or in a body inside it) has an array parameter.
fn carries_array(b: &Body) -> bool {
    b.stms.iter().any(|s| {
        let here = matches!(&s.exp, Exp::Loop { params, .. }
            if params.iter().any(|(p, _)| matches!(p.ty, Type::Array { .. })));
        let mut inside = false;
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |inner| {
            inside |= carries_array(inner);
        });
        here || inside
    })
}

struct Cx<'a> {
    /// Uses of each variable in the whole function (dims and results included).
    uses: &'a HashMap<Var, usize>,
    types: &'a HashMap<Var, Type>,
    ranges: &'a HashMap<Var, Dim>,
}

fn body(b: &mut Body, cx: &Cx, names: &mut Vec<String>) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |inner| {
            changed |= body(inner, cx, names);
        });
        let Exp::Loop { params, body: lb, .. } = &mut s.exp else { continue };
        let mut j = 0;
        while j < params.len() {
            let p = &params[j].0;
            let unused_after = cx.uses.get(&s.pat[j].var).copied().unwrap_or(0) == 0;
            let chain = match (&p.ty, unused_after) {
                (Type::Array { .. }, true) => updates_into(lb, p.var, j, cx),
                _ => None,
            };
            let Some(chain) = chain.and_then(|c| checks_of(lb, &c, cx, names)) else {
                j += 1;
                continue;
            };
            // Each update gives way to its checks (later statements first, so the positions
            // of earlier ones hold).
            for (k, checks) in chain.into_iter().rev() {
                lb.stms.splice(k..=k, checks);
            }
            params.remove(j);
            s.pat.remove(j);
            lb.result.remove(j);
            changed = true;
        }
    }
    changed
}

/// The positions in `lb` of the updates that carry loop parameter `p` into result `j`, when
/// that is all `p` and the updated arrays are used for: `p` is updated once, its update once,
/// and so on, and the last is result `j` (which is then its only use).
fn updates_into(lb: &Body, p: Var, j: usize, cx: &Cx) -> Option<Vec<usize>> {
    let once = |v: Var| cx.uses.get(&v).copied().unwrap_or(0) == 1;
    let mut chain = Vec::new();
    let mut cur = p;
    loop {
        if !once(cur) {
            return None;
        }
        if lb.result.get(j) == Some(&Atom::Var(cur)) {
            return Some(chain);
        }
        let k = lb.stms.iter().position(
            |s| matches!(&s.exp, Exp::Update { arr, idx, .. } if *arr == cur && idx.iter().all(|i| matches!(i, DimIndex::Fix(_)))),
        )?;
        let [q] = lb.stms[k].pat.as_slice() else { return None };
        chain.push(k);
        cur = q.var;
    }
}

/// The bounds checks of the updates at `chain`, each with its position; `None` when one of them
/// has none (an index that is not an `i64`, or one that always fails).
fn checks_of(
    lb: &Body,
    chain: &[usize],
    cx: &Cx,
    names: &mut Vec<String>,
) -> Option<Vec<(usize, Vec<Stm>)>> {
    let mut out = Vec::new();
    for &k in chain {
        out.push((k, super::checks::bounds_check(&lb.stms[k], cx.types, cx.ranges, names)?));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, flight_gradient_holds, run, FLIGHT};

    /// The reverse sweep reads only the saved velocities: the positions and loop conditions are
    /// no longer saved, and the loop counter needs no bounds check.
    #[test]
    fn unread_saves_are_not_made() {
        let (c, ir) = compile(FLIGHT);
        let saves = ir.lines().filter(|l| l.contains("_saved") && l.contains(" with [")).count();
        assert_eq!(saves, 1, "{ir}");
        assert!(!ir.contains("out of bounds"), "{ir}");
        flight_gradient_holds(&c);
    }

    /// A save that is read after the loop stays, and an update whose index may be out of bounds
    /// keeps its check when its array goes.
    #[test]
    fn read_arrays_and_possible_failures_stay() {
        let src = "
            entry main (n: i64) (k: i64) : (i64, []i64) =
              let (a, b, c) =
                loop (a, b, c) = (0, replicate n 0, replicate n 0) for i < n do
                  (a + i, b with [i] = i, c with [k] = i)
              in (a, b)
            entry d (x: f64) = vjp (\\y -> y * y) x 1";
        let (c, ir) = compile(src);
        assert!(ir.contains("with [i"), "{ir}");
        assert_eq!(ir.matches(" with [").count(), 1, "{ir}");
        assert_eq!(run(&c, "main", "3i64 1i64").unwrap(), "3i64 [0i64, 1i64, 2i64]");
        let e = run(&c, "main", "3i64 5i64").unwrap_err();
        assert!(e.contains("out of bounds"), "{e}");
    }
}
