//! Copies nothing needs. `copy(x)` only matters when the copy or `x` is later updated in place
//! (consumed): otherwise the two are equal and never change, so the copy becomes `x` itself.
//! Derivative wrappers copy their arguments (`jvp`/`vjp` may consume them), and reverse mode
//! copies arrays before the primal's in-place updates; where nothing consumes them, each such
//! copy cost a whole array of memory and a pass over it.
//!
//! An array is consumed when it is the destination of an `Update`, `Scatter` or `Hist`, the
//! initial value of a loop parameter, an argument of a call, or a result of a function (its
//! caller may consume it); and so is everything it may alias: what it was bound from by a
//! binding, reshape, rearrangement, index or branch result, and the arrays whose rows a lambda
//! parameter holds. This over-approximates, which only keeps a copy.

use std::collections::{HashMap, HashSet};

use crate::ir::*;

/// Turn the copies of `f` that nothing consumes into bindings of the copied array (which copy
/// propagation then removes); whether any was.
pub fn unneeded_copies(f: &mut FunDef) -> bool {
    let mut cx = Cx::default();
    for a in &f.body.result {
        cx.consume_atom(a);
    }
    cx.body(&f.body);
    let consumed = cx.closure();
    let mut changed = false;
    rewrite(&mut f.body, &consumed, &mut changed);
    changed
}

#[derive(Default)]
struct Cx {
    /// For each array variable, the arrays it may alias (one step).
    parents: HashMap<Var, Vec<Var>>,
    consumed: Vec<Var>,
}

impl Cx {
    fn consume_atom(&mut self, a: &Atom) {
        if let Atom::Var(v) = a {
            self.consumed.push(*v);
        }
    }

    fn alias(&mut self, v: Var, of: Var) {
        self.parents.entry(v).or_default().push(of);
    }

    fn lambda(&mut self, lam: &Lambda, arrs: &[Var]) {
        for (p, a) in lam.params.iter().zip(arrs) {
            self.alias(p.var, *a);
        }
        self.body(&lam.body);
    }

    fn body(&mut self, b: &Body) {
        for s in &b.stms {
            let pat: Vec<Var> = s.pat.iter().map(|p| p.var).collect();
            match &s.exp {
                Exp::Atom(Atom::Var(v))
                | Exp::Reshape { arr: v, .. }
                | Exp::Rearrange { arr: v, .. }
                | Exp::Index { arr: v, .. } => {
                    for p in &pat {
                        self.alias(*p, *v);
                    }
                }
                Exp::Update { arr, .. } => self.consumed.push(*arr),
                Exp::Scatter { dest, .. } => self.consumed.push(*dest),
                Exp::Apply { args, .. } => args.iter().for_each(|a| self.consume_atom(a)),
                Exp::If { then_body, else_body, .. } => {
                    for br in [then_body, else_body] {
                        for (p, r) in pat.iter().zip(&br.result) {
                            if let Atom::Var(r) = r {
                                self.alias(*p, *r);
                            }
                        }
                        self.body(br);
                    }
                }
                Exp::Loop { params, body, .. } => {
                    for (_, init) in params {
                        self.consume_atom(init);
                    }
                    self.body(body);
                }
                Exp::Map { lam, arrs, .. } => self.lambda(lam, arrs),
                Exp::Reduce { lam, arrs, .. } | Exp::Scan { lam, arrs, .. } => {
                    self.body(&lam.body);
                    for a in arrs {
                        // The operator's parameters are accumulators and elements.
                        for p in &lam.params {
                            self.alias(p.var, *a);
                        }
                    }
                }
                Exp::Hist { dest, lam, .. } => {
                    self.consumed.extend(dest.iter().copied());
                    self.body(&lam.body);
                }
                _ => {}
            }
        }
    }

    /// Every consumed array and everything it may alias.
    fn closure(&self) -> HashSet<Var> {
        let mut seen: HashSet<Var> = HashSet::new();
        let mut todo = self.consumed.clone();
        while let Some(v) = todo.pop() {
            if seen.insert(v) {
                todo.extend(self.parents.get(&v).into_iter().flatten().copied());
            }
        }
        seen
    }
}

fn rewrite(b: &mut Body, consumed: &HashSet<Var>, changed: &mut bool) {
    for s in &mut b.stms {
        if let ([p], Exp::Copy(x)) = (s.pat.as_slice(), &s.exp) {
            if !consumed.contains(&p.var) && !consumed.contains(x) {
                s.exp = Exp::Atom(Atom::Var(*x));
                *changed = true;
            }
        }
        crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |b| {
            rewrite(b, consumed, changed)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, run};

    // `simplify` runs on programs with derivatives, so the tests take one.

    /// A derivative wrapper's copy of its argument: only read, so it goes.
    #[test]
    fn a_copy_only_read_goes() {
        let (c, ir) = compile(
            "entry f (xs: []f64) = vjp (\\xs -> f64.sum (map (\\x -> x * x) xs)) (copy xs) 1",
        );
        assert!(!ir.contains("copy("), "{ir}");
        assert_eq!(run(&c, "f", "[1.0, 2.0]").as_deref(), Ok("[2.0f64, 4.0f64]"));
    }

    /// A copy updated in place, or of an array updated in place, stays: the original keeps its
    /// values.
    #[test]
    fn a_copy_of_or_for_an_update_stays() {
        let (c, ir) = compile(
            "entry g (xs: []f64) = let ys = copy xs in (vjp (\\x -> x * x) 2f64 1, ys with [0] = 5)",
        );
        assert!(ir.contains("copy("), "{ir}");
        assert_eq!(run(&c, "g", "[1.0, 2.0]").as_deref(), Ok("4.0f64 [5.0f64, 2.0f64]"));
        let (c, ir) = compile(
            "entry h (xs: *[]f64) =
  let ys = copy xs
  let zs = xs with [0] = 5
  in (vjp (\\x -> x * x) 2f64 1, f64.sum ys, zs)",
        );
        assert!(ir.contains("copy("), "{ir}");
        assert_eq!(run(&c, "h", "[1.0, 2.0]").as_deref(), Ok("4.0f64 3.0f64 [5.0f64, 2.0f64]"));
    }
}
