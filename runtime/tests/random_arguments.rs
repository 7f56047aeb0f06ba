//! Every entry point of every program in examples/ and tests/programs, on random arguments (every
//! dimension 0, 1, 3 and 17, as `ogham run --random` draws them), runs on the interpreter, on
//! wasm and on the GPU, and they must agree: the same values (floats within the test runner's
//! tolerance) or errors with the same message. Test blocks check chosen inputs; these reach the
//! empty arrays, single elements and odd sizes that test blocks often leave out. The GPU may
//! only decline f64.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use ogham::diag::Diagnostic;
use ogham::driver::{self, Compiled};
use ogham::testspec::compare::{compare_values, render_mismatches, DEFAULT_TOLERANCE};
use ogham::testspec::run::Backend;
use ogham::value::Value;
use ogham_runtime::gpu::GpuBackend;
use ogham_runtime::WasmBackend;

/// The interpreter's answer, or `None` when it takes longer than a few seconds (a random
/// argument can be a loop bound).
fn interp(c: &Compiled, entry: &str, args: &[Value]) -> Option<Result<Vec<Value>, Diagnostic>> {
    let (tx, rx) = mpsc::channel();
    let (c, entry, args) = (c.clone(), entry.to_string(), args.to_vec());
    std::thread::spawn(move || {
        let _ = tx.send(driver::run_interp(&c, &entry, &args));
    });
    rx.recv_timeout(Duration::from_secs(5)).ok()
}

/// A disagreement between the interpreter's answer and a backend's, if any.
fn differs(
    want: &Result<Vec<Value>, Diagnostic>,
    got: &Result<Vec<Value>, Diagnostic>,
) -> Option<String> {
    match (want, got) {
        (Ok(a), Ok(b)) => {
            let ms = compare_values(a, b, DEFAULT_TOLERANCE);
            (!ms.is_empty()).then(|| render_mismatches(&ms))
        }
        (Err(a), Err(b)) if a.message == b.message => None,
        _ => Some(format!(
            "interpreter {:?}, backend {:?}",
            want.as_ref().map(|_| "values").map_err(|d| &d.message),
            got.as_ref().map(|_| "values").map_err(|d| &d.message)
        )),
    }
}

#[test]
fn backends_agree_with_the_interpreter_on_random_arguments() {
    let mut wasm = WasmBackend::new().unwrap();
    let mut gpu = common::gpu().map(|_| GpuBackend::new().unwrap());
    let mut problems = Vec::new();
    let mut runs = 0;
    for f in common::corpus(&["examples", "tests/programs"]) {
        let src = std::fs::read_to_string(&f).unwrap();
        let Ok(c) = driver::compile(&src) else { continue };
        let w = wasm.compile(&src).unwrap();
        let g = gpu.as_mut().map(|g| g.compile(&src));
        for e in c.ir.entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>() {
            for (size, seed) in [(0, 1), (1, 2), (3, 3), (17, 4)] {
                let text = driver::random_args(&c.ir, &e, size, seed).unwrap();
                let args = ogham::value::text::parse_values(&text).unwrap();
                let Some(want) = interp(&c, &e, &args) else { continue };
                runs += 1;
                let at = format!("{} `{e}` at size {size}", f.display());
                if let Some(d) = differs(&want, &wasm.run(&w, &e, &args)) {
                    problems.push(format!("{at}, wasm: {d}"));
                }
                let got = match (&mut gpu, &g) {
                    (Some(gpu), Some(Ok(p))) => gpu.run(p, &e, &args),
                    (Some(_), Some(Err(ds))) => Err(ds[0].clone()),
                    _ => continue,
                };
                if matches!(&got, Err(d) if d.message.contains("f64 is not available")) {
                    continue;
                }
                if let Some(d) = differs(&want, &got) {
                    problems.push(format!("{at}, gpu: {d}"));
                }
            }
        }
    }
    assert!(runs > 1000, "only {runs} runs");
    assert!(problems.is_empty(), "{} disagreements:\n{}", problems.len(), problems.join("\n"));
}
