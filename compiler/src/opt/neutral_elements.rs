//! `reduce op ne xs` and `scan op ne xs` whose `ne` may not be `op`'s neutral element, for `+`,
//! `*` and `^` (the operators whose repetition changes a value): `ne op (reduce op e xs)` and
//! `map (ne op) (scan op e xs)` with the true neutral element `e`.
//!
//! Futhark asks for a neutral element and leaves the result open otherwise; the interpreter folds
//! from `ne` once, left to right. A parallel backend starts every thread, chunk or workgroup from
//! `ne`, so `reduce (+) 1 xs` would count the 1 once per thread on a GPU. With `e` in its place
//! every backend computes what the interpreter does, for associative operators (which a
//! reduction's are). `min`, `max` and the bitwise and logical connectives are idempotent, so
//! starting from `ne` more than once changes nothing; they are left alone. Operators on arrays
//! that apply one of these element by element (`reduce (map2 (+)) [7, 8, 9] rows`) get a
//! replicated `e` and an element-by-element `ne op`; a tuple whose components each combine their
//! own pair (`\(a, b) (c, d) -> (a + c, b * d)`, directly or through a call) gets this per
//! component. A histogram's bins start from its
//! destination, never from `ne` in the interpreter, so a histogram of scalars simply gets `e`.

use std::collections::HashMap;

use super::new_var as fresh;
use super::summed_hists;
use crate::diag::Span;
use crate::ir::lower::builder::dim_atom;
use crate::ir::lower::rewrite::for_each_body_mut;
use crate::ir::operators::{elementwise, pair_operator, single_operator};
use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

/// Rewrite every such `reduce` and `scan` of `prog`; whether any changed.
pub fn neutral_elements_once(prog: &mut Program) -> bool {
    let mut names = std::mem::take(&mut prog.names);
    let mut changed = false;
    // Operators that call a function (`reduce (+^) (1, 0) ps`) are read through the call.
    let callees: Vec<Option<Lambda>> = prog
        .funs
        .iter()
        .map(|f| {
            (f.existentials == 0 && f.body.stms.len() <= 8).then(|| Lambda {
                params: f.params.clone(),
                body: f.body.clone(),
                ret: f.ret.clone(),
            })
        })
        .collect();
    for f in &mut prog.funs {
        changed |= body(&mut f.body, &mut names, &mut HashMap::new(), &callees);
    }
    prog.names = names;
    changed
}

/// The operator of a reduction's or scan's lambda when the pass applies to it: `+`, `*` or `^`
/// on one scalar, possibly element by element on arrays, with the accumulator on the left
/// (`true`) or right.
fn operator(lam: &Lambda) -> Option<(BinOp, PrimType, bool)> {
    let scalar = elementwise(lam)?;
    let (op, t, acc_left) = single_operator(scalar)?;
    repeats_matter(op, t).then_some((op, t, acc_left))
}

fn repeats_matter(op: BinOp, t: PrimType) -> bool {
    matches!(op, BinOp::Add | BinOp::Mul) || (op == BinOp::Xor && matches!(t, PrimType::Int(_)))
}

/// The operators of each of a reduction's or scan's values: `operator`'s for one value, and for
/// a tuple of scalars (`\(a, b) (c, d) -> (a + c, b * d)`) the operator of each component when
/// each combines only its own pair, `None` for a component whose operator is idempotent
/// (`min`, `max`, `&`, `|`), which the pass leaves alone.
fn operators(
    lam: &Lambda,
    callees: &[Option<Lambda>],
) -> Option<Vec<Option<(BinOp, PrimType, bool)>>> {
    let lam = through_call(lam, callees);
    if lam.params.len() == 2 {
        return operator(lam).map(|o| vec![Some(o)]);
    }
    let k = lam.body.result.len();
    if k < 2 || lam.params.len() != 2 * k || lam.body.stms.len() != k {
        return None;
    }
    let mut ops = Vec::new();
    for (i, r) in lam.body.result.iter().enumerate() {
        let (acc, x) = (&lam.params[i], &lam.params[k + i]);
        let (op, t, acc_left) = lam.body.stms.iter().find_map(|s| pair_operator(s, acc, x, r))?;
        if repeats_matter(op, t) {
            ops.push(Some((op, t, acc_left)));
        } else if matches!(op, BinOp::Min | BinOp::Max | BinOp::And | BinOp::Or) {
            ops.push(None);
        } else {
            return None;
        }
    }
    Some(ops)
}

