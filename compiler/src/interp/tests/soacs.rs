//! map, reduce, scan, scatter and hist.

use super::builder::*;
use crate::interp::Limits;
use crate::ir::{Atom, BinOp, CmpOp, DimIndex, Exp, Lambda, Param, Type, Var};
use crate::prim::{IntType, PrimType};

/// `\a b -> a op b` on `ty`.
fn binop_lambda(b: &mut Bb, op: BinOp, ty: PrimType) -> Lambda {
    let x = b.param("a", t(ty));
    let y = b.param("b", t(ty));
    let (xv, yv) = (x.var, y.var);
    let mut lb = b.sub();
    let r = lb.let1("r", t(ty), Exp::BinOp(op, ty, v(xv), v(yv)));
    lambda(vec![x, y], lb.finish(vec![v(r)]), vec![t(ty)])
}

/// `f (n: i64) (xs: [n]elem) = soac`, where `make` builds the SOAC from `n` and `xs`.
fn over(elem: PrimType, ret: Vec<Type>, make: impl FnOnce(&mut Bb, Var, Var) -> Exp) -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let xs = p.param("xs", arr(elem, &[d(n.var)]));
    let (nv, xv) = (n.var, xs.var);
    let mut b = p.body();
    let e = make(&mut b, nv, xv);
    let outs: Vec<Param> = ret.iter().map(|t| b.param("out", t.clone())).collect();
    let atoms = outs.iter().map(|o| v(o.var)).collect();
    b.bind(outs, e);
    let body = b.finish(atoms);
    p.fun("f", vec![n, xs], ret, body);
    p
}

#[test]
fn map_applies_the_function_to_every_element() {
    let p = over(I64, vec![arr(I64, &[c(4)])], |b, n, xs| {
        let x = b.param("x", t(I64));
        let xv = x.var;
        let mut lb = b.sub();
        let r = lb.let1("r", t(I64), Exp::BinOp(BinOp::Mul, I64, v(xv), k64(2)));
        let lam = lambda(vec![x], lb.finish(vec![v(r)]), vec![t(I64)]);
        Exp::Map { w: v(n), lam, arrs: vec![xs] }
    });
    assert_eq!(ok(&p, 0, vec![s64(4), range64(&[4])]), vec![a64(&[4], &[0, 2, 4, 6])]);
}

#[test]
fn map_over_rows_with_several_results() {
    // map (\row -> (row[1], row with [0] = 0)) xss
    let mut p = Prog::new();
    let xss = p.param("xss", arr(I64, &[c(2), c(3)]));
    let xv = xss.var;
    let mut b = p.body();
    let row = b.param("row", arr(I64, &[c(3)]));
    let rv = row.var;
    let mut lb = b.sub();
    let second =
        lb.let1("second", t(I64), Exp::Index { arr: rv, idx: vec![DimIndex::Fix(k64(1))] });
    let fresh = lb.let1("fresh", arr(I64, &[c(3)]), Exp::Copy(rv));
    let zeroed = lb.let1(
        "zeroed",
        arr(I64, &[c(3)]),
        Exp::Update { arr: fresh, idx: vec![DimIndex::Fix(k64(0))], value: k64(0) },
    );
    let lam =
        lambda(vec![row], lb.finish(vec![v(second), v(zeroed)]), vec![t(I64), arr(I64, &[c(3)])]);
    let a = b.param("a", arr(I64, &[c(2)]));
    let bb = b.param("bb", arr(I64, &[c(2), c(3)]));
    let (av, bv) = (a.var, bb.var);
    b.bind(vec![a, bb], Exp::Map { w: k64(2), lam, arrs: vec![xv] });
    let body = b.finish(vec![v(av), v(bv), v(xv)]);
    p.fun(
        "f",
        vec![xss],
        vec![arr(I64, &[c(2)]), arr(I64, &[c(2), c(3)]), arr(I64, &[c(2), c(3)])],
        body,
    );
    let r = ok(&p, 0, vec![range64(&[2, 3])]);
    // The input is untouched although a copy of each row was updated.
    assert_eq!(r, vec![a64(&[2], &[1, 4]), a64(&[2, 3], &[0, 1, 2, 0, 4, 5]), range64(&[2, 3])]);
}

