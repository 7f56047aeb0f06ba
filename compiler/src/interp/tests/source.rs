//! End to end: source programs through the whole pipeline, checking the interpreter's part.

use super::builder::*;
use crate::diag::Phase;
use crate::value::Value;

fn run(src: &str, args: &[Value]) -> Result<Vec<Value>, crate::Diagnostic> {
    let compiled = match crate::driver::compile(src) {
        Ok(c) => c,
        Err(ds) => {
            panic!("does not compile: {:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>())
        }
    };
    if let Err(m) = crate::ir::validate::validate(&compiled.ir) {
        panic!("invalid IR: {m}");
    }
    crate::interp::run_entry(&compiled.ir, "main", args)
}

/// The source text a diagnostic's span covers.
fn at<'a>(src: &'a str, d: &crate::Diagnostic) -> &'a str {
    src.get(d.span.range()).unwrap_or("")
}

#[test]
fn integer_division_operators_from_source() {
    let src = "entry main (a: i32) (b: i32) = (a / b, a % b, a // b, a %% b)";
    assert_eq!(run(src, &[s32(-7), s32(2)]).unwrap(), vec![s32(-4), s32(1), s32(-3), s32(-1)]);
    let e = run(src, &[s32(7), s32(0)]).unwrap_err();
    assert_eq!(
        (e.phase, e.message.as_str(), at(src, &e)),
        (Phase::Runtime, "division by zero", "a / b")
    );
}

#[test]
fn bounds_errors_point_at_the_index() {
    let src = "entry main (xs: [][]i32) (i: i64) (j: i64) : i32 = xs[i, j]";
    let xs = a32(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(run(src, &[xs.clone(), s64(1), s64(2)]).unwrap(), vec![s32(6)]);
    let e = run(src, &[xs, s64(1), s64(3)]).unwrap_err();
    assert_eq!(e.message, "index [1, 3] out of bounds for array of shape [2][3]");
    assert_eq!(at(src, &e), "xs[i, j]");
}

#[test]
fn in_place_updates_in_a_source_loop_are_linear() {
    let src = "entry main (n: i64) : [n]i64 =
  loop xs = replicate n 0 for i < n do xs with [i] = i * 2";
    let start = std::time::Instant::now();
    let r = run(src, &[s64(100_000)]).unwrap();
    assert!(start.elapsed().as_secs() < 20);
    let Value::Array(a) = &r[0] else { panic!("not an array") };
    assert_eq!(a.data[99_999], P::I64(199_998));
}

#[test]
fn entry_argument_errors_from_source() {
    let src = "entry main (xs: []f32) : f32 = f32.sum xs";
    assert_eq!(run(src, &[af32(&[3], &[1.0, 2.0, 3.5])]).unwrap(), vec![sf32(6.5)]);
    let e = run(src, &[a32(&[3], &[1, 2, 3])]).unwrap_err();
    assert_eq!(
        (e.phase, e.message.as_str()),
        (Phase::Value, "argument 1 of `main`: expected `[]f32`, got `[3]i32`")
    );
}

/// `cargo test --release -- --ignored perf`: the matmul example's code, at 256x256.
#[test]
#[ignore]
fn perf_source_matmul_256() {
    let src = "entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) (transpose b)) a";
    let n = 256;
    let a: Vec<f32> = (0..n * n).map(|k| (k % 5) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|k| (k % 3) as f32).collect();
    let start = std::time::Instant::now();
    let r = run(src, &[af32(&[n, n], &a), af32(&[n, n], &b)]).unwrap();
    eprintln!("source matmul 256: {:?}", start.elapsed());
    assert_eq!(r[0].rank(), 2);
}

/// `loop xs for i < 1000 do map (\x -> x * 0.5 + 1) xs` over 10^5 elements, from source.
#[test]
#[ignore]
fn perf_source_relax() {
    let src =
        "entry main (xs: []f32) : []f32 = loop xs for _i < 1000 do map (\\x -> x * 0.5 + 1) xs";
    let start = std::time::Instant::now();
    let r = run(src, &[af32(&[100_000], &vec![0.0; 100_000])]).unwrap();
    eprintln!("source relax: {:?}", start.elapsed());
    assert_eq!(r, vec![af32(&[100_000], &vec![2.0; 100_000])]);
}