/// The neutral element of a histogram's operator on scalars of type `t`, where it has one.
fn hist_neutral(op: BinOp, t: PrimType) -> Option<PrimValue> {
    // The type's least and greatest values.
    let bounds = || match t {
        PrimType::Int(i) if i.signed() => {
            let half = 1i128 << (i.bits() - 1);
            Some((PrimValue::int(i, -half), PrimValue::int(i, half - 1)))
        }
        PrimType::Int(i) => {
            Some((PrimValue::int(i, 0), PrimValue::int(i, (1i128 << i.bits()) - 1)))
        }
        PrimType::Float(f) => {
            Some((PrimValue::float(f, f64::NEG_INFINITY), PrimValue::float(f, f64::INFINITY)))
        }
        PrimType::Bool => None,
    };
    match (op, t) {
        _ if repeats_matter(op, t) => Some(neutral_of(op, t)),
        (BinOp::Min, _) => bounds().map(|(_, hi)| hi),
        (BinOp::Max, _) => bounds().map(|(lo, _)| lo),
        (BinOp::And, PrimType::Int(i)) => Some(PrimValue::int(i, -1)),
        (BinOp::And, PrimType::Bool) => Some(PrimValue::Bool(true)),
        (BinOp::Or, PrimType::Int(_) | PrimType::Bool) => Some(PrimValue::zero(t)),
        _ => None,
    }
}

/// The function that `lam` only calls with its parameters, returning its results, in `lam`'s
/// place; `lam` itself otherwise.
fn through_call<'a>(lam: &'a Lambda, callees: &'a [Option<Lambda>]) -> &'a Lambda {
    let ([stm], res) = (lam.body.stms.as_slice(), &lam.body.result) else { return lam };
    let Exp::Apply { fun, args } = &stm.exp else { return lam };
    let passes_params = args.len() == lam.params.len()
        && args.iter().zip(&lam.params).all(|(a, p)| *a == Atom::Var(p.var));
    let returns_results =
        stm.pat.len() == res.len() && stm.pat.iter().zip(res).all(|(p, r)| *r == Atom::Var(p.var));
    match callees.get(*fun) {
        Some(Some(f)) if passes_params && returns_results => f,
        _ => lam,
    }
}

fn neutral_of(op: BinOp, t: PrimType) -> PrimValue {
    match op {
        BinOp::Mul => PrimValue::one(t),
        _ => PrimValue::zero(t),
    }
}

/// Whether `a` is certainly `e`: a constant equal to it (`-0.0` is not `+`'s neutral element), or
/// an array replicating one (`filled`: the variables bound to replicates of constants).
fn is_neutral(a: &Atom, e: PrimValue, filled: &HashMap<Var, PrimValue>) -> bool {
    let a = match a {
        Atom::Var(v) => match filled.get(v) {
            Some(c) => &Atom::Const(*c),
            None => return false,
        },
        a => a,
    };
    match (a, e) {
        (Atom::Const(PrimValue::F16(x)), PrimValue::F16(y)) => x.to_bits() == y.to_bits(),
        (Atom::Const(PrimValue::F32(x)), PrimValue::F32(y)) => x.to_bits() == y.to_bits(),
        (Atom::Const(PrimValue::F64(x)), PrimValue::F64(y)) => x.to_bits() == y.to_bits(),
        (Atom::Const(c), e) => *c == e,
        _ => false,
    }
}

