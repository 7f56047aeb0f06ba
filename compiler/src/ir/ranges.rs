//! Variables whose values lie in `[0, d)` whatever the input, for a dimension `d`: a `map`'s
//! parameter taking the elements of `iota d` (from 0 by 1), a `for` loop's counter below `d`,
//! and what the index arithmetic of reversed and shifted accesses makes of them (reverse mode
//! reads `xs[d-1-i]`, `xs[min(i+1, d-1)]` and `xs[max(i-1, 0)]`). An index that is one of them,
//! into a dimension `d`, is in bounds: no check is needed.

use std::collections::HashMap;

use super::lower::builder::atom_dim;
use super::{Atom, BinOp, Body, Dim, Exp, LoopForm, Var};
use crate::prim::{IntType, PrimType, PrimValue};

/// The variables of `b` (and the bodies inside it) known to lie in `[0, d)`, with `d`.
pub fn index_ranges(b: &Body) -> HashMap<Var, Dim> {
    let mut f = Facts::default();
    walk(b, &mut f);
    f.within
}

/// What is known of `i64` variables, each fact for a dimension `d`. Wherever a variable with
/// a fact is defined, `d >= 1` (it derives from an element of `[0, d)`), except for `last`.
#[derive(Default)]
struct Facts {
    iotas: HashMap<Var, Dim>,
    /// In `[0, d)`.
    within: HashMap<Var, Dim>,
    /// Equal to `d - 1`.
    last: HashMap<Var, Dim>,
    /// At least 0.
    nonneg: HashMap<Var, Dim>,
    /// Below `d`.
    below: HashMap<Var, Dim>,
}

impl Facts {
    /// The facts `v = a op b` gives.
    fn derive(&self, op: BinOp, a: Atom, b: Atom) -> Vec<(Fact, Dim)> {
        let of = |m: &HashMap<Var, Dim>, x: Atom| x.as_var().and_then(|v| m.get(&v)).copied();
        let nonneg_const = |x: Atom| matches!(x, Atom::Const(PrimValue::I64(c)) if c >= 0);
        let zero = Atom::Const(PrimValue::I64(0));
        let either = |f: &dyn Fn(Atom, Atom) -> Option<(Fact, Dim)>| f(a, b).or_else(|| f(b, a));
        let mut out = Vec::new();
        match op {
            BinOp::Sub => {
                // d - 1
                if b == Atom::Const(PrimValue::I64(1)) {
                    out.extend(atom_dim(a).map(|d| (Fact::Last, d)));
                }
                // (d - 1) - i
                if let (Some(d), Some(e)) = (of(&self.last, a), of(&self.within, b)) {
                    out.extend((d == e).then_some((Fact::Within, d)));
                }
                // i - c
                if nonneg_const(b) {
                    out.extend(of(&self.within, a).map(|d| (Fact::Below, d)));
                }
            }
            // i + c
            BinOp::Add => out.extend(either(&|x, c| {
                of(&self.within, x).filter(|_| nonneg_const(c)).map(|d| (Fact::Nonneg, d))
            })),
            // min(i + c, d - 1)
            BinOp::Min => out.extend(either(&|x, m| {
                let d = of(&self.nonneg, x).or_else(|| of(&self.within, x))?;
                (of(&self.last, m) == Some(d)).then_some((Fact::Within, d))
            })),
            // max(i - c, 0)
            BinOp::Max => out.extend(either(&|x, z| {
                let d = of(&self.below, x).or_else(|| of(&self.within, x))?;
                (z == zero).then_some((Fact::Within, d))
            })),
            _ => {}
        }
        out
    }
}

enum Fact {
    Within,
    Last,
    Nonneg,
    Below,
}

fn walk(b: &Body, f: &mut Facts) {
    let zero = Atom::Const(PrimValue::I64(0));
    let one = Atom::Const(PrimValue::I64(1));
    for s in &b.stms {
        match (&s.exp, s.pat.as_slice()) {
            (Exp::Iota { n, start, step, it: IntType::I64 }, [p])
                if *start == zero && *step == one =>
            {
                if let Some(d) = atom_dim(*n) {
                    f.iotas.insert(p.var, d);
                }
            }
            (Exp::Map { lam, arrs, .. }, _) => {
                for (p, a) in lam.params.iter().zip(arrs) {
                    if let Some(d) = f.iotas.get(a) {
                        f.within.insert(p.var, *d);
                    }
                }
            }
            (Exp::Loop { form: LoopForm::For { i, it: IntType::I64, bound }, .. }, _) => {
                if let Some(d) = atom_dim(*bound) {
                    f.within.insert(*i, d);
                }
            }
            (Exp::BinOp(op, PrimType::Int(IntType::I64), a, b), [p]) => {
                for (fact, d) in f.derive(*op, *a, *b) {
                    let to = match fact {
                        Fact::Within => &mut f.within,
                        Fact::Last => &mut f.last,
                        Fact::Nonneg => &mut f.nonneg,
                        Fact::Below => &mut f.below,
                    };
                    to.insert(p.var, d);
                }
            }
            _ => {}
        }
        super::lower::rewrite::for_each_body(&s.exp, &mut |b| walk(b, f));
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

    /// The names of the variables of `src`'s first function that have a range.
    fn ranged(src: &str) -> Vec<String> {
        let c = crate::driver::compile(src).unwrap_or_else(|d| panic!("{d:?}"));
        let mut names: Vec<String> = index_ranges(&c.ir.funs[0].body)
            .keys()
            .map(|v| c.ir.names[v.0 as usize].clone())
            .collect();
        names.sort();
        names
    }

    /// Reversed and shifted indices stay in `[0, n)`: `n-1-i`, `min(i+1, n-1)`, `max(i-1, 0)`.
    #[test]
    fn reversed_and_clamped_shifts_of_an_index_have_its_range() {
        let src = "entry main [n] (xs: [n]f64) : [n]f64 =
  map (\\i -> let r = n - 1 - i
             let up = i64.min (i + 1) (n - 1)
             let down = i64.max (i - 1) 0
             in xs[r] + xs[up] + xs[down]) (iota n)";
        let names = ranged(src);
        for v in ["i", "r", "up", "down"] {
            assert!(names.iter().any(|n| n.starts_with(v)), "{v}: {names:?}");
        }
    }

    /// Without the clamp, or clamped to the wrong bound, or from a value that is not an index,
    /// there is no range: those reads keep their checks.
    #[test]
    fn shifts_that_may_leave_the_range_have_none() {
        let src = "entry main [n] (k: i64) (xs: [n]f64) : [n]f64 =
  map (\\i -> let a = i + 1
             let b = i64.min (i + 1) n
             let c = i64.min (k + 1) (n - 1)
             let d = i64.max (i - 1) 1
             let e = n - 1 - k
             in xs[a] + xs[b] + xs[c] + xs[d] + xs[e]) (iota n)";
        let names = ranged(src);
        assert_eq!(names.len(), 1, "only `i`: {names:?}");
        let c = crate::driver::compile(src).unwrap();
        let e = crate::driver::run_interp(
            &c,
            "main",
            &crate::value::text::parse_values("0i64 [1.0, 2.0]").unwrap(),
        )
        .expect_err("xs[2] is out of bounds");
        assert!(e.message.contains("index [2] out of bounds"), "{}", e.message);
    }
}
