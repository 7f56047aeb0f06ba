//! Polynomials with integer coefficients, the normal form of sizes computed from other sizes
//! (`[n*m]`, `[n+1]`, `[2*n-1]`). The atoms are whatever the size type calls atomic: names and
//! size variables, and the operations the algebra leaves alone (floor divisions, remainders,
//! and products too large to expand).
//!
//! Two sizes are one size when their normal forms are equal, so `1+n` and `n+1` are, and so are
//! `n*(m+1)` and `n*m+n`. Futhark compares size expressions as they are written; comparing
//! normal forms accepts every program Futhark accepts and a few more (`[0] ++ xs ++ [0]` has the
//! size `n+2`). Coefficients wrap as `i64` arithmetic does at run time, so an identity of normal
//! forms is an identity of the values.

use std::fmt;

use crate::syntax::ast::SizeOp;

/// `Σ c·Πatoms`: monomials sorted, each monomial's atoms sorted, no zero coefficient; the
/// constant term is the monomial without atoms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Poly<A> {
    terms: Vec<(Vec<A>, i64)>,
}

impl<A: Ord + Clone> Poly<A> {
    pub fn constant(c: i64) -> Self {
        let terms = if c == 0 { Vec::new() } else { vec![(Vec::new(), c)] };
        Poly { terms }
    }

    pub fn atom(a: A) -> Self {
        Poly { terms: vec![(vec![a], 1)] }
    }

    /// The monomials with their coefficients, constant term first.
    pub fn terms(&self) -> &[(Vec<A>, i64)] {
        &self.terms
    }

    /// The value, when the polynomial is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(m, c)] if m.is_empty() => Some(*c),
            _ => None,
        }
    }

    /// The atom, when the polynomial is exactly one atom.
    pub fn as_atom(&self) -> Option<&A> {
        match self.terms.as_slice() {
            [(m, 1)] if m.len() == 1 => m.first(),
            _ => None,
        }
    }

    fn from_terms(mut terms: Vec<(Vec<A>, i64)>) -> Self {
        for (m, _) in &mut terms {
            m.sort();
        }
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Vec<A>, i64)> = Vec::with_capacity(terms.len());
        for (m, c) in terms {
            match out.last_mut() {
                Some((last, d)) if *last == m => *d = d.wrapping_add(c),
                _ => out.push((m, c)),
            }
        }
        out.retain(|(_, c)| *c != 0);
        Poly { terms: out }
    }

    pub fn add(&self, o: &Self) -> Self {
        Self::from_terms(self.terms.iter().chain(&o.terms).cloned().collect())
    }

    pub fn scale(&self, k: i64) -> Self {
        Self::from_terms(self.terms.iter().map(|(m, c)| (m.clone(), c.wrapping_mul(k))).collect())
    }

    pub fn sub(&self, o: &Self) -> Self {
        self.add(&o.scale(-1))
    }

    pub fn mul(&self, o: &Self) -> Self {
        let mut terms = Vec::with_capacity(self.terms.len() * o.terms.len());
        for (m1, c1) in &self.terms {
            for (m2, c2) in &o.terms {
                let mut m = m1.clone();
                m.extend(m2.iter().cloned());
                terms.push((m, c1.wrapping_mul(*c2)));
            }
        }
        Self::from_terms(terms)
    }

    /// The polynomial divided by `k`, when `k` divides every coefficient.
    pub fn divide_exactly(&self, k: i64) -> Option<Self> {
        let terms = self
            .terms
            .iter()
            .map(|(m, c)| match c.checked_rem(k) {
                Some(0) => Some((m.clone(), c / k)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Poly { terms })
    }

    /// The polynomial divided by `d`, when `d` is one monomial that divides every term
    /// (`(n*m + n) / n` is `m + 1`).
    pub fn divide_by_monomial(&self, d: &Self) -> Option<Self> {
        let [(atoms, k)] = d.terms.as_slice() else { return None };
        let terms = self
            .terms
            .iter()
            .map(|(m, c)| {
                let mut rest = m.clone();
                for a in atoms {
                    let i = rest.iter().position(|x| x == a)?;
                    rest.remove(i);
                }
                (c.checked_rem(*k)? == 0).then(|| (rest, c / k))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self::from_terms(terms))
    }

    /// The highest number of atoms in a monomial.
    pub fn degree(&self) -> usize {
        self.terms.iter().map(|(m, _)| m.len()).max().unwrap_or(0)
    }

    /// Every atom, with repetitions.
    pub fn atoms(&self) -> impl Iterator<Item = &A> {
        self.terms.iter().flat_map(|(m, _)| m.iter())
    }

    /// Written out as in source (`2*n*m - n + 1`), each atom by `atom`; the constant term last.
    pub fn write(
        &self,
        f: &mut dyn fmt::Write,
        atom: &mut dyn FnMut(&A, &mut dyn fmt::Write) -> fmt::Result,
    ) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        // Positive terms first, then negative ones, then the constant: `n - i`, `n*m + 1`.
        let (consts, rest): (Vec<_>, Vec<_>) = self.terms.iter().partition(|(m, _)| m.is_empty());
        let (pos, neg): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(_, c)| *c > 0);
        for (i, (m, c)) in pos.iter().chain(&neg).chain(&consts).enumerate() {
            let (neg, mag) = if *c < 0 && *c != i64::MIN { (true, -c) } else { (false, *c) };
            match (i, neg) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            if m.is_empty() || mag != 1 {
                write!(f, "{mag}")?;
            }
            for (k, a) in m.iter().enumerate() {
                if k > 0 || mag != 1 {
                    f.write_str("*")?;
                }
                atom(a, f)?;
            }
        }
        Ok(())
    }
}

