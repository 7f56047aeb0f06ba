//! Array construction, indexing, slicing and updates, and their errors.

use super::builder::*;
use crate::ir::{BinOp, DimIndex, Exp, LoopForm, Param, Type};
use crate::prim::IntType;

fn fix(a: crate::ir::Atom) -> DimIndex {
    DimIndex::Fix(a)
}

fn slice(start: i64, len: i64, stride: i64) -> DimIndex {
    DimIndex::Slice { start: k64(start), len: k64(len), stride: k64(stride) }
}

/// `f (n: i64) (m: i64) (xs: [n][m]i64) = xs[idx]`, with the result type `ret`.
fn index_fun(idx: Vec<DimIndex>, ret: Type) -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let m = p.param("m", t(I64));
    let xs = p.param("xs", arr(I64, &[d(n.var), d(m.var)]));
    let mut b = p.body();
    let r = b.let1("r", ret.clone(), Exp::Index { arr: xs.var, idx });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![n, m, xs], vec![ret], body);
    p
}

fn run_index(idx: Vec<DimIndex>, ret: Type) -> Result<Vec<crate::value::Value>, crate::Diagnostic> {
    let p = index_fun(idx, ret);
    call(&p, 0, vec![s64(3), s64(5), range64(&[3, 5])])
}

#[test]
fn full_index_gives_a_scalar_and_partial_index_a_row() {
    assert_eq!(run_index(vec![fix(k64(2)), fix(k64(4))], t(I64)).unwrap(), vec![s64(14)]);
    assert_eq!(
        run_index(vec![fix(k64(1))], arr(I64, &[c(5)])).unwrap(),
        vec![a64(&[5], &[5, 6, 7, 8, 9])]
    );
}

#[test]
fn slices_with_strides_including_negative_ones() {
    // xs[1:3, 4:0:-2] = [[9, 7], [14, 12]]
    let r = run_index(vec![slice(1, 2, 1), slice(4, 2, -2)], arr(I64, &[c(2), c(2)])).unwrap();
    assert_eq!(r, vec![a64(&[2, 2], &[9, 7, 14, 12])]);
    // Reverse the rows: xs[2:-1:-1].
    let r = run_index(vec![slice(2, 3, -1)], arr(I64, &[c(3), c(5)])).unwrap();
    assert_eq!(r[0], a64(&[3, 5], &[10, 11, 12, 13, 14, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4]));
    // A fixed row, then a column slice: xs[1, 1:4:1].
    let r = run_index(vec![fix(k64(1)), slice(1, 3, 1)], arr(I64, &[c(3)])).unwrap();
    assert_eq!(r[0], a64(&[3], &[6, 7, 8]));
    // A column: xs[0:3:1, 2].
    let r = run_index(vec![slice(0, 3, 1), fix(k64(2))], arr(I64, &[c(3)])).unwrap();
    assert_eq!(r[0], a64(&[3], &[2, 7, 12]));
    // Empty slices are always in bounds, whatever their start.
    let r = run_index(vec![slice(7, 0, -1)], arr(I64, &[c(0), c(5)])).unwrap();
    assert_eq!(r[0], a64(&[0, 5], &[]));
}

#[test]
fn index_out_of_bounds_names_every_index_and_dimension() {
    let p = index_fun(vec![fix(k64(2)), fix(k64(7))], t(I64));
    let span = p.prog.funs[0].body.stms[0].span;
    let e = fails(&p, 0, vec![s64(3), s64(5), range64(&[3, 5])]);
    assert_eq!(e.message, "index [2, 7] out of bounds for array of shape [3][5]");
    assert_eq!(e.span, span);
    let e = run_index(vec![fix(k64(-1))], arr(I64, &[c(5)])).unwrap_err();
    assert_eq!(e.message, "index [-1] out of bounds for array of shape [3][5]");
    let e = run_index(vec![slice(2, 8, 1)], arr(I64, &[c(8), c(5)])).unwrap_err();
    assert_eq!(e.message, "index [2:10:1] out of bounds for array of shape [3][5]");
    let e = run_index(vec![fix(k64(0)), slice(4, 4, -2)], arr(I64, &[c(4)])).unwrap_err();
    assert_eq!(e.message, "index [0, 4:-4:-2] out of bounds for array of shape [3][5]");
    let e = run_index(vec![slice(0, -1, 1)], arr(I64, &[c(-1), c(5)])).unwrap_err();
    assert_eq!(e.message, "index [0:-1:1] out of bounds for array of shape [3][5]");
}

