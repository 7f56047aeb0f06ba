//! Variables whose values lie in `[0, d)` whatever the input, for a dimension `d`: a `map`'s
//! parameter taking the elements of `iota d` (from 0 by 1), and a `for` loop's counter below
//! `d`. An index that is one of them, into a dimension `d`, is in bounds: no check is needed.

use std::collections::HashMap;

use super::lower::builder::atom_dim;
use super::{Atom, Body, Dim, Exp, LoopForm, Var};
use crate::prim::{IntType, PrimValue};

/// The variables of `b` (and the bodies inside it) known to lie in `[0, d)`, with `d`.
pub fn index_ranges(b: &Body) -> HashMap<Var, Dim> {
    let mut iotas = HashMap::new();
    let mut out = HashMap::new();
    walk(b, &mut iotas, &mut out);
    out
}

fn walk(b: &Body, iotas: &mut HashMap<Var, Dim>, out: &mut HashMap<Var, Dim>) {
    let zero = Atom::Const(PrimValue::I64(0));
    let one = Atom::Const(PrimValue::I64(1));
    for s in &b.stms {
        match (&s.exp, s.pat.as_slice()) {
            (Exp::Iota { n, start, step, it: IntType::I64 }, [p])
                if *start == zero && *step == one =>
            {
                if let Some(d) = atom_dim(*n) {
                    iotas.insert(p.var, d);
                }
            }
            (Exp::Map { lam, arrs, .. }, _) => {
                for (p, a) in lam.params.iter().zip(arrs) {
                    if let Some(d) = iotas.get(a) {
                        out.insert(p.var, *d);
                    }
                }
            }
            (Exp::Loop { form: LoopForm::For { i, it: IntType::I64, bound }, .. }, _) => {
                if let Some(d) = atom_dim(*bound) {
                    out.insert(*i, d);
                }
            }
            _ => {}
        }
        super::lower::rewrite::for_each_body(&s.exp, &mut |b| walk(b, iotas, out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iota_elements_and_loop_counters_have_ranges() {
        let src = "entry main (n: i64) (xs: []i64) : []i64 =
                     map (\\i -> loop a = i for k < 4 do a + k) (iota n)";
        let c = crate::driver::compile(src).unwrap_or_else(|d| panic!("{d:?}"));
        let f = &c.ir.funs[0];
        let r = index_ranges(&f.body);
        let mut dims: Vec<String> = r.values().map(|d| format!("{d:?}")).collect();
        dims.sort();
        // `i` below `n` (a variable), `k` below 4.
        assert_eq!(dims.len(), 2, "{r:?}");
        assert!(dims.iter().any(|d| d.contains("Const(4)")), "{dims:?}");
    }
}
