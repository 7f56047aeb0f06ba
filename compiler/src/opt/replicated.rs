//! A `map` over `replicate w v` (a scalar `v`) reads `v` for every element: the replicated
//! array goes, and the function's parameter is bound to `v` instead. Reverse mode makes such
//! arrays for the adjoint of a sum (every element's adjoint is the sum's), so a gradient built
//! and read back a whole array of one value.

use std::collections::HashMap;

use crate::ir::*;

/// Rewrite the maps of `f` over replicated scalars; whether any was.
pub fn maps_over_replicates(f: &mut FunDef) -> bool {
    let mut reps: HashMap<Var, Atom> = HashMap::new();
    replicated_scalars(&f.body, &mut reps);
    let mut changed = false;
    if !reps.is_empty() {
        body(&mut f.body, &reps, &mut changed);
    }
    changed
}

/// The arrays bound by `replicate [n] v` of a scalar `v`, anywhere in `b`.
fn replicated_scalars(b: &Body, out: &mut HashMap<Var, Atom>) {
    for s in &b.stms {
        if let ([p], Exp::Replicate { shape, value }) = (s.pat.as_slice(), &s.exp) {
            if shape.len() == 1 && matches!(&p.ty, Type::Array { shape, .. } if shape.len() == 1) {
                out.insert(p.var, *value);
            }
        }
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| replicated_scalars(b, out));
    }
}

fn body(b: &mut Body, reps: &HashMap<Var, Atom>, changed: &mut bool) {
    for s in &mut b.stms {
        crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |b| body(b, reps, changed));
        let Exp::Map { lam, arrs, .. } = &mut s.exp else { continue };
        // Keep at least one array: a map needs one to iterate over.
        let keep = arrs.iter().any(|a| !reps.contains_key(a));
        if !keep || !arrs.iter().any(|a| reps.contains_key(a)) {
            continue;
        }
        let mut params = Vec::new();
        let mut kept = Vec::new();
        let mut binds = Vec::new();
        for (p, a) in std::mem::take(&mut lam.params).into_iter().zip(arrs.iter()) {
            match reps.get(a) {
                Some(v) => binds.push(Stm { pat: vec![p], exp: Exp::Atom(*v), span: s.span }),
                None => {
                    params.push(p);
                    kept.push(*a);
                }
            }
        }
        lam.params = params;
        *arrs = kept;
        binds.append(&mut lam.body.stms);
        lam.body.stms = binds;
        *changed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, run};

    /// The adjoint of a sum is a replicated seed; the map reading it reads the seed instead.
    #[test]
    fn a_map_over_a_replicated_seed_reads_the_seed() {
        let (c, ir) = compile(
            "entry f (xs: []f64) (s: f64) = vjp (\\xs -> f64.sum (map (\\x -> x * x) xs)) xs s",
        );
        assert!(!ir.contains("replicate("), "{ir}");
        assert_eq!(run(&c, "f", "[1.0, 2.0] 3.0").as_deref(), Ok("[6.0f64, 12.0f64]"));
    }
}