/// `f (xs: [5]i64) = (xs with [idx] = val, xs)`: the original stays intact. (The validator rejects
/// this use after consumption; the interpreter keeps value semantics regardless.)
#[test]
fn update_copies_when_the_array_is_still_used() {
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(5)]));
    let mut b = p.body();
    let ys = b.let1(
        "ys",
        arr(I64, &[c(5)]),
        Exp::Update { arr: xs.var, idx: vec![fix(k64(1))], value: k64(42) },
    );
    let body = b.finish(vec![v(ys), v(xs.var)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(5)]), arr(I64, &[c(5)])], body);
    p.invalid = true;
    let r = ok(&p, 0, vec![range64(&[5])]);
    assert_eq!(r, vec![a64(&[5], &[0, 42, 2, 3, 4]), range64(&[5])]);
}

#[test]
fn update_of_slices_and_rows() {
    // xs with [1:4:2, 0] = [100, 200]  (rows 1 and 3, column 0)
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(4), c(2)]));
    let vs = p.param("vs", arr(I64, &[c(2)]));
    let row = p.param("row", arr(I64, &[c(2)]));
    let mut b = p.body();
    let ys = b.let1(
        "ys",
        arr(I64, &[c(4), c(2)]),
        Exp::Update { arr: xs.var, idx: vec![slice(1, 2, 2), fix(k64(0))], value: v(vs.var) },
    );
    let zs = b.let1(
        "zs",
        arr(I64, &[c(4), c(2)]),
        Exp::Update { arr: ys, idx: vec![fix(k64(0))], value: v(row.var) },
    );
    let body = b.finish(vec![v(zs)]);
    p.fun("f", vec![xs, vs, row], vec![arr(I64, &[c(4), c(2)])], body);
    let r = ok(&p, 0, vec![range64(&[4, 2]), a64(&[2], &[100, 200]), a64(&[2], &[-1, -2])]);
    assert_eq!(r[0], a64(&[4, 2], &[-1, -2, 100, 3, 4, 5, 200, 7]));
}

#[test]
fn update_errors() {
    let mut p = Prog::new();
    let k = p.param("k", t(I64));
    let xs = p.param("xs", arr(I64, &[c(4), c(2)]));
    let vs = p.param("vs", arr(I64, &[d(k.var)]));
    let mut b = p.body();
    let ys = b.let1(
        "ys",
        arr(I64, &[c(4), c(2)]),
        Exp::Update { arr: xs.var, idx: vec![slice(0, 2, 1), fix(k64(1))], value: v(vs.var) },
    );
    let body = b.finish(vec![v(ys)]);
    p.fun("f", vec![k, xs, vs], vec![arr(I64, &[c(4), c(2)])], body);
    let e = fails(&p, 0, vec![s64(3), range64(&[4, 2]), a64(&[3], &[1, 2, 3])]);
    assert_eq!(
        e.message,
        "size mismatch: cannot write a value of shape [3] to a slice of shape [2]"
    );

    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(4), c(2)]));
    let mut b = p.body();
    let ys = b.let1(
        "ys",
        arr(I64, &[c(4), c(2)]),
        Exp::Update { arr: xs.var, idx: vec![fix(k64(1)), fix(k64(2))], value: k64(0) },
    );
    let body = b.finish(vec![v(ys)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(4), c(2)])], body);
    let e = fails(&p, 0, vec![range64(&[4, 2])]);
    assert_eq!(e.message, "index [1, 2] out of bounds for array of shape [4][2]");
}

/// `loop acc = replicate n 0 for i < n do acc with [i] = i * i`: in place, so linear time.
fn squares_program() -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let nv = n.var;
    let mut b = p.body();
    let xs0 =
        b.let1("xs0", arr(I64, &[d(nv)]), Exp::Replicate { shape: vec![d(nv)], value: k64(0) });
    let i = b.var("i");
    let acc = b.param("acc", arr(I64, &[d(nv)]));
    let mut lb = b.sub();
    let sq = lb.let1("sq", t(I64), Exp::BinOp(BinOp::Mul, I64, v(i), v(i)));
    let upd = lb.let1(
        "upd",
        arr(I64, &[d(nv)]),
        Exp::Update { arr: acc.var, idx: vec![fix(v(i))], value: v(sq) },
    );
    let lbody = lb.finish(vec![v(upd)]);
    let res = b.var("res");
    b.bind(
        vec![Param { var: res, ty: arr(I64, &[d(nv)]) }],
        Exp::Loop {
            params: vec![(acc, v(xs0))],
            form: LoopForm::For { i, it: IntType::I64, bound: v(nv) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(res)]);
    p.fun("f", vec![n], vec![arr(I64, &[d(nv)])], body);
    p
}