#[test]
fn map_with_irregular_results_is_a_size_error() {
    // map (\x -> iota x) [3, 4]
    let p = over(I64, vec![arr(I64, &[c(2), c(3)])], |b, n, xs| {
        let x = b.param("x", t(I64));
        let xv = x.var;
        let mut lb = b.sub();
        let r = lb.let1(
            "r",
            arr(I64, &[d(xv)]),
            Exp::Iota { n: v(xv), start: k64(0), step: k64(1), it: IntType::I64 },
        );
        let lam = lambda(vec![x], lb.finish(vec![v(r)]), vec![arr(I64, &[d(xv)])]);
        Exp::Map { w: v(n), lam, arrs: vec![xs] }
    });
    // Invalid on purpose: the result type names the function's own parameter, so the sizes can
    // only be compared between iterations.
    let mut p = p;
    p.invalid = true;
    let span = p.prog.funs[0].body.stms[0].span;
    let e = fails(&p, 0, vec![s64(2), a64(&[2], &[3, 4])]);
    assert_eq!(
        e.message,
        "size mismatch: irregular array: map's function returned arrays of shapes [3] and [4]"
    );
    assert_eq!(e.span, span);
    assert_eq!(
        ok(&p, 0, vec![s64(2), a64(&[2], &[3, 3])]),
        vec![a64(&[2, 3], &[0, 1, 2, 0, 1, 2])]
    );
}

#[test]
fn empty_map_takes_its_element_shape_from_the_declared_type() {
    // f (n: i64) (m: i64) (xs: [n]i64) = map (\x -> replicate m x) xs, with n = 0
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let m = p.param("m", t(I64));
    let xs = p.param("xs", arr(I64, &[d(n.var)]));
    let (nv, mv, xv) = (n.var, m.var, xs.var);
    let mut b = p.body();
    let x = b.param("x", t(I64));
    let xx = x.var;
    let mut lb = b.sub();
    let r = lb.let1("r", arr(I64, &[d(mv)]), Exp::Replicate { shape: vec![d(mv)], value: v(xx) });
    let lam = lambda(vec![x], lb.finish(vec![v(r)]), vec![arr(I64, &[d(mv)])]);
    let out = b.let1("out", arr(I64, &[d(nv), d(mv)]), Exp::Map { w: v(nv), lam, arrs: vec![xv] });
    let body = b.finish(vec![v(out)]);
    p.fun("f", vec![n, m, xs], vec![arr(I64, &[d(nv), d(mv)])], body);
    assert_eq!(ok(&p, 0, vec![s64(0), s64(7), a64(&[0], &[])]), vec![a64(&[0, 7], &[])]);
    assert_eq!(ok(&p, 0, vec![s64(1), s64(2), a64(&[1], &[5])]), vec![a64(&[1, 2], &[5, 5])]);
}

#[test]
fn map_width_must_match_the_arrays() {
    let p = over(I64, vec![arr(I64, &[c(3)])], |b, _, xs| {
        let x = b.param("x", t(I64));
        let xv = x.var;
        let lam = lambda(vec![x], b.sub().finish(vec![v(xv)]), vec![t(I64)]);
        Exp::Map { w: k64(3), lam, arrs: vec![xs] }
    });
    let e = fails(&p, 0, vec![s64(2), range64(&[2])]);
    assert_eq!(e.message, "size mismatch: `map` of width 3 applied to `xs` of shape [2]");
}

