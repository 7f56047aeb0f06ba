//! Common-subexpression elimination of scalar computations. Reverse mode writes each use's
//! partial derivatives separately, so the same `x - y` or `d * s` appears once per use (and so
//! does source such as `(b - t) * (b - t)`); a statement whose expression an earlier one in
//! scope already computed becomes a copy of that one's variable, which copy propagation and
//! dead-code removal then remove.
//!
//! Only pure expressions with scalar results take part (arithmetic, comparisons, conversions,
//! elementary functions, selects and reads of single elements), so no array is ever
//! shared where an update could consume it. A read that could fail is only replaced by an
//! earlier identical read, which fails first. An assertion of a condition that an earlier one
//! in scope asserted is removed. What the operator of a `reduce`, `scan` or `hist` computes is
//! not replaced by values from outside it: backends compile those operators on their own.

use std::collections::HashMap;

use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

/// An atom, with constants by their bits (so `-0.0` and `0.0` differ, and NaN equals itself).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Operand {
    Var(Var),
    Const(PrimType, u64),
}

/// What a statement computes, for the expressions that take part.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Un(UnOp, PrimType, Operand),
    Bin(BinOp, PrimType, Operand, Operand),
    Cmp(CmpOp, PrimType, Operand, Operand),
    Convert(PrimType, PrimType, Operand),
    Math(MathFn, PrimType, Vec<Operand>),
    Select(Operand, Operand, Operand),
    Index(Var, Vec<Operand>),
    Assert(Operand),
}

fn bits(c: PrimValue) -> u64 {
    match c {
        PrimValue::Bool(b) => u64::from(b),
        PrimValue::I8(x) => x as u64,
        PrimValue::I16(x) => x as u64,
        PrimValue::I32(x) => x as u64,
        PrimValue::I64(x) => x as u64,
        PrimValue::U8(x) => u64::from(x),
        PrimValue::U16(x) => u64::from(x),
        PrimValue::U32(x) => u64::from(x),
        PrimValue::U64(x) => x,
        PrimValue::F16(x) => u64::from(x.to_bits()),
        PrimValue::F32(x) => u64::from(x.to_bits()),
        PrimValue::F64(x) => x.to_bits(),
    }
}

/// Statements replaced so far: variable → the earlier variable with the same value.
struct Cse {
    subst: HashMap<Var, Var>,
}

impl Cse {
    fn resolve(&self, mut v: Var) -> Var {
        while let Some(w) = self.subst.get(&v) {
            v = *w;
        }
        v
    }

    fn operand(&self, a: &Atom) -> Operand {
        match a {
            Atom::Var(v) => Operand::Var(self.resolve(*v)),
            Atom::Const(c) => Operand::Const(c.ty(), bits(*c)),
        }
    }

    fn key(&self, s: &Stm) -> Option<Key> {
        let scalar = s.pat.iter().all(|p| matches!(p.ty, Type::Prim(_)));
        let o = |a: &Atom| self.operand(a);
        Some(match &s.exp {
            Exp::Assert { cond, .. } => Key::Assert(o(cond)),
            _ if !scalar || s.pat.len() != 1 => return None,
            Exp::UnOp(op, t, a) => Key::Un(*op, *t, o(a)),
            Exp::BinOp(op, t, a, b) => Key::Bin(*op, *t, o(a), o(b)),
            Exp::Cmp(op, t, a, b) => Key::Cmp(*op, *t, o(a), o(b)),
            Exp::Convert { from, to, arg } => Key::Convert(*from, *to, o(arg)),
            Exp::Math(f, t, args) => Key::Math(*f, *t, args.iter().map(o).collect()),
            Exp::Select(c, a, b) => Key::Select(o(c), o(a), o(b)),
            Exp::Index { arr, idx } => {
                let fixed = idx.iter().map(|i| match i {
                    DimIndex::Fix(a) => Some(o(a)),
                    DimIndex::Slice { .. } => None,
                });
                Key::Index(self.resolve(*arr), fixed.collect::<Option<_>>()?)
            }
            _ => return None,
        })
    }