fn body(
    b: &mut Body,
    names: &mut Vec<String>,
    filled: &mut HashMap<Var, PrimValue>,
    callees: &[Option<Lambda>],
) -> bool {
    let mut changed = false;
    let stms = std::mem::take(&mut b.stms);
    for mut s in stms {
        if let (Exp::Replicate { value, .. }, [p]) = (&s.exp, s.pat.as_slice()) {
            let c = match value {
                Atom::Const(c) => Some(*c),
                Atom::Var(v) => filled.get(v).copied(),
            };
            if let Some(c) = c {
                filled.insert(p.var, c);
            }
        }
        for_each_body_mut(&mut s.exp, &mut |inner| changed |= body(inner, names, filled, callees));
        if let Exp::Hist { lam, neutral, .. } = &mut s.exp {
            // The interpreter never uses a histogram's `ne` (bins start from `dest`): a parallel
            // backend's private bins start from it, so it must be neutral, for the idempotent
            // operators too (`hist f32.min f32.lowest` would leave every private bin at
            // `f32.lowest`).
            let scalar = matches!(lam.params.first().map(|p| &p.ty), Some(Type::Prim(_)));
            let op = single_operator(through_call(lam, callees)).filter(|_| scalar);
            let e = op.and_then(|(op, t, _)| hist_neutral(op, t));
            if let (Some(e), [ne]) = (e, neutral.as_mut_slice()) {
                if !is_neutral(ne, e, filled) {
                    *ne = Atom::Const(e);
                    changed = true;
                }
            }
            b.stms.push(s);
            continue;
        }
        let (lam, ne) = match &s.exp {
            Exp::Reduce { lam, neutral, .. } | Exp::Scan { lam, neutral, .. } => (lam, neutral),
            _ => {
                b.stms.push(s);
                continue;
            }
        };
        let (ops, mut ne) = match operators(lam, callees) {
            Some(ops) if ops.len() == ne.len() && ops.len() == s.pat.len() => (ops, ne.clone()),
            _ => {
                b.stms.push(s);
                continue;
            }
        };
        // The components whose `ne` is not their operator's neutral element.
        let mut redo = Vec::new();
        for (i, o) in ops.into_iter().enumerate() {
            if let Some((op, t, acc_left)) = o {
                let e = neutral_of(op, t);
                if !is_neutral(&ne[i], e, filled) {
                    redo.push((i, op, e, acc_left));
                }
            }
        }
        if redo.is_empty() {
            b.stms.push(s);
            continue;
        }
        changed = true;
        let span = s.span;
        let is_scan = matches!(s.exp, Exp::Scan { .. });
        let mut after = Vec::new();
        for (i, op, e, acc_left) in redo {
            let p = s.pat[i].clone();
            let (elem, shape) = match &p.ty {
                Type::Prim(t) => (*t, Vec::new()),
                Type::Array { elem, shape } => (*elem, shape.clone()),
            };
            // A scan's result has one dimension more than its elements, which `ne` does not
            // have.
            let skip = usize::from(is_scan);
            let ne_shape = shape.get(skip..).unwrap_or_default().to_vec();
            // The neutral element in `ne`'s place: a scalar, or a replicate of it of `ne`'s
            // shape.
            let e_atom = if ne_shape.is_empty() {
                Atom::Const(e)
            } else {
                let z = fresh(names, "neutral");
                let ty = Type::Array { elem, shape: ne_shape.clone() };
                let exp = Exp::Replicate { shape: ne_shape, value: Atom::Const(e) };
                b.stms.push(Stm { pat: vec![Param { var: z, ty }], exp, span });
                Atom::Var(z)
            };
            let plain = summed_hists::fresh(names, p.var);
            let ne_i = std::mem::replace(&mut ne[i], e_atom);
            s.pat[i] = Param { var: plain, ty: p.ty.clone() };
            let exp = combine(names, op, elem, acc_left, ne_i, plain, &shape, skip);
            after.push(Stm { pat: vec![p], exp, span });
        }
        if let Exp::Reduce { neutral, .. } | Exp::Scan { neutral, .. } = &mut s.exp {
            *neutral = ne;
        }
        b.stms.push(s);
        b.stms.extend(after);
    }
    changed
}

