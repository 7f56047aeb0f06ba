//! `run_entry`: finding the entry, checking and packing arguments, unpacking results.

use super::builder::*;
use crate::diag::Phase;
use crate::interp::run_entry;
use crate::ir::{Exp, LoopForm};
use crate::prim::IntType;
use crate::value::Value;

/// `entry main (xs: [n][m]i64) (s: i64) : ([]i64, i64)`: the row sums of `xs` plus `s`, and
/// `n * m`, lowered with the sizes first: `main (n: i64) (m: i64) (xs: [n][m]i64) (s: i64)`.
/// The function also returns an existential size first (the length of the row sums).
fn program() -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let m = p.param("m", t(I64));
    let xs = p.param("xs", arr(I64, &[d(n.var), d(m.var)]));
    let s = p.param("s", t(I64));
    let (nv, mv, xv, sv) = (n.var, m.var, xs.var, s.var);
    let mut b = p.body();
    let row = b.param("row", arr(I64, &[d(mv)]));
    let rv = row.var;
    let mut lb = b.sub();
    let i = lb.var("i");
    let acc = lb.param("acc", t(I64));
    let av = acc.var;
    let mut inner = lb.sub();
    let x =
        inner.let1("x", t(I64), Exp::Index { arr: rv, idx: vec![crate::ir::DimIndex::Fix(v(i))] });
    let a2 = inner.let1("a2", t(I64), Exp::BinOp(crate::ir::BinOp::Add, I64, v(av), v(x)));
    let ibody = inner.finish(vec![v(a2)]);
    let total = lb.let1(
        "total",
        t(I64),
        Exp::Loop {
            params: vec![(acc, v(sv))],
            form: LoopForm::For { i, it: IntType::I64, bound: v(mv) },
            body: ibody,
        },
    );
    let lam = lambda(vec![row], lb.finish(vec![v(total)]), vec![t(I64)]);
    let sums = b.let1("sums", arr(I64, &[d(nv)]), Exp::Map { w: v(nv), lam, arrs: vec![xv] });
    let nm = b.let1("nm", t(I64), Exp::BinOp(crate::ir::BinOp::Mul, I64, v(nv), v(mv)));
    let body = b.finish(vec![v(nv), v(sums), v(nm)]);
    let f = p.fun_ext("main", vec![n, m, xs, s], 1, vec![t(I64), arr(I64, &[d(nv)]), t(I64)], body);
    p.entry("main", f, &[(I64, 2), (I64, 0)], &[(I64, 1), (I64, 0)]);
    p.entry("other", f, &[(I64, 2), (I64, 0)], &[(I64, 1), (I64, 0)]);
    p
}

#[test]
fn arguments_are_packed_with_their_sizes_and_results_unpacked() {
    let p = program();
    let r = run_entry(&p.prog, "main", &[range64(&[2, 3]), s64(100)]).unwrap();
    assert_eq!(r, vec![a64(&[2], &[103, 112]), s64(6)]);
    let r = run_entry(&p.prog, "main", &[range64(&[0, 3]), s64(1)]).unwrap();
    assert_eq!(r, vec![a64(&[0], &[]), s64(0)]);
}

#[test]
fn unknown_entry_points_list_the_available_ones() {
    let p = program();
    let e = run_entry(&p.prog, "foo", &[]).unwrap_err();
    assert_eq!(e.phase, Phase::Value);
    assert_eq!(e.message, "unknown entry point `foo`");
    assert_eq!(e.hints, ["entry points: `main`, `other`"]);
}

#[test]
fn argument_count_types_and_ranks_are_checked() {
    let p = program();
    let e = run_entry(&p.prog, "main", &[range64(&[2, 3])]).unwrap_err();
    assert_eq!(e.phase, Phase::Value);
    assert_eq!(e.message, "`main` takes 2 arguments, but 1 was given");
    let e = run_entry(&p.prog, "main", &[a32(&[3], &[1, 2, 3]), s64(1)]).unwrap_err();
    assert_eq!(e.phase, Phase::Value);
    assert_eq!(e.message, "argument 1 of `main`: expected `[][]i64`, got `[3]i32`");
    let e = run_entry(&p.prog, "main", &[range64(&[2, 3]), s32(1)]).unwrap_err();
    assert_eq!(e.message, "argument 2 of `main`: expected `i64`, got `i32`");
    let e = run_entry(&p.prog, "main", &[range64(&[2, 3]), range64(&[1])]).unwrap_err();
    assert_eq!(e.message, "argument 2 of `main`: expected `i64`, got `[1]i64`");
}

#[test]
fn malformed_array_values_are_value_errors() {
    let p = program();
    let bad = array(I64, &[2, 2], vec![P::I64(1), P::I64(2), P::I64(3)]);
    let e = run_entry(&p.prog, "main", &[bad, s64(0)]).unwrap_err();
    assert_eq!(e.phase, Phase::Value);
    assert_eq!(
        e.message,
        "argument 1 of `main`: an array of shape [2][2] needs 4 elements, but 3 were given"
    );
    let bad = array(I64, &[1, 2], vec![P::I64(1), P::I32(2)]);
    let e = run_entry(&p.prog, "main", &[bad, s64(0)]).unwrap_err();
    assert_eq!(e.message, "argument 1 of `main`: array of i64 contains a value of type i32");
}

#[test]
fn results_must_match_the_entry_type() {
    let mut p = program();
    p.prog.entries[0].results[1].rank = 1;
    let e = run_entry(&p.prog, "main", &[range64(&[1, 1]), s64(0)]).unwrap_err();
    assert_eq!(e.phase, Phase::Runtime);
    assert!(
        e.message.starts_with("internal error: `main` returned ([1]i64, i64)"),
        "{}",
        e.message
    );
    let _: Value = s64(0);
}
