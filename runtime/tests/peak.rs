//! Peak memory as the executors report it (what `ogham bench` prints): the wasm arena's
//! high-water mark of a call, and the bytes of GPU array buffers alive at once.

mod common;

use ogham::backend::wasm::{self, Options};
use ogham::driver;
use ogham::value::Value;
use ogham_runtime::Executor;

const PROGRAM: &str = "
entry double (xs: []f32) : []f32 = map (* 2) xs
entry total (xs: []f32) : f32 = f32.sum (map (* 2) xs)
entry chain [n] (xs: [n]f32) : [n]f32 =
  let a = map (+ 1) xs
  let b = map (\\x -> x * a[1]) a
  let c = map (\\x -> x - b[2]) b
  let d = map (\\x -> x * c[3]) c
  let e = map (\\x -> x + d[4]) d
  let f = map (\\x -> x * e[5]) e
  in map (\\x -> x - f[6]) f
";

const N: usize = 100_000;
const BYTES: u64 = 4 * N as u64;

fn input() -> Vec<Value> {
    let xs: Vec<String> = (0..N).map(|i| format!("{}f32", i % 10)).collect();
    ogham::value::text::parse_values(&format!("[{}]", xs.join(", "))).unwrap()
}

#[test]
fn the_wasm_arena_high_water_mark_covers_arguments_and_results() {
    let c = driver::compile(PROGRAM).unwrap();
    let args = input();
    for threads in [false, true] {
        let m = wasm::compile(&c.ir, &Options { threads, ..Options::default() }).unwrap();
        let exec = Executor::with_threads(1).unwrap();
        let mut loaded = exec.load(&m).unwrap();
        let (r, peak) = loaded.run_with_peak("double", &args).unwrap();
        assert_eq!(r.len(), 1);
        let peak = peak.expect("the break is readable");
        // The argument and the result, each rounded up to 16 bytes, and little else (with
        // threads, the arena grows in chunks of at least 256 KiB).
        assert!((2 * BYTES..2 * BYTES + (256 << 10)).contains(&peak), "{peak}");
        assert!(loaded.memory_bytes() >= peak + 1024, "{}", loaded.memory_bytes());
        // The arena is emptied after every call, so the next call has the same peak.
        assert_eq!(loaded.run_with_peak("double", &args).unwrap().1, Some(peak));
        // A fused map-reduce allocates nothing beyond its argument.
        let (_, fused) = loaded.run_with_peak("total", &args).unwrap();
        assert!(fused.unwrap() < 2 * BYTES, "{fused:?}");
    }
}

/// The adjoint of an array read at computed indices: its (index, value) pairs are added to the
/// histogram as the map computes them, never stored (they would take four times the array).
#[test]
fn gradient_pairs_are_added_to_their_histogram_unstored() {
    let src = "entry g [n] (xs: [n]f64) : [n]f64 =
                 vjp (\\xs -> f64.sum (map (\\i -> xs[i] * xs[i + 1] + xs[n - 1 - i]) (iota (n - 1)))) xs 1";
    let c = driver::compile(src).unwrap();
    let xs: Vec<String> = (0..N).map(|i| format!("{}f64", (i % 7) as f64 - 3.0)).collect();
    let args = ogham::value::text::parse_values(&format!("[{}]", xs.join(", "))).unwrap();
    let want = driver::run_interp(&c, "g", &args).unwrap();
    let m = wasm::compile(&c.ir, &Options::default()).unwrap();
    let exec = Executor::with_threads(1).unwrap();
    let mut loaded = exec.load(&m).unwrap();
    let (got, peak) = loaded.run_with_peak("g", &args).unwrap();
    assert_eq!(got, want);
    // The argument, the `iota` of indices, the zeros the sums start from (updated in place
    // into the result), and little else; the pairs alone would be 3 * 2 * 8 bytes per element.
    let array = 8 * N as u64;
    assert!(peak.unwrap() < 3 * array + (64 << 10), "{peak:?}");
}

#[test]
fn gpu_peaks_count_live_array_buffers() {
    let Some(mut gpu) = common::gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(ogham::backend::wgsl::compile(&c.ir).unwrap()).unwrap();
    let args = input();
    gpu.take_peak_bytes();
    gpu.run(&loaded, "double", &args).unwrap();
    let peak = gpu.take_peak_bytes();
    // The uploaded argument and the result were alive together.
    assert!((2 * BYTES..4 * BYTES).contains(&peak), "{peak}");
    // Everything was freed after the run: nothing is alive, so the next peak starts from zero.
    assert_eq!(gpu.take_peak_bytes(), 0);
}

/// Arrays are freed once nothing needs them: of a chain of seven arrays, each read only by the
/// next, at most two are alive at once besides the argument.
#[test]
fn gpu_buffers_are_freed_after_their_last_use() {
    let Some(mut gpu) = common::gpu() else { return };
    let c = driver::compile(PROGRAM).unwrap();
    let loaded = gpu.load(ogham::backend::wgsl::compile(&c.ir).unwrap()).unwrap();
    let args = input();
    gpu.take_peak_bytes();
    let got = gpu.run(&loaded, "chain", &args).unwrap();
    let peak = gpu.take_peak_bytes();
    let expected = driver::run_interp(&c, "chain", &args).unwrap();
    assert_eq!(got, expected);
    // Seven arrays are made; kept to the end they would take eight times the argument's bytes.
    assert!(peak <= 3 * BYTES + (64 << 10), "{peak}");
}