/// Floor division, as Futhark's `/` on integers (`None` for a zero divisor or an overflow).
pub fn div_floor(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q })
}

/// The remainder of floor division, as Futhark's `%` on integers.
pub fn mod_floor(a: i64, b: i64) -> Option<i64> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
}

/// What a size type is made of, seen from the algebra: a constant, a polynomial (in normal form:
/// never a lone constant or a lone atom), an operation the algebra does not expand (a floor
/// division, a remainder, or a product whose expansion would be larger than [`MAX_NODES`]), or
/// an atom.
pub enum View<'a, T> {
    Const(i64),
    Poly(&'a Poly<T>),
    Opaque(SizeOp, &'a T, &'a T),
    Atom,
}

/// The most nodes (constants, atoms, terms, operations) a size may have before the checker
/// stops computing it from its parts: a product whose expansion would be larger stays a product
/// of its factors (so `(a+b)*(c+d)*...` cannot make a type exponentially large), and a larger
/// size that an application returns (`sq (sq (sq xs))` doubles at every step) is existential.
pub const MAX_NODES: usize = 64;

/// The highest degree a product is expanded to (`n*n*...*n` stays a product past it).
pub const MAX_DEGREE: usize = 16;

/// A size type whose compound sizes are polynomials over its atoms: the checker's `Dim` and the
/// `Size` of checked types share the algebra below.
pub trait SizeTerm: Ord + Clone + Sized {
    fn constant(c: i64) -> Self;
    /// Called only with a polynomial that is neither a constant nor an atom.
    fn poly(p: Poly<Self>) -> Self;
    /// `a op b` left as it is (see [`View::Opaque`]).
    fn opaque(op: SizeOp, a: Self, b: Self) -> Self;
    fn view(&self) -> View<'_, Self>;
}

/// The size as a polynomial (an atom or a division is an atom of it).
pub fn to_poly<T: SizeTerm>(t: &T) -> Poly<T> {
    match t.view() {
        View::Const(c) => Poly::constant(c),
        View::Poly(p) => p.clone(),
        View::Opaque(..) | View::Atom => Poly::atom(t.clone()),
    }
}

/// The canonical size of a polynomial: a constant, an atom, or a compound.
pub fn from_poly<T: SizeTerm>(p: Poly<T>) -> T {
    if let Some(c) = p.as_const() {
        return T::constant(c);
    }
    if let Some(a) = p.as_atom() {
        return a.clone();
    }
    T::poly(p)
}

