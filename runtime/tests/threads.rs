//! Modules built with threads run their parallel maps on several threads (wasmtime instances on
//! one shared memory) and give the interpreter's results, whatever the number of threads; a
//! run-time error on any thread is reported with its message and span.

use ogham::backend::wasm::{self, Options};
use ogham::driver::{self, run_interp};
use ogham::value::Value;
use ogham_runtime::Executor;

const PROGRAM: &str = "
def dot [n] (a: [n]f32) (b: [n]f32) : f32 = f32.sum (map2 (*) a b)
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (dot r) (transpose b)) a
-- Iterations of uneven cost, each allocating temporaries.
entry uneven (n: i64) : [n]i64 =
  map (\\i -> i64.sum (map (\\j -> j * i) (iota (i % 97)))) (iota n)
-- A parallel map inside a function that a parallel map calls.
def rows [k] (x: i64) (ys: [k]i64) : [k]i64 = map (\\y -> i64.sum (map (+ y) (iota x))) ys
entry nested (n: i64) : [n][4]i64 = map (\\i -> rows (i % 5) (iota 4)) (iota n)
entry fails (n: i64) (k: i64) : [n]i64 = map (\\i -> i64.sum (iota (i % 1000)) + (iota n)[k - i]) (iota n)
-- Reductions of parallel maps: chunks of rows folded on the threads, then in order.
entry summed (n: i64) : i64 = i64.sum (map (\\i -> i64.sum (map (\\j -> j * i) (iota (i % 97)))) (iota n))
entry peak [n][m] (xss: [n][m]f32) : f32 = f32.maximum (map (\\xs -> f32.sum (map (* 2) xs)) xss)
entry fails_summed (n: i64) (k: i64) : i64 = i64.sum (map (\\i -> i64.sum (iota (i % 1000)) + (iota n)[k - i]) (iota n))
";

fn args(src: &str) -> Vec<Value> {
    ogham::value::text::parse_values(src).unwrap()
}

#[test]
fn parallel_maps_agree_with_the_interpreter_on_any_number_of_threads() {
    let c = driver::compile(PROGRAM).unwrap();
    let m = wasm::compile(&c.ir, &Options { threads: true, ..Options::default() }).unwrap();
    assert!(m.manifest.threads);
    let a: Vec<String> = (0..37 * 29).map(|i| format!("{}f32", (i % 11) as f32 - 5.0)).collect();
    let b: Vec<String> = (0..29 * 13).map(|i| format!("{}f32", (i % 7) as f32 * 0.5)).collect();
    let rows = |v: &[String], w: usize| {
        v.chunks(w).map(|r| format!("[{}]", r.join(", "))).collect::<Vec<_>>().join(", ")
    };
    let cases = [
        ("matmul", format!("[{}] [{}]", rows(&a, 29), rows(&b, 13))),
        ("uneven", "1000i64".to_string()),
        ("nested", "300i64".to_string()),
        ("summed", "1000i64".to_string()),
        // Fewer rows than chunks, and none.
        ("summed", "5i64".to_string()),
        ("summed", "0i64".to_string()),
        ("peak", format!("[{}]", rows(&a, 29))),
    ];
    for threads in [1, 2, 5] {
        let exec = Executor::with_threads(threads).unwrap();
        let mut loaded = exec.load(&m).unwrap();
        for (entry, input) in &cases {
            let want = run_interp(&c, entry, &args(input)).unwrap();
            // Twice: the second call reuses the workers and the emptied arena.
            for _ in 0..2 {
                let got = loaded.run(entry, &args(input)).unwrap();
                assert_eq!(got, want, "{entry} on {threads} threads");
            }
        }
    }
}

#[test]
fn an_error_on_any_thread_is_reported_with_its_span() {
    let c = driver::compile(PROGRAM).unwrap();
    let m = wasm::compile(&c.ir, &Options { threads: true, ..Options::default() }).unwrap();
    let exec = Executor::with_threads(4).unwrap();
    let mut loaded = exec.load(&m).unwrap();
    // k - i is out of bounds for the last iterations only (a worker's piece) or the first.
    for entry in ["fails", "fails_summed"] {
        for input in ["3000i64 2900i64", "3000i64 4500i64"] {
            let want = run_interp(&c, entry, &args(input)).unwrap_err();
            let got = loaded.run(entry, &args(input)).unwrap_err();
            // The first failing iteration's error, as a serial run gives.
            assert_eq!((&got.message, got.span), (&want.message, want.span), "{entry} {input}");
        }
    }
    // The program still runs afterwards.
    let ok = loaded.run("fails", &args("10i64 9i64")).unwrap();
    assert_eq!(ok, run_interp(&c, "fails", &args("10i64 9i64")).unwrap());
}

#[test]
fn a_loop_around_a_parallel_map_does_not_grow_the_arena_per_iteration() {
    // Each iteration's map is costly enough to run on the workers, and each element allocates.
    let src = "entry looped (iters: i64) (n: i64) : [n]i64 =
                 loop acc = replicate n 0 for _i < iters do map (\\a -> a + i64.sum (iota n)) acc";
    let c = driver::compile(src).unwrap();
    let m = wasm::compile(&c.ir, &Options { threads: true, ..Options::default() }).unwrap();
    let exec = Executor::with_threads(3).unwrap();
    let mut loaded = exec.load(&m).unwrap();
    let mut peak = |iters: i64| {
        let input = args(&format!("{iters}i64 3000i64"));
        let (got, peak) = loaded.run_with_peak("looped", &input).unwrap();
        assert_eq!(got, run_interp(&c, "looped", &input).unwrap());
        peak.unwrap()
    };
    let (few, many) = (peak(4), peak(40));
    // Workers reuse their chunk from task to task, and a loop frees each iteration's arrays but
    // the ones it returns: ten times the iterations, the same arena (taking a fresh 256 KiB
    // chunk per worker per task added 18 MiB here, and keeping every iteration's array 1 MiB).
    assert!(many <= few + (64 << 10), "4 iterations: {few} bytes, 40 iterations: {many} bytes");
}