#[test]
fn reduce_folds_from_the_neutral_element() {
    let p = over(F32, vec![t(F32)], |b, n, xs| {
        let lam = binop_lambda(b, BinOp::Add, F32);
        Exp::Reduce { w: v(n), lam, neutral: vec![kf32(0.5)], arrs: vec![xs], commutative: true }
    });
    assert_eq!(ok(&p, 0, vec![s64(3), af32(&[3], &[1.0, 2.0, 4.0])]), vec![sf32(7.5)]);
    assert_eq!(ok(&p, 0, vec![s64(0), af32(&[0], &[])]), vec![sf32(0.5)]);
}

#[test]
fn reduce_with_a_tuple_operator_computes_argmax() {
    // reduce (\(i, x) (j, y) -> if x >= y then (i, x) else (j, y)) (-1, -inf) (zip (iota n) xs)
    let p = over(F32, vec![t(I64), t(F32)], |b, n, xs| {
        let is = b.let1(
            "is",
            arr(I64, &[d(n)]),
            Exp::Iota { n: v(n), start: k64(0), step: k64(1), it: IntType::I64 },
        );
        let ps: Vec<Param> = [("i", I64), ("x", F32), ("j", I64), ("y", F32)]
            .iter()
            .map(|(name, ty)| b.param(name, t(*ty)))
            .collect();
        let [i, x, j, y] = [ps[0].var, ps[1].var, ps[2].var, ps[3].var];
        let mut lb = b.sub();
        let ge = lb.let1("ge", t(BOOL), Exp::Cmp(CmpOp::Ge, F32, v(x), v(y)));
        let ri = lb.let1("ri", t(I64), Exp::Select(v(ge), v(i), v(j)));
        let rx = lb.let1("rx", t(F32), Exp::Select(v(ge), v(x), v(y)));
        let lam = lambda(ps, lb.finish(vec![v(ri), v(rx)]), vec![t(I64), t(F32)]);
        Exp::Reduce {
            w: v(n),
            lam,
            neutral: vec![k64(-1), kf32(f32::NEG_INFINITY)],
            arrs: vec![is, xs],
            commutative: false,
        }
    });
    let r = ok(&p, 0, vec![s64(4), af32(&[4], &[1.0, 9.0, 3.0, 9.0])]);
    assert_eq!(r, vec![s64(1), sf32(9.0)]);
}

#[test]
fn reduce_over_rows_with_a_vector_operator() {
    // reduce (map2 (+)) (replicate 2 0) xss
    let mut p = Prog::new();
    let xss = p.param("xss", arr(I64, &[c(3), c(2)]));
    let xv = xss.var;
    let mut b = p.body();
    let zero =
        b.let1("zero", arr(I64, &[c(2)]), Exp::Replicate { shape: vec![c(2)], value: k64(0) });
    let a = b.param("a", arr(I64, &[c(2)]));
    let bb = b.param("b", arr(I64, &[c(2)]));
    let (av, bv) = (a.var, bb.var);
    let mut lb = b.sub();
    let plus = binop_lambda(&mut lb, BinOp::Add, I64);
    let s = lb.let1("s", arr(I64, &[c(2)]), Exp::Map { w: k64(2), lam: plus, arrs: vec![av, bv] });
    let lam = lambda(vec![a, bb], lb.finish(vec![v(s)]), vec![arr(I64, &[c(2)])]);
    let r = b.let1(
        "r",
        arr(I64, &[c(2)]),
        Exp::Reduce { w: k64(3), lam, neutral: vec![v(zero)], arrs: vec![xv], commutative: true },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xss], vec![arr(I64, &[c(2)])], body);
    assert_eq!(ok(&p, 0, vec![range64(&[3, 2])]), vec![a64(&[2], &[6, 9])]);
}

#[test]
fn scan_is_inclusive() {
    let scan = |len| {
        over(I32, vec![arr(I32, &[c(len)])], |b, n, xs| {
            let lam = binop_lambda(b, BinOp::Add, I32);
            Exp::Scan { w: v(n), lam, neutral: vec![k32(0)], arrs: vec![xs] }
        })
    };
    let r = ok(&scan(4), 0, vec![s64(4), a32(&[4], &[1, 2, 3, 4])]);
    assert_eq!(r, vec![a32(&[4], &[1, 3, 6, 10])]);
    assert_eq!(ok(&scan(0), 0, vec![s64(0), a32(&[0], &[])]), vec![a32(&[0], &[])]);
}

