//! Kernels unroll their loops over elements (a row's reductions and stores, a segment's scan, a
//! fold in a kernel): every element must be visited once and in order, whether it falls in the
//! unrolled part or in the loop over the rest. Rows of every width around the unroll factors
//! (2, 4, 8) run on the GPU and on the interpreter.

mod common;

use ogham::driver;
use ogham::prim::{IntType, PrimType, PrimValue};
use ogham::value::{ArrayValue, Value};

const PROGRAM: &str = "
entry rows [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\r -> let mx = i32.maximum r
             let s = i32.sum (map (\\x -> x - mx) r)
             in map (\\x -> x * s + mx) r) xss
entry scans [n][m] (xss: [n][m]i32) : [n][m]i32 = map (scan (+) 0) xss
entry firsts [n][m] (xss: [n][m]i32) : [n]i32 =
  map (\\r -> reduce (\\a b -> if a == 0 then b else a) 0 r) xss
entry hists [n][m] (xss: [n][m]i32) : [n][4]i32 =
  map (\\r -> hist (+) 0 4 (map (\\x -> i64.i32 (x % 4)) r) r) xss
entry scatters [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\r -> scatter (copy r) (map (\\i -> m - 1 - i) (iota m)) r) xss
entry sums [k][n][m] (xsss: [k][n][m]i32) : [n][m]i32 =
  map (\\j -> reduce (map2 (+)) (replicate m 0) (map (\\xss -> xss[j]) xsss)) (iota n)
entry dots [n][m] (xss: [n][m]i32) (ys: [m]i32) : [n]i32 =
  map (\\r -> i32.sum (map2 (*) r ys)) xss
";

fn ints(shape: Vec<i64>, seed: i32) -> Value {
    let n: i64 = shape.iter().product();
    // Zeros among the values, so the non-commutative `firsts` depends on the order.
    let data = (0..n as i32).map(|i| PrimValue::I32((i * 7 + seed) % 11 - 3)).collect();
    Value::Array(ArrayValue::new(PrimType::Int(IntType::I32), shape, data).unwrap())
}

#[test]
fn unrolled_loops_visit_every_element_in_order() {
    let c = driver::compile(PROGRAM).unwrap();
    let gp = ogham::backend::wgsl::compile(&c.ir).unwrap();
    // The kernels do unroll (so this test checks what it says).
    let unrolled = gp.kernels.iter().filter(|k| k.wgsl.contains("for (; ")).count();
    assert!(unrolled >= 5, "{unrolled} kernels unroll a loop");
    let Some(mut gpu) = common::gpu() else { return };
    let loaded = gpu.load(gp).unwrap();
    for m in [0i64, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100] {
        let n = 3;
        let runs: Vec<(&str, Vec<Value>)> = vec![
            ("rows", vec![ints(vec![n, m], 1)]),
            ("scans", vec![ints(vec![n, m], 2)]),
            ("firsts", vec![ints(vec![n, m], 3)]),
            ("hists", vec![ints(vec![n, m], 4)]),
            ("scatters", vec![ints(vec![n, m], 5)]),
            ("sums", vec![ints(vec![m, n, 2], 6)]),
            ("dots", vec![ints(vec![n, m], 7), ints(vec![m], 8)]),
        ];
        for (entry, args) in runs {
            let got = gpu.run(&loaded, entry, &args).unwrap();
            let want = driver::run_interp(&c, entry, &args).unwrap();
            assert_eq!(got, want, "{entry} with rows of {m}");
        }
    }
}