#[test]
fn updates_in_a_loop_happen_in_place() {
    let p = squares_program();
    assert_eq!(ok(&p, 0, vec![s64(5)]), vec![a64(&[5], &[0, 1, 4, 9, 16])]);
    // 200000 updates of a 200000-element array: quadratic copying would take minutes.
    let start = std::time::Instant::now();
    let r = ok(&p, 0, vec![s64(200_000)]);
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    let crate::value::Value::Array(a) = &r[0] else { panic!() };
    assert_eq!(a.data[199_999], P::I64(199_999 * 199_999));
}

/// A function of no parameters returning `e` of type `ret`.
fn constant(e: Exp, ret: Type) -> Prog {
    let mut p = Prog::new();
    let mut b = p.body();
    let r = b.let1("r", ret.clone(), e);
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![], vec![ret], body);
    p
}

fn eval(e: Exp, ret: Type) -> Result<crate::value::Value, crate::Diagnostic> {
    call(&constant(e, ret), 0, vec![]).map(|mut r| r.remove(0))
}

#[test]
fn iota_with_start_step_and_wrapping() {
    let e = Exp::Iota { n: k64(4), start: k64(0), step: k64(1), it: IntType::I64 };
    assert_eq!(eval(e, arr(I64, &[c(4)])).unwrap(), a64(&[4], &[0, 1, 2, 3]));
    let e = Exp::Iota { n: k64(3), start: k32(10), step: k32(-4), it: IntType::I32 };
    assert_eq!(eval(e, arr(I32, &[c(3)])).unwrap(), a32(&[3], &[10, 6, 2]));
    let e = Exp::Iota {
        n: k64(3),
        start: crate::ir::Atom::Const(P::U8(254)),
        step: crate::ir::Atom::Const(P::U8(1)),
        it: IntType::U8,
    };
    let want = array(
        crate::prim::PrimType::Int(IntType::U8),
        &[3],
        vec![P::U8(254), P::U8(255), P::U8(0)],
    );
    assert_eq!(eval(e, arr(crate::prim::PrimType::Int(IntType::U8), &[c(3)])).unwrap(), want);
    let e = Exp::Iota { n: k64(0), start: k64(0), step: k64(1), it: IntType::I64 };
    assert_eq!(eval(e, arr(I64, &[c(0)])).unwrap(), a64(&[0], &[]));
    let e = Exp::Iota { n: k64(-3), start: k64(0), step: k64(1), it: IntType::I64 };
    let err = eval(e, arr(I64, &[c(-3)])).unwrap_err();
    assert_eq!(err.message, "negative size: cannot create an array of shape [-3]");
}

#[test]
fn replicate_scalars_and_arrays() {
    let e = Exp::Replicate { shape: vec![c(2), c(3)], value: kf32(1.5) };
    assert_eq!(eval(e, arr(F32, &[c(2), c(3)])).unwrap(), af32(&[2, 3], &[1.5; 6]));
    // An array value adds its own dimensions.
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(2)]));
    let mut b = p.body();
    let r = b.let1(
        "r",
        arr(I64, &[c(3), c(2)]),
        Exp::Replicate { shape: vec![c(3)], value: v(xs.var) },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(3), c(2)])], body);
    assert_eq!(ok(&p, 0, vec![a64(&[2], &[7, 8])]), vec![a64(&[3, 2], &[7, 8, 7, 8, 7, 8])]);
    let e = Exp::Replicate { shape: vec![c(2), c(-1)], value: k64(0) };
    let err = eval(e, arr(I64, &[c(2), c(-1)])).unwrap_err();
    assert_eq!(err.message, "negative size: cannot create an array of shape [2][-1]");
}