/// `f (dest: [5]i64) (is: [4]i64) (vs: [4]i64) = scatter dest is vs`
fn scatter_program() -> Prog {
    let mut p = Prog::new();
    let dest = p.param("dest", arr(I64, &[c(5)]));
    let is = p.param("is", arr(I64, &[c(4)]));
    let vs = p.param("vs", arr(I64, &[c(4)]));
    let (dv, iv, vv) = (dest.var, is.var, vs.var);
    let mut b = p.body();
    let r = b.let1(
        "r",
        arr(I64, &[c(5)]),
        Exp::Scatter { dest: dv, idx: vec![iv], vals: vv, w: k64(4) },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![dest, is, vs], vec![arr(I64, &[c(5)])], body);
    p
}

#[test]
fn scatter_ignores_out_of_bounds_and_the_last_duplicate_wins() {
    let p = scatter_program();
    let r = ok(&p, 0, vec![range64(&[5]), a64(&[4], &[1, -1, 7, 1]), a64(&[4], &[10, 20, 30, 40])]);
    assert_eq!(r, vec![a64(&[5], &[0, 40, 2, 3, 4])]);
    // The destination is updated in place: room for one more copy of it is not needed.
    let limits = Limits { max_live_elements: 5 + 4 + 4, ..Limits::default() };
    let args = vec![range64(&[5]), a64(&[4], &[0, 1, 2, 3]), a64(&[4], &[9, 9, 9, 9])];
    assert_eq!(call_with(&p, 0, args, &limits).unwrap(), vec![a64(&[5], &[9, 9, 9, 9, 4])]);
}

#[test]
fn scatter_2d_and_rows() {
    // scatter_2d (replicate 2 2 0) (zip [0, 1, 5] [1, 0, 0]) [5, 6, 7]
    let mut p = Prog::new();
    let dest = p.param("dest", arr(I64, &[c(2), c(2)]));
    let rows = p.param("rows", arr(I64, &[c(3)]));
    let cols = p.param("cols", arr(I64, &[c(3)]));
    let vals = p.param("vals", arr(I64, &[c(3)]));
    let (dv, rv, cv, vv) = (dest.var, rows.var, cols.var, vals.var);
    let mut b = p.body();
    let r = b.let1(
        "r",
        arr(I64, &[c(2), c(2)]),
        Exp::Scatter { dest: dv, idx: vec![rv, cv], vals: vv, w: k64(3) },
    );
    // Whole rows: scatter (copy r) [1] [[8, 8]]
    let r_copy = b.let1("r_copy", arr(I64, &[c(2), c(2)]), Exp::Copy(r));
    let one = b.let1("one", arr(I64, &[c(1)]), Exp::Replicate { shape: vec![c(1)], value: k64(1) });
    let row = b.let1(
        "row",
        arr(I64, &[c(1), c(2)]),
        Exp::Replicate { shape: vec![c(1), c(2)], value: k64(8) },
    );
    let r2 = b.let1(
        "r2",
        arr(I64, &[c(2), c(2)]),
        Exp::Scatter { dest: r_copy, idx: vec![one], vals: row, w: k64(1) },
    );
    let body = b.finish(vec![v(r), v(r2)]);
    p.fun(
        "f",
        vec![dest, rows, cols, vals],
        vec![arr(I64, &[c(2), c(2)]), arr(I64, &[c(2), c(2)])],
        body,
    );
    let args = vec![
        a64(&[2, 2], &[0; 4]),
        a64(&[3], &[0, 1, 5]),
        a64(&[3], &[1, 0, 0]),
        a64(&[3], &[5, 6, 7]),
    ];
    let r = ok(&p, 0, args);
    assert_eq!(r, vec![a64(&[2, 2], &[0, 5, 6, 0]), a64(&[2, 2], &[0, 5, 8, 8])]);
}