    /// `b` with `seen` the keys available from the enclosing scopes, each with the variable
    /// that holds its value (none for an assertion); restored on return.
    fn body(&mut self, b: &mut Body, seen: &mut HashMap<Key, Option<Var>>) {
        let mut added = Vec::new();
        let mut kept = Vec::with_capacity(b.stms.len());
        for mut s in std::mem::take(&mut b.stms) {
            match &mut s.exp {
                Exp::Reduce { lam, .. } | Exp::Scan { lam, .. } | Exp::Hist { lam, .. } => {
                    self.body(&mut lam.body, &mut HashMap::new());
                }
                e => crate::ir::lower::rewrite::for_each_body_mut(e, &mut |inner| {
                    self.body(inner, seen);
                }),
            }
            if let Some(k) = self.key(&s) {
                match seen.get(&k) {
                    Some(None) => {
                        // The same assertion held already.
                        continue;
                    }
                    Some(Some(w)) => {
                        self.subst.insert(s.pat[0].var, *w);
                        s.exp = Exp::Atom(Atom::Var(*w));
                    }
                    None => {
                        seen.insert(k.clone(), s.pat.first().map(|p| p.var));
                        added.push(k);
                    }
                }
            }
            kept.push(s);
        }
        b.stms = kept;
        for k in added {
            seen.remove(&k);
        }
    }
}

/// Eliminate common scalar subexpressions in `f`: the replaced statements become copies, for
/// `copy_prop`.
pub(super) fn common_subexpressions(f: &mut FunDef) {
    let mut cse = Cse { subst: HashMap::new() };
    cse.body(&mut f.body, &mut HashMap::new());
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, run};

    /// The partials of `(x - y) * (x - y)` are computed once each: one subtraction where the
    /// source and its derivative wrote three, and one product by the seed.
    #[test]
    fn repeated_scalar_computations_are_computed_once() {
        let src = "entry main (x: f64) (y: f64) : (f64, f64) =
  vjp (\\(x, y) -> (x - y) * (x - y)) (x, y) 3";
        let (c, ir) = compile(src);
        assert_eq!(ir.matches(" - ").count(), 1, "{ir}");
        assert_eq!(ir.matches(" * ").count(), 1, "{ir}");
        // d/dx = 2(x - y)·3, d/dy = -2(x - y)·3.
        assert_eq!(run(&c, "main", "5.0 3.0").as_deref(), Ok("12.0f64 -12.0f64"));
    }

    /// A read is only replaced by an identical read before it, which fails first; a check
    /// inside one branch of an `if` is not available after it; a condition checked twice (the
    /// checks of dead reads made in different rounds) is checked once.
    #[test]
    fn reads_and_checks_are_shared_only_where_they_are_available() {
        let src = "entry main (xs: []f64) (i: i64) (c: bool) : f64 =
  vjp (\\x -> let a = if c then xs[i] * x else x
             in a + xs[i] * x + xs[i]) 1 1";
        let (c, ir) = compile(src);
        // One check in the branch, one after it (there were four); one read after the branch.
        assert_eq!(ir.matches("assert(").count(), 2, "{ir}");
        assert_eq!(ir.matches("= xs_").count(), 1, "{ir}");
        assert_eq!(run(&c, "main", "[1.0, 2.0] 1i64 true").as_deref(), Ok("4.0f64"));
        assert_eq!(run(&c, "main", "[1.0, 2.0] 1i64 false").as_deref(), Ok("3.0f64"));
        let prog = c;
        for c in ["true", "false"] {
            let e = run(&prog, "main", &format!("[1.0, 2.0] 2i64 {c}")).expect_err("bounds");
            assert!(e.contains("index [2] out of bounds"), "{e}");
        }
    }
}
