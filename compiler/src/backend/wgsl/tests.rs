//! Tests of the WGSL backend that need no GPU: every kernel of the corpus validates with naga,
//! f64 is rejected at its first use, unsupported constructs are errors.

use super::*;
use crate::driver;

fn gpu(src: &str) -> Result<GpuProgram, Vec<Diagnostic>> {
    let c = driver::compile(src)?;
    compile(&c.ir)
}

#[test]
fn map_and_reduce_compile_to_valid_kernels() {
    let gp = gpu("entry main (xs: []f32) : f32 = f32.sum (map (\\x -> x * 2) xs)").unwrap();
    assert!(gp.kernels.len() >= 3);
    for k in &gp.kernels {
        validate(&k.wgsl).unwrap();
    }
    let shown = show(&gp);
    assert!(shown.contains("reduce("), "{shown}");
}

#[test]
fn f64_is_rejected_at_its_first_use() {
    let src = "entry main (x: f32) : f32 =\n  let y = f64.f32 x\n  in f32.f64 (y * 2)";
    let e = gpu(src).unwrap_err();
    assert_eq!(e[0].message, "f64 is not available on WebGPU");
    assert!(e[0].hints.iter().any(|h| h.contains("--backend wasm")));
    let (line, _) = e[0].span.line_col(src);
    assert_eq!(line, 2);
}

#[test]
fn every_corpus_program_that_compiles_validates() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut files = Vec::new();
    for dir in ["examples", "tests/programs", "tests/ad", "examples/ad"] {
        collect(&std::path::Path::new(root).join(dir), &mut files);
    }
    let mut compiled = 0;
    for f in files {
        let Ok(src) = std::fs::read_to_string(&f) else { continue };
        let Ok(c) = driver::compile(&src) else { continue };
        match compile(&c.ir) {
            Ok(_) => compiled += 1,
            Err(ds) => {
                for d in ds {
                    assert!(
                        d.message.starts_with("unsupported on the GPU backend")
                            || d.message.starts_with("f64 is not available"),
                        "{}: {}",
                        f.display(),
                        d.message
                    );
                }
            }
        }
    }
    assert!(compiled > 10, "only {compiled} programs compiled");
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "fut") {
            out.push(p);
        }
    }
}

/// Every `bitcast<f32>(0x...u)` constant in `wgsl` is finite.
fn constant_floats_are_finite(wgsl: &str) -> bool {
    wgsl.split("bitcast<f32>(0x").skip(1).all(|rest| {
        let hex: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        u32::from_str_radix(&hex, 16).map_or(true, |b| f32::from_bits(b).is_finite())
    })
}

#[test]
fn no_constant_expression_is_infinite_or_nan() {
    // WGSL makes them shader-creation errors; browsers enforce that, naga does not.
    assert!(constant_floats_are_finite(PRELUDE));
    let src = "entry main (xs: []f32) : []f32 = map (\\x -> f32.max x (-f32.inf) + f32.nan) xs";
    let gp = gpu(src).unwrap();
    assert!(gp.kernels.iter().any(|k| k.wgsl.contains("ogm_f32_bits(0x7f800000u)")));
    for k in &gp.kernels {
        assert!(constant_floats_are_finite(&k.wgsl), "{}", k.wgsl);
    }
}