/// `ne op x` (or `x op ne`) element by element over `x`'s dimensions `dims`, of which the first
/// `skip` are not `ne`'s (a scan's results are rows of its elements; `ne` is one element).
#[allow(clippy::too_many_arguments)]
fn combine(
    names: &mut Vec<String>,
    op: BinOp,
    t: PrimType,
    acc_left: bool,
    ne: Atom,
    x: Var,
    dims: &[Dim],
    skip: usize,
) -> Exp {
    let Some((d, rest)) = dims.split_first() else {
        let (a, b) = if acc_left { (ne, Atom::Var(x)) } else { (Atom::Var(x), ne) };
        return Exp::BinOp(op, t, a, b);
    };
    let row =
        if rest.is_empty() { Type::Prim(t) } else { Type::Array { elem: t, shape: rest.to_vec() } };
    let xr = fresh(names, "x");
    let mut params = vec![Param { var: xr, ty: row.clone() }];
    let mut arrs = vec![x];
    let ne_row = match ne {
        Atom::Var(nv) if skip == 0 => {
            let nr = fresh(names, "ne");
            params.insert(0, Param { var: nr, ty: row.clone() });
            arrs.insert(0, nv);
            Atom::Var(nr)
        }
        ne => ne,
    };
    let r = fresh(names, "r");
    let inner = combine(names, op, t, acc_left, ne_row, xr, rest, skip.saturating_sub(1));
    let stm = Stm { pat: vec![Param { var: r, ty: row.clone() }], exp: inner, span: Span::DUMMY };
    let lam = Lambda {
        params,
        body: Body { stms: vec![stm], result: vec![Atom::Var(r)] },
        ret: vec![row],
    };
    Exp::Map { w: dim_atom(*d), lam, arrs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::{compile, run};

    /// `src` rewritten: whether it changed, its IR after (validated), and `entry`'s results on
    /// `args` before and after.
    fn rewrite(src: &str, entry: &str, args: &str) -> (bool, String, String, String) {
        let (mut c, _) = compile(src);
        let before = run(&c, entry, args).unwrap();
        let changed = neutral_elements_once(&mut c.ir);
        crate::ir::validate::validate(&c.ir).expect("valid IR");
        let ir = crate::ir::print::print_program(&c.ir);
        (changed, ir.clone(), before, run(&c, entry, args).unwrap_or_else(|e| panic!("{e}\n{ir}")))
    }

    #[test]
    fn a_neutral_element_is_left_alone() {
        let src = "entry main (xs: []i32) (xss: [][3]f32) =
                     (reduce (+) 0 xs, scan (*) 1 xs, reduce (map2 (+)) (replicate 3 0) xss,
                      reduce i32.max 5 xs, hist (+) 0 2 (map (\\x -> i64.i32 (x % 2)) xs) xs)";
        let (changed, ir, before, after) = rewrite(src, "main", "[1, 2, 3] [[1f32, 2f32, 3f32]]");
        assert!(!changed, "{ir}");
        assert_eq!(before, after);
    }

    #[test]
    fn another_element_is_folded_in_once() {
        let src = "entry main (xs: []i32) (xss: [][3]f32) (k: i32) =
                     (reduce (+) 7 xs, scan (*) 2 xs, reduce (map2 (+)) [1, 2, 3] xss,
                      reduce (^) k xs, scan (map2 (+)) [1, 2, 3] xss,
                      hist (+) 5 2 (map (\\x -> i64.i32 (x % 2)) xs) xs)";
        let (changed, ir, before, after) =
            rewrite(src, "main", "[1, 2, 3] [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] 12");
        assert!(changed);
        assert_eq!(before, after, "{ir}");
        // Every reduction and scan now starts from 0 or 1, and the histogram's bins from 0.
        let old = ir.lines().find(|l| l.contains("(7i32)") || l.contains("(2i32)"));
        assert!(old.is_none(), "an operator still starts from its old element: {old:?}\n{ir}");
        assert!(ir.contains("(0i32)") && ir.contains("(1i32)"), "{ir}");
    }

    #[test]
    fn tuple_components_are_folded_in_once_each() {
        let src = "def add ((a, b): (i32, i32)) ((c, d): (i32, i32)) = (a + c, b + d)
                   entry main (xs: []i32) =
                     (reduce (\\(a, b) (c, d) -> (a * c, i32.min b d)) (3, 4) (zip xs xs),
                      scan add (5, 0) (zip xs xs))";
        let (changed, ir, before, after) = rewrite(src, "main", "[1, 2, 3]");
        assert!(changed);
        assert_eq!(before, after, "{ir}");
        // The product starts from 1 and the sum through `add` from 0; the minimum keeps its 4.
        assert!(ir.contains("(1i32, 4i32)"), "{ir}");
        assert!(ir.contains("(0i32, 0i32)"), "{ir}");
    }

    #[test]
    fn histograms_of_idempotent_operators_get_their_neutral_element() {
        let src = "entry main (xs: []i64) =
                     (reduce_by_index (replicate 2 9f32) f32.min f32.lowest xs (map f32.i64 xs),
                      reduce_by_index (replicate 2 9u8) (|) 1u8 xs (map u8.i64 xs))";
        let (changed, ir, before, after) = rewrite(src, "main", "[0i64, 1i64, 1i64]");
        assert!(changed);
        assert_eq!(before, after, "{ir}");
        assert!(ir.contains("(f32.inf)") && ir.contains("(0u8)"), "{ir}");
    }

    #[test]
    fn components_that_mix_their_pairs_are_left_alone() {
        let src = "entry main (xs: []i32) =
                     reduce (\\(a, b) (c, d) -> (a + d, b + c)) (3, 4) (zip xs xs)";
        let (changed, ir, _, _) = rewrite(src, "main", "[1, 2, 3]");
        assert!(!changed, "{ir}");
    }
}