#[test]
fn allocation_beyond_the_limit_is_an_error_not_a_crash() {
    let e = Exp::Replicate { shape: vec![c(100_000), c(100_000)], value: k64(0) };
    let err = eval(e, arr(I64, &[c(100_000), c(100_000)])).unwrap_err();
    assert_eq!(
        err.message,
        "out of memory: allocating an array of shape [100000][100000] (10000000000 elements) \
         exceeds the interpreter's limit of 2147483648 live elements"
    );
    // The limit counts live elements: two arrays of 60 fit under 100 only one at a time.
    let mut p = Prog::new();
    let mut b = p.body();
    let x = b.let1("x", arr(I64, &[c(60)]), Exp::Replicate { shape: vec![c(60)], value: k64(0) });
    let y = b.let1("y", arr(I64, &[c(60)]), Exp::Replicate { shape: vec![c(60)], value: k64(1) });
    let body = b.finish(vec![v(x), v(y)]);
    p.fun("f", vec![], vec![arr(I64, &[c(60)]), arr(I64, &[c(60)])], body);
    let limits = crate::interp::Limits { max_live_elements: 100, ..Default::default() };
    let err = call_with(&p, 0, vec![], &limits).unwrap_err();
    assert!(
        err.message.starts_with("out of memory: allocating an array of shape [60]"),
        "{}",
        err.message
    );
    let limits = crate::interp::Limits { max_live_elements: 120, ..Default::default() };
    assert!(call_with(&p, 0, vec![], &limits).is_ok());
}

#[test]
fn rearrange_permutes_dimensions() {
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(2), c(3)]));
    let ys = p.param("ys", arr(I64, &[c(2), c(3), c(4)]));
    let mut b = p.body();
    let tr =
        b.let1("tr", arr(I64, &[c(3), c(2)]), Exp::Rearrange { arr: xs.var, perm: vec![1, 0] });
    let pr = b.let1(
        "pr",
        arr(I64, &[c(4), c(2), c(3)]),
        Exp::Rearrange { arr: ys.var, perm: vec![2, 0, 1] },
    );
    let body = b.finish(vec![v(tr), v(pr)]);
    p.fun("f", vec![xs, ys], vec![arr(I64, &[c(3), c(2)]), arr(I64, &[c(4), c(2), c(3)])], body);
    let r = ok(&p, 0, vec![range64(&[2, 3]), range64(&[2, 3, 4])]);
    assert_eq!(r[0], a64(&[3, 2], &[0, 3, 1, 4, 2, 5]));
    // pr[l][i][j] = ys[i][j][l] = 12i + 4j + l
    let mut want = Vec::new();
    for l in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                want.push(12 * i + 4 * j + l);
            }
        }
    }
    assert_eq!(r[1], a64(&[4, 2, 3], &want));
}

#[test]
fn reshape_checks_the_element_count() {
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(6)]));
    let mut b = p.body();
    let r =
        b.let1("r", arr(I64, &[c(2), c(3)]), Exp::Reshape { arr: xs.var, shape: vec![c(2), c(3)] });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(2), c(3)])], body);
    assert_eq!(ok(&p, 0, vec![range64(&[6])]), vec![range64(&[2, 3])]);

    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(6)]));
    let mut b = p.body();
    let r =
        b.let1("r", arr(I64, &[c(4), c(2)]), Exp::Reshape { arr: xs.var, shape: vec![c(4), c(2)] });
    let span = b.last_span();
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(4), c(2)])], body);
    let e = fails(&p, 0, vec![range64(&[6])]);
    assert_eq!(e.message, "size mismatch: cannot reshape an array of shape [6] to [4][2]");
    assert_eq!(e.span, span);
}

fn concat_fun(axis: usize, a: Type, bt: Type, len: i64, ret: Type) -> Prog {
    let mut p = Prog::new();
    let xs = p.param("xs", a);
    let ys = p.param("ys", bt);
    let mut b = p.body();
    let r = b.let1("r", ret.clone(), Exp::Concat { axis, arrs: vec![xs.var, ys.var], len: c(len) });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xs, ys], vec![ret], body);
    p
}

#[test]
fn concat_along_any_axis() {
    let p =
        concat_fun(0, arr(I64, &[c(1), c(2)]), arr(I64, &[c(2), c(2)]), 3, arr(I64, &[c(3), c(2)]));
    let r = ok(&p, 0, vec![a64(&[1, 2], &[1, 2]), a64(&[2, 2], &[3, 4, 5, 6])]);
    assert_eq!(r[0], a64(&[3, 2], &[1, 2, 3, 4, 5, 6]));
    let p =
        concat_fun(1, arr(I64, &[c(2), c(1)]), arr(I64, &[c(2), c(2)]), 3, arr(I64, &[c(2), c(3)]));
    let r = ok(&p, 0, vec![a64(&[2, 1], &[1, 2]), a64(&[2, 2], &[3, 4, 5, 6])]);
    assert_eq!(r[0], a64(&[2, 3], &[1, 3, 4, 2, 5, 6]));
}