#[test]
fn hist_accumulates_in_bins_and_ignores_out_of_bounds_bins() {
    // reduce_by_index (replicate 3 0) (+) 0 is vs, and a second destination with max.
    let mut p = Prog::new();
    let is = p.param("is", arr(I64, &[c(5)]));
    let vs = p.param("vs", arr(I64, &[c(5)]));
    let (iv, vv) = (is.var, vs.var);
    let mut b = p.body();
    let counts =
        b.let1("counts", arr(I64, &[c(3)]), Exp::Replicate { shape: vec![c(3)], value: k64(0) });
    let maxes =
        b.let1("maxes", arr(I64, &[c(3)]), Exp::Replicate { shape: vec![c(3)], value: k64(-100) });
    let ps: Vec<Param> = ["c", "m", "x", "y"].iter().map(|n| b.param(n, t(I64))).collect();
    let [cv, mv, xv, yv] = [ps[0].var, ps[1].var, ps[2].var, ps[3].var];
    let mut lb = b.sub();
    let c2 = lb.let1("c2", t(I64), Exp::BinOp(BinOp::Add, I64, v(cv), v(xv)));
    let m2 = lb.let1("m2", t(I64), Exp::BinOp(BinOp::Max, I64, v(mv), v(yv)));
    let lam = lambda(ps, lb.finish(vec![v(c2), v(m2)]), vec![t(I64), t(I64)]);
    let ones =
        b.let1("ones", arr(I64, &[c(5)]), Exp::Replicate { shape: vec![c(5)], value: k64(1) });
    let hc = b.param("hc", arr(I64, &[c(3)]));
    let hm = b.param("hm", arr(I64, &[c(3)]));
    let (hcv, hmv) = (hc.var, hm.var);
    b.bind(
        vec![hc, hm],
        Exp::Hist {
            dest: vec![counts, maxes],
            lam,
            neutral: vec![k64(0), k64(i64::MIN)],
            is: iv,
            vs: vec![ones, vv],
            w: k64(5),
        },
    );
    let body = b.finish(vec![v(hcv), v(hmv)]);
    p.fun("f", vec![is, vs], vec![arr(I64, &[c(3)]), arr(I64, &[c(3)])], body);
    let r = ok(&p, 0, vec![a64(&[5], &[0, 2, 2, 5, -1]), a64(&[5], &[4, 7, 3, 50, 60])]);
    assert_eq!(r, vec![a64(&[3], &[1, 0, 2]), a64(&[3], &[4, -100, 7])]);
}

#[test]
fn lambda_parameters_are_checked() {
    // map (\(row: [3]i64) -> row[0]) xss, applied to rows of length 2.
    let mut p = Prog::new();
    let m = p.param("m", t(I64));
    let xss = p.param("xss", arr(I64, &[c(2), d(m.var)]));
    let xv = xss.var;
    let mut b = p.body();
    let row = b.param("row", arr(I64, &[c(3)]));
    let rv = row.var;
    let mut lb = b.sub();
    let first = lb.let1("first", t(I64), Exp::Index { arr: rv, idx: vec![DimIndex::Fix(k64(0))] });
    let lam = lambda(vec![row], lb.finish(vec![v(first)]), vec![t(I64)]);
    let r = b.let1("r", arr(I64, &[c(2)]), Exp::Map { w: k64(2), lam, arrs: vec![xv] });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![m, xss], vec![arr(I64, &[c(2)])], body);
    let e = fails(&p, 0, vec![s64(2), range64(&[2, 2])]);
    assert_eq!(
        e.message,
        "size mismatch: parameter `row` of an anonymous function: expected shape [3], got [2]"
    );
    let _ = Atom::Var(xv);
}
