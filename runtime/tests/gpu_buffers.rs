//! Array buffers a run frees are kept for the next array of their size, in the same run or a
//! later one: such a buffer must read as zeros wherever a fresh one would.

mod common;

use ogham::driver;
use ogham::value::Value;

const PROGRAM: &str = "
entry fill (n: i64) : ([]i32, []i32, []i32, []i32, []i32, []i32) =
  let xs = map (\\i -> i32.i64 i * 7 + 1000000) (iota n)
  in (xs, map (+ 1) xs, map (* 3) xs, map (* 5) xs, map (* 7) xs, map (* 9) xs)
entry scat (n: i64) : []i32 =
  scatter (replicate n 0) (map (\\i -> n - 1 - i) (iota n)) (map (\\i -> i32.i64 i + 1) (iota n))
entry counts (n: i64) : []i32 =
  hist (+) 0 n (map (\\i -> (i * 5) % n) (iota n)) (replicate n 1)
";

#[test]
fn kept_buffers_read_as_zeros() {
    let Some(mut gpu) = common::gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(ogham::backend::wgsl::compile(&c.ir).unwrap()).unwrap();
    for n in [1i64, 2, 1000, 1 << 16] {
        let args = [Value::Prim(ogham::prim::PrimValue::I64(n))];
        for entry in ["fill", "scat", "fill", "counts", "fill", "scat"] {
            let got = gpu.run(&loaded, entry, &args).unwrap();
            let want = driver::run_interp(&c, entry, &args).unwrap();
            assert_eq!(got, want, "{entry} {n}");
        }
        // The arrays of these runs are kept, not freed.
        assert!(gpu.kept_bytes() >= 4 * n as u64, "{}", gpu.kept_bytes());
    }
}