/// `a op b` in normal form. Divisions and remainders fold when both sides are constants (and
/// the divisor is not zero), and by 1; otherwise they stay as written.
pub fn arith<T: SizeTerm>(op: SizeOp, a: &T, b: &T) -> T {
    let (pa, pb) = (to_poly(a), to_poly(b));
    match op {
        SizeOp::Add => from_poly(pa.add(&pb)),
        SizeOp::Sub => from_poly(pa.sub(&pb)),
        SizeOp::Mul
            if pa.terms().len() * pb.terms().len() > MAX_NODES
                || pa.degree() + pb.degree() > MAX_DEGREE =>
        {
            T::opaque(op, a.clone(), b.clone())
        }
        SizeOp::Mul => {
            let p = from_poly(pa.mul(&pb));
            if larger_than(&p, MAX_NODES) {
                T::opaque(op, a.clone(), b.clone())
            } else {
                p
            }
        }
        SizeOp::Div | SizeOp::Mod => {
            let folded = match (pa.as_const(), pb.as_const()) {
                (Some(x), Some(y)) if op == SizeOp::Div => div_floor(x, y),
                (Some(x), Some(y)) => mod_floor(x, y),
                (_, Some(1)) if op == SizeOp::Div => return a.clone(),
                (_, Some(1)) => Some(0),
                _ => None,
            };
            match folded {
                Some(c) => T::constant(c),
                None => T::opaque(op, a.clone(), b.clone()),
            }
        }
    }
}

/// The size with every atom replaced by `f`'s size for it, in normal form again.
pub fn map_atoms<T: SizeTerm, U: SizeTerm>(t: &T, f: &mut dyn FnMut(&T) -> U) -> U {
    match t.view() {
        View::Const(c) => U::constant(c),
        View::Poly(p) => {
            let mut sum = U::constant(0);
            for (m, c) in p.terms() {
                let mut t = U::constant(*c);
                for a in m {
                    t = arith(SizeOp::Mul, &t, &map_atoms(a, f));
                }
                sum = arith(SizeOp::Add, &sum, &t);
            }
            sum
        }
        View::Opaque(op, a, b) => {
            let (a, b) = (map_atoms(a, f), map_atoms(b, f));
            arith(op, &a, &b)
        }
        View::Atom => f(t),
    }
}

/// Visit every atom (inside divisions too).
pub fn for_each_atom<T: SizeTerm>(t: &T, f: &mut dyn FnMut(&T)) {
    match t.view() {
        View::Const(_) => {}
        View::Poly(p) => p.atoms().for_each(|a| for_each_atom(a, f)),
        View::Opaque(_, a, b) => {
            for_each_atom(a, f);
            for_each_atom(b, f);
        }
        View::Atom => f(t),
    }
}

/// Does the size have more than `limit` nodes (constants, atoms, terms, operations)? Counting
/// stops there, so a size shared into a huge tree costs `limit` steps at most.
pub fn larger_than<T: SizeTerm>(t: &T, limit: usize) -> bool {
    fn node(budget: &mut usize) -> bool {
        let ok = *budget > 0;
        *budget = budget.saturating_sub(1);
        ok
    }
    fn within<T: SizeTerm>(t: &T, budget: &mut usize) -> bool {
        node(budget)
            && match t.view() {
                View::Const(_) | View::Atom => true,
                View::Poly(p) => p
                    .terms()
                    .iter()
                    .all(|(m, _)| node(budget) && m.iter().all(|a| within(a, budget))),
                View::Opaque(_, a, b) => within(a, budget) && within(b, budget),
            }
    }
    let mut budget = limit;
    !within(t, &mut budget)
}

/// Is the size compound (a polynomial or an operation)?
pub fn is_compound<T: SizeTerm>(t: &T) -> bool {
    matches!(t.view(), View::Poly(_) | View::Opaque(..))
}

/// Written out as in source, atoms by `atom`: `n*m + 1`, `(n + 1)/2`.
pub fn write_size<T: SizeTerm>(
    t: &T,
    f: &mut dyn fmt::Write,
    atom: &mut dyn FnMut(&T, &mut dyn fmt::Write) -> fmt::Result,
) -> fmt::Result {
    match t.view() {
        View::Const(c) => write!(f, "{c}"),
        View::Atom => atom(t, f),
        View::Poly(p) => p.write(f, &mut |a, f| write_operand(a, f, atom)),
        View::Opaque(op, a, b) => {
            write_operand(a, f, atom)?;
            f.write_str(op.symbol())?;
            write_operand(b, f, atom)
        }
    }
}

