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
fn entries_that_reach_f64_are_left_out_with_their_error() {
    let src = "def twice (x: f64) : f64 = x * 2\n\
               def inc (x: f32) : f32 = x + 1\n\
               entry wide (x: f64) : f64 = twice x\n\
               entry narrow (xs: []f32) : []f32 = map inc xs";
    let gp = gpu(src).unwrap();
    let names: Vec<&str> = gp.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["narrow"]);
    assert_eq!(gp.rejected.len(), 1);
    assert_eq!(gp.rejected[0].0, "wide");
    assert_eq!(gp.rejected[0].1.message, "f64 is not available on WebGPU");
    // The f64 function is gone and the calls are renumbered.
    assert!(gp.funs.iter().all(|f| f.name != "twice"), "{:?}", gp.funs);
    let ep = &gp.entries[0];
    assert_eq!(gp.funs[ep.fun].name, "narrow");
    assert!(show(&gp).contains("-- entry wide: not compiled for the GPU: f64"));
}

#[test]
fn entries_with_unsupported_constructs_are_left_out_with_their_error() {
    // i64.highest does not fit the 32 bits an i64 has inside a kernel: narrowing it would give
    // -1, a wrong answer, so the entry that needs it is left out and the other one compiles.
    let src = "entry smallest (xs: []i64) : i64 = reduce i64.min i64.highest xs\n\
               entry total (xs: []i32) : i32 = reduce (+) 0 xs";
    let gp = gpu(src).unwrap();
    let names: Vec<&str> = gp.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["total"]);
    assert_eq!(gp.rejected.len(), 1);
    assert_eq!(gp.rejected[0].0, "smallest");
    assert!(gp.rejected[0].1.message.contains("does not fit in 32 bits"), "{:?}", gp.rejected);
    // With no entry left, the first error is the program's.
    let err = gpu("entry smallest (xs: []i64) : i64 = reduce i64.min i64.highest xs").unwrap_err();
    assert!(err[0].message.contains("9223372036854775807"), "{err:?}");
}

#[test]
fn f16_operations_round_to_f16() {
    let gp =
        gpu("entry main (xs: []f16) : []u16 = map (\\x -> f16.to_bits (x * x + 1)) xs").unwrap();
    let k = gp.kernels.iter().find(|k| k.wgsl.contains("ogm_f16_to_bits(")).unwrap();
    assert!(k.wgsl.contains("ogm_f16(("), "{}", k.wgsl);
    validate(&k.wgsl).unwrap();
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
    assert!(gp.kernels.iter().any(|k| k.wgsl.contains("ogm_f32_bits(0xff800000u)")));
    assert!(gp.kernels.iter().any(|k| k.wgsl.contains("ogm_f32_bits(0x7fc00000u)")));
    for k in &gp.kernels {
        assert!(constant_floats_are_finite(&k.wgsl), "{}", k.wgsl);
    }
}

/// Compile `src`, check every kernel validates, and return the kernels' WGSL joined.
fn kernels(src: &str) -> String {
    let gp = gpu(src).unwrap_or_else(|e| panic!("{}", e[0].message));
    for k in &gp.kernels {
        validate(&k.wgsl).unwrap_or_else(|e| panic!("{e}\n{}", k.wgsl));
    }
    gp.kernels.iter().map(|k| k.wgsl.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn an_if_returning_arrays_in_a_kernel_is_indexed_per_element() {
    let src = "entry main [n][m] (xss: [n][m]f32) (cs: [n]i32) : [n][m]f32 =\n  \
               map2 (\\xs c -> if c == 0 then xs else map (/ f32.i32 c) xs) xss cs";
    let w = kernels(src);
    assert!(w.contains("var f"), "{w}");
}

#[test]
fn an_if_returning_a_scalar_and_an_array_in_a_kernel() {
    let src = "entry main [n] (xss: [n][3]i32) : [n]i32 =\n  \
               map (\\xs -> let (s, ys) = if xs[0] > 0 then (1, map (+ 1) xs) else (2, xs)\n  \
               in s + reduce (+) 0 ys) xss";
    kernels(src);
}

#[test]
fn a_map_of_hist_is_a_segmented_histogram() {
    let src = "entry main [n][d] (is: [n]i64) (pts: [d][n]f32) : [d][4]f32 =\n  \
               map (\\xs -> reduce_by_index (replicate 4 0f32) (+) 0 is xs) pts";
    let w = kernels(src);
    assert!(w.contains("for (var j"), "{w}");
}

#[test]
fn scan_and_scatter_inside_a_map() {
    let src = "entry main [n][m] (xss: [n][m]i32) : [n][m]i32 =\n  \
               map (\\xs -> scan (+) 0 xs) xss\n\
               entry pos [n][m] (xss: [n][m]i32) : [n][m]i32 =\n  \
               map (\\xs -> scatter (replicate m 0) (map (\\x -> i64.i32 x) xs) xs) xss";
    kernels(src);
}

#[test]
fn slice_updates_on_the_host_and_in_a_kernel() {
    let src = "entry row [n][m] (a: *[n][m]i32) (i: i64) (r: [m]i32) : [n][m]i32 =\n  \
               a with [i] = r\n\
               entry inner [n][m] (a: [n][m]i32) : [n][m]i32 =\n  \
               map (\\r -> copy r with [0] = 7) a";
    let w = kernels(src);
    assert!(w.contains("var u"), "{w}");
}

#[test]
fn elementwise_reductions_of_arrays_on_the_host_and_in_a_kernel() {
    let src = "entry host [n][m] (xss: [n][m]f32) : [m]f32 =\n  \
               reduce (map2 (+)) (replicate m 0) xss\n\
               entry inner [k][n][m] (xsss: [k][n][m]f32) : [k][m]f32 =\n  \
               map (\\xss -> reduce (map2 (+)) (replicate m 0) xss) xsss";
    kernels(src);
}

#[test]
fn a_reduction_of_arrays_whose_operator_is_not_elementwise_is_unsupported() {
    let src = "entry main [n][m] (xss: [n][m]f32) : [m]f32 =\n  \
               reduce (\\a b -> map2 (+) (reverse a) b) (replicate m 0) xss";
    let e = gpu(src).unwrap_err();
    assert!(e[0].message.contains("operator is not elementwise"), "{}", e[0].message);
}