#[test]
fn concat_errors_name_both_shapes() {
    // Invalid on purpose: the validator sees the constant sizes disagree.
    let mut p =
        concat_fun(0, arr(I64, &[c(1), c(2)]), arr(I64, &[c(2), c(3)]), 3, arr(I64, &[c(3), c(2)]));
    p.invalid = true;
    let e = fails(&p, 0, vec![range64(&[1, 2]), range64(&[2, 3])]);
    assert_eq!(
        e.message,
        "size mismatch: cannot concatenate arrays of shapes [1][2] and [2][3] along dimension 0"
    );
    let mut p = concat_fun(0, arr(I64, &[c(1)]), arr(I64, &[c(2)]), 4, arr(I64, &[c(4)]));
    p.invalid = true;
    let e = fails(&p, 0, vec![range64(&[1]), range64(&[2])]);
    assert_eq!(
        e.message,
        "size mismatch: concatenation has length 3 along dimension 0, but its type says 4"
    );
}

#[test]
fn array_literals() {
    let e = Exp::ArrayLit { elems: vec![k32(1), k32(2), k32(3)], elem_ty: t(I32) };
    assert_eq!(eval(e, arr(I32, &[c(3)])).unwrap(), a32(&[3], &[1, 2, 3]));
    let e = Exp::ArrayLit { elems: vec![], elem_ty: arr(F32, &[c(2)]) };
    assert_eq!(eval(e, arr(F32, &[c(0), c(2)])).unwrap(), af32(&[0, 2], &[]));
    let mut p = Prog::new();
    let m = p.param("m", t(I64));
    let xs = p.param("xs", arr(I64, &[c(2)]));
    let ys = p.param("ys", arr(I64, &[d(m.var)]));
    let (x, y) = (xs.var, ys.var);
    let mut b = p.body();
    let r = b.let1(
        "r",
        arr(I64, &[c(2), c(2)]),
        Exp::ArrayLit { elems: vec![v(x), v(y)], elem_ty: arr(I64, &[c(2)]) },
    );
    let span = b.last_span();
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![m, xs, ys], vec![arr(I64, &[c(2), c(2)])], body);
    let r = ok(&p, 0, vec![s64(2), a64(&[2], &[1, 2]), a64(&[2], &[3, 4])]);
    assert_eq!(r, vec![a64(&[2, 2], &[1, 2, 3, 4])]);
    let e = fails(&p, 0, vec![s64(3), a64(&[2], &[1, 2]), a64(&[3], &[3, 4, 5])]);
    assert_eq!(e.span, span);
    assert_eq!(e.message, "size mismatch: array literal elements have shapes [2] and [3]");
}

#[test]
fn copy_is_independent_of_the_original() {
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(3)]));
    let x = xs.var;
    let mut b = p.body();
    let ys = b.let1("ys", arr(I64, &[c(3)]), Exp::Copy(x));
    let zs = b.let1(
        "zs",
        arr(I64, &[c(3)]),
        Exp::Update { arr: ys, idx: vec![fix(k64(0))], value: k64(9) },
    );
    let body = b.finish(vec![v(x), v(zs)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(3)]), arr(I64, &[c(3)])], body);
    assert_eq!(ok(&p, 0, vec![range64(&[3])]), vec![range64(&[3]), a64(&[3], &[9, 1, 2])]);
}

#[test]
fn writing_a_row_of_an_array_back_into_it() {
    // xs with [0] = xs[1], where xs dies: in place, and correct. (The validator rejects writing
    // an alias of the array into it; the interpreter copies the row first.)
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(3), c(2)]));
    let x = xs.var;
    let mut b = p.body();
    let row = b.let1("row", arr(I64, &[c(2)]), Exp::Index { arr: x, idx: vec![fix(k64(1))] });
    let ys = b.let1(
        "ys",
        arr(I64, &[c(3), c(2)]),
        Exp::Update { arr: x, idx: vec![fix(k64(0))], value: v(row) },
    );
    let body = b.finish(vec![v(ys)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(3), c(2)])], body);
    p.invalid = true;
    assert_eq!(ok(&p, 0, vec![range64(&[3, 2])]), vec![a64(&[3, 2], &[2, 3, 2, 3, 4, 5])]);
}
