//! A GPU's scans, however they run: in one pass with a decoupled look-back (tiles of 2048
//! elements of one word; the walk reading its predecessors' records, or folding their tiles
//! itself, as it does where a predecessor makes no progress), or in three passes. Sizes around
//! the tiles, an operator that does not commute, several arrays and a scan fused with the map
//! before it, against the interpreter, with the GPU's schedules chosen on whatever adapter runs
//! the tests (lavapipe in CI).

mod common;

use ogham::driver;
use ogham::prim::{IntType, PrimType, PrimValue};
use ogham::value::{ArrayValue, Value};

const PROGRAM: &str = "
def compose (a1: i32, b1: i32) (a2: i32, b2: i32) : (i32, i32) = (a1 * a2, b1 * a2 + b2)
entry sums (xs: []i32) : []i32 = scan (+) 0 (map (\\x -> x * 3 - 1) xs)
entry affine (as: []i32) (bs: []i32) : ([]i32, []i32) = unzip (scan compose (1, 0) (zip as bs))
entry maxima (xs: []f32) : []f32 = scan f32.max f32.lowest xs
-- Three arrays (two elements an invocation) and four (one): 2x2 matrix products, in order.
entry triples (as: []i32) (bs: []i32) : ([]i32, []i32, []i32) =
  unzip3 (scan (\\(a1, b1, c1) (a2, b2, c2) -> (a1 * a2, b1 ^ b2, c1 * a2 + c2)) (1, 0, 0)
                (zip3 as bs (map (+ 1) as)))
entry products (as: []i32) (bs: []i32) : ([]i32, []i32, []i32, []i32) =
  let mul (a, b, c, d) (e, f, g, h) = (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)
  in unzip4 (scan mul (1, 0, 0, 1) (zip4 as bs bs as))
";

fn ints(n: i64, seed: i32, f: impl Fn(i32) -> i32) -> Value {
    let data = (0..n as i32).map(|i| PrimValue::I32(f(i.wrapping_mul(7919) ^ seed))).collect();
    Value::Array(ArrayValue::new(PrimType::Int(IntType::I32), vec![n], data).unwrap())
}

fn floats(n: i64) -> Value {
    let data = (0..n).map(|i| PrimValue::F32(((i * 37) % 1013) as f32 * 0.5 - 200.0)).collect();
    Value::Array(
        ArrayValue::new(PrimType::Float(ogham::prim::FloatType::F32), vec![n], data).unwrap(),
    )
}

#[test]
fn scans_agree_with_the_interpreter_in_every_schedule() {
    let c = driver::compile(PROGRAM).unwrap();
    let gp = ogham::backend::wgsl::compile(&c.ir).unwrap();
    let single = gp.kernels.iter().filter(|k| k.name.contains("single_pass")).count();
    assert_eq!(single, 5, "each scan has a single-pass kernel");
    let Some(mut gpu) = common::gpu() else { return };
    gpu.set_software_schedule(false);
    let loaded = gpu.load(gp).unwrap();
    // 0 polls: every walk folds its predecessors' tiles itself (quadratic: small sizes only).
    // lavapipe ends a loop nest after 65535 iterations in all, and there a walk waiting on a
    // predecessor (on a busy core) polls and then folds: 64 polls and at most 118 tiles of 256
    // stay below that however long the waits; the full count of polls runs on larger sizes.
    let polls = ogham::backend::wgsl::exec::LOOKBACK_POLLS;
    let modes: [(Option<u32>, &[i64]); 4] = [
        (Some(64), &[0, 1, 2047, 2048, 2049, 4096, 30001]),
        (Some(polls), &[262147]),
        (Some(0), &[1, 2048, 2049, 10000]),
        (None, &[1, 2049, 30001]),
    ];
    for (polls, sizes) in modes {
        gpu.set_scan_lookback(polls);
        for &n in sizes {
            let runs: Vec<(&str, Vec<Value>)> = vec![
                ("sums", vec![ints(n, 5, |x| x % 1000)]),
                ("affine", vec![ints(n, 1, |x| (x % 4) * 2 + 1), ints(n, 2, |x| x % 11 - 5)]),
                ("maxima", vec![floats(n)]),
                ("triples", vec![ints(n, 3, |x| (x % 7) * 2 + 1), ints(n, 4, |x| x % 13)]),
                ("products", vec![ints(n, 5, |x| x % 3 - 1), ints(n, 6, |x| x % 5 - 2)]),
            ];
            for (entry, args) in runs {
                let got = gpu.run(&loaded, entry, &args).unwrap();
                let want = driver::run_interp(&c, entry, &args).unwrap();
                assert_eq!(got, want, "{entry} of {n} elements, look-back {polls:?}");
            }
        }
    }
}