/// An operand of `*`, `/` or `%`: in parentheses unless it is an atom or a constant.
fn write_operand<T: SizeTerm>(
    t: &T,
    f: &mut dyn fmt::Write,
    atom: &mut dyn FnMut(&T, &mut dyn fmt::Write) -> fmt::Result,
) -> fmt::Result {
    match t.view() {
        View::Const(c) if c < 0 => write!(f, "({c})"),
        View::Const(_) | View::Atom => write_size(t, f, atom),
        View::Poly(_) | View::Opaque(..) => {
            f.write_str("(")?;
            write_size(t, f, atom)?;
            f.write_str(")")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Poly<String> {
        Poly::atom(s.to_string())
    }

    fn show(p: &Poly<String>) -> String {
        let mut s = String::new();
        p.write(&mut s, &mut |a, f| f.write_str(a)).unwrap();
        s
    }

    #[test]
    fn normal_forms_identify_equal_polynomials() {
        let n = v("n");
        let m = v("m");
        let one = Poly::constant(1);
        assert_eq!(one.add(&n), n.add(&one));
        assert_eq!(n.mul(&m.add(&one)), n.mul(&m).add(&n));
        assert_eq!(n.add(&one).sub(&one), n);
        assert_eq!(n.sub(&n), Poly::constant(0));
        assert_eq!(n.sub(&n).as_const(), Some(0));
        assert_eq!(n.as_atom(), Some(&"n".to_string()));
        assert_eq!(n.scale(2).as_atom(), None);
        assert_eq!(
            n.scale(6).add(&m.scale(-4)).divide_exactly(-2),
            Some(n.scale(-3).add(&m.scale(2)))
        );
        assert_eq!(n.scale(6).add(&one).divide_exactly(2), None);
        assert_eq!(n.divide_exactly(0), None);
    }

    #[test]
    fn division_by_a_monomial_removes_its_atoms_from_every_term() {
        let (n, m, one) = (v("n"), v("m"), Poly::constant(1));
        assert_eq!(n.mul(&m).divide_by_monomial(&n), Some(m.clone()));
        assert_eq!(n.mul(&m).add(&n).divide_by_monomial(&n), Some(m.add(&one)));
        assert_eq!(n.mul(&n).scale(4).divide_by_monomial(&n.scale(2)), Some(n.scale(2)));
        assert_eq!(n.scale(6).divide_by_monomial(&one.scale(3)), Some(n.scale(2)));
        // Not every term has the atoms, a coefficient does not divide, or not a monomial.
        assert_eq!(n.mul(&m).add(&one).divide_by_monomial(&n), None);
        assert_eq!(n.scale(3).divide_by_monomial(&n.scale(2)), None);
        assert_eq!(n.mul(&m).divide_by_monomial(&n.add(&m)), None);
        assert_eq!(n.divide_by_monomial(&Poly::constant(0)), None);
    }

    #[test]
    fn printed_as_in_source() {
        let n = v("n");
        let m = v("m");
        assert_eq!(show(&n.mul(&m)), "m*n");
        assert_eq!(show(&Poly::constant(1).add(&n)), "n + 1");
        assert_eq!(show(&n.scale(2).sub(&Poly::constant(1))), "2*n - 1");
        assert_eq!(show(&Poly::constant(3).sub(&n)), "-n + 3");
        assert_eq!(show(&n.sub(&m)), "n - m");
        assert_eq!(show(&Poly::constant(0)), "0");
    }

    #[test]
    fn coefficients_wrap_like_i64() {
        let n = v("n");
        let big = n.scale(i64::MAX).add(&n);
        assert_eq!(big, n.scale(i64::MIN));
        assert_eq!(show(&n.scale(i64::MIN)), "-9223372036854775808*n");
    }

    #[test]
    fn products_too_large_to_expand_stay_products() {
        use crate::types::Size;
        let n = Size::Var("n".into());
        let mut p = n.clone();
        for _ in 0..7 {
            p = arith(SizeOp::Mul, &p, &n);
        }
        assert!(matches!(&p, Size::Poly(q) if q.degree() == 8), "{p}");
        // Products of sums stay products once expanding them would pass MAX_NODES.
        let sum = |a: &str, b: &str| arith(SizeOp::Add, &Size::Var(a.into()), &Size::Var(b.into()));
        let mut q = sum("a", "b");
        for k in 0..8 {
            q = arith(SizeOp::Mul, &q, &sum(&format!("c{k}"), &format!("d{k}")));
        }
        assert!(matches!(q, Size::Opaque(SizeOp::Mul, ..)), "{q}");
        // Sizes shared into a large tree are measured without walking all of it.
        let mut t = n.clone();
        for _ in 0..16 {
            t = Size::Opaque(SizeOp::Mul, Box::new(t.clone()), Box::new(t));
        }
        assert!(larger_than(&t, MAX_NODES));
        assert!(!larger_than(&n, 1));
        assert!(larger_than(&arith(SizeOp::Add, &n, &Size::Const(1)), 2));
    }

    /// A size expression as written, and its value under `env` with `i64` semantics (wrapping
    /// `+ - *`, floor `/ %`; `None` for a zero divisor or an overflowing division).
    #[derive(Clone, Debug)]
    enum Tree {
        Var(usize),
        Const(i64),
        Op(SizeOp, Box<Tree>, Box<Tree>),
    }

    fn eval_tree(t: &Tree, env: &[i64]) -> Option<i64> {
        match t {
            Tree::Var(i) => Some(env[*i]),
            Tree::Const(c) => Some(*c),
            Tree::Op(op, a, b) => apply(*op, eval_tree(a, env)?, eval_tree(b, env)?),
        }
    }

    fn apply(op: SizeOp, x: i64, y: i64) -> Option<i64> {
        match op {
            SizeOp::Add => Some(x.wrapping_add(y)),
            SizeOp::Sub => Some(x.wrapping_sub(y)),
            SizeOp::Mul => Some(x.wrapping_mul(y)),
            SizeOp::Div => div_floor(x, y),
            SizeOp::Mod => mod_floor(x, y),
        }
    }

    fn eval_size(s: &crate::types::Size, env: &[i64]) -> Option<i64> {
        use crate::types::Size;
        match s {
            Size::Const(c) => Some(*c),
            Size::Var(n) => Some(env[n[1..].parse::<usize>().ok()?]),
            Size::Unknown(_) => None,
            Size::Poly(p) => {
                let mut sum = 0i64;
                for (m, c) in p.terms() {
                    let mut t = *c;
                    for a in m {
                        t = t.wrapping_mul(eval_size(a, env)?);
                    }
                    sum = sum.wrapping_add(t);
                }
                Some(sum)
            }
            Size::Opaque(op, a, b) => apply(*op, eval_size(a, env)?, eval_size(b, env)?),
        }
    }

    fn build(t: &Tree) -> crate::types::Size {
        use crate::types::Size;
        match t {
            Tree::Var(i) => Size::Var(format!("v{i}")),
            Tree::Const(c) => Size::Const(*c),
            Tree::Op(op, a, b) => arith(*op, &build(a), &build(b)),
        }
    }

    fn tree() -> impl proptest::strategy::Strategy<Value = Tree> {
        use proptest::prelude::*;
        let leaf = prop_oneof![(0usize..3).prop_map(Tree::Var), (-4i64..5).prop_map(Tree::Const)];
        let ops = [SizeOp::Add, SizeOp::Sub, SizeOp::Mul, SizeOp::Div, SizeOp::Mod];
        leaf.prop_recursive(5, 32, 2, move |inner| {
            (proptest::sample::select(ops.to_vec()), inner.clone(), inner)
                .prop_map(|(op, a, b)| Tree::Op(op, Box::new(a), Box::new(b)))
        })
    }

    proptest::proptest! {
        /// The normal form computes what the expression computes, so an identity of normal
        /// forms (what the checker uses for equality) holds of the run-time values.
        #[test]
        fn normal_forms_compute_what_was_written(
            t in tree(),
            env in proptest::collection::vec(proptest::prelude::any::<i64>(), 3),
            small in proptest::collection::vec(-50i64..50, 3),
        ) {
            let s = build(&t);
            for env in [&env, &small] {
                if let Some(v) = eval_tree(&t, env) {
                    proptest::prop_assert_eq!(eval_size(&s, env), Some(v), "{} is {:?}", s, t);
                }
            }
        }
    }

    #[test]
    fn floor_division_and_remainder() {
        assert_eq!(div_floor(7, 2), Some(3));
        assert_eq!(div_floor(-7, 2), Some(-4));
        assert_eq!(mod_floor(-7, 2), Some(1));
        assert_eq!(mod_floor(7, -2), Some(-1));
        assert_eq!(div_floor(1, 0), None);
        assert_eq!(div_floor(i64::MIN, -1), None);
    }
}
