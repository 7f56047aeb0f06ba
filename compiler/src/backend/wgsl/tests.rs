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
    let odd = "entry odd (xss: [][]f32) = map (\\xs -> loop ys = xs for i < 3 do map (+ 1) ys) xss";
    let src = format!("{odd}\nentry total (xs: []i32) : i32 = reduce (+) 0 xs");
    let gp = gpu(&src).unwrap();
    let names: Vec<&str> = gp.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["total"]);
    assert_eq!(gp.rejected.len(), 1);
    assert_eq!(gp.rejected[0].0, "odd");
    let msg = &gp.rejected[0].1.message;
    assert!(msg.contains("unsupported on the GPU backend"), "{msg}");
    assert!(!is_needs_wide(&gp.rejected[0].1));
    // With no entry left, the first error is the program's.
    let err = gpu(odd).unwrap_err();
    assert_eq!(&err[0].message, msg);
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
    // On the host, the row is copied into place by the device: no kernel.
    let gp = gpu(src).unwrap();
    let rows = host_stms(&gp)
        .into_iter()
        .filter(|s| matches!(s, HostStm::UpdateRow { idx, .. } if idx.len() == 1))
        .count();
    assert_eq!(rows, 1, "{}", show(&gp));
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

/// The host statements of every function, nested bodies included.
fn host_stms(gp: &GpuProgram) -> Vec<&HostStm> {
    fn go<'a>(b: &'a HostBody, out: &mut Vec<&'a HostStm>) {
        for s in &b.stms {
            out.push(s);
            match s {
                HostStm::If { then_body, else_body, .. } => {
                    go(then_body, out);
                    go(else_body, out);
                }
                HostStm::Loop { body, .. } => go(body, out),
                HostStm::RowMap { pieces, .. } => go(pieces, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for f in &gp.funs {
        go(&f.body, &mut out);
    }
    out
}

/// A kernel's own code (after the prelude).
/// A kernel's code after the prelude, with its loops as they were before unrolling: the
/// unrolled copies dropped, each loop's remainder loop (a copy of the body) kept.
fn own_code(k: &Kernel) -> String {
    let code = k.wgsl.split(prelude::END).nth(1).unwrap_or(&k.wgsl);
    let mut out = String::new();
    let mut skip: Option<String> = None;
    for line in code.lines() {
        let indent = &line[..line.len() - line.trim_start().len()];
        match &skip {
            Some(end) if line == end => skip = None,
            Some(_) => {}
            None if line.trim_start().starts_with("for (; ") => skip = Some(format!("{indent}}}")),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn unrolled_loops_keep_their_remainder_loop() {
    let gp = gpu(SOFTMAX).unwrap();
    let HostStm::RowMap { thread, .. } = &entry_stms(&gp, "main")[0] else { panic!() };
    let k = &gp.kernels[thread.kernel];
    // The row-per-invocation kernel's three loops (maximum, sum, quotients) are unrolled, and
    // each still has a loop over the rest of the row.
    assert_eq!(k.wgsl.matches("for (; ").count(), 3, "{}", k.wgsl);
    assert_eq!(own_code(k).matches("for (var").count(), 3, "{}", own_code(k));
    assert_eq!(own_code(k).matches("exp(").count(), 2, "{}", own_code(k));
}

const SOFTMAX: &str = "def softmax [m] (xs: [m]f32) : [m]f32 =\n  \
                       let mx = f32.maximum xs\n  \
                       let es = map (\\x -> f32.exp (x - mx)) xs\n  \
                       let s = f32.sum es\n  \
                       in map (/ s) es\n\
                       entry main [n][m] (xss: [n][m]f32) : [n][m]f32 = map softmax xss";

/// The statements of entry `name`'s host function, not those nested in them.
fn entry_stms<'a>(gp: &'a GpuProgram, name: &str) -> &'a [HostStm] {
    let e = gp.entries.iter().find(|e| e.name == name).unwrap();
    &gp.funs[e.fun].body.stms
}

#[test]
fn softmax_over_rows_is_one_row_kernel() {
    let gp = gpu(SOFTMAX).unwrap();
    let [HostStm::RowMap { group, thread, local, pieces, .. }] = entry_stms(&gp, "main") else {
        panic!("{}", show(&gp));
    };
    // One workgroup per row: both reductions combine their lanes in workgroup memory, and the
    // exponentials, which the sum and the quotient read, are computed once into it.
    let code = own_code(&gp.kernels[group.kernel]);
    assert_eq!(code.matches("workgroupBarrier()").count(), 5, "{code}");
    assert_eq!(code.matches("exp(").count(), 1, "{code}");
    assert_eq!(local.len(), 1, "{}", show(&gp));
    assert_eq!(gp.kernels[group.kernel].buffers.len(), 2, "{code}");
    // One invocation per row, for short rows and software devices: sequential loops.
    let code = own_code(&gp.kernels[thread.kernel]);
    assert!(!code.contains("workgroupBarrier") && !code.contains("var<workgroup>"), "{code}");
    // What the executor runs when the row is too wide: the distributed kernels.
    assert!(pieces.stms.iter().any(|s| matches!(s, HostStm::SegReduce { .. })), "{}", show(&gp));
}

#[test]
fn rows_of_maps_and_reductions_are_row_kernels() {
    let src = "def lse [m] (xs: [m]f32) : f32 =\n  \
               let mx = f32.maximum xs in mx + f32.log (f32.sum (map (\\x -> f32.exp (x - mx)) xs))\n\
               def standardise [m] (xs: [m]f32) : [m]f32 =\n  \
               let mean = f32.sum xs / f32.i64 m\n  \
               let ds = map (\\x -> x - mean) xs\n  \
               let sd = f32.sqrt (f32.sum (map (\\d -> d * d) ds) / f32.i64 m)\n  \
               in map (/ sd) ds\n\
               entry lse_rows [n][m] (xss: [n][m]f32) : [n]f32 = map lse xss\n\
               entry std_rows [n][m] (xss: [n][m]f32) : [n][m]f32 = map standardise xss\n\
               entry with_sum [n][m] (xss: [n][m]i32) : ([n][m]i32, [n]i32) =\n  \
               unzip (map (\\r -> let ys = map (\\x -> x * x) r in (ys, i32.sum ys)) xss)\n\
               entry sums [n][m] (xss: [n][m]f32) : [n]f32 = map f32.sum xss\n\
               entry nested [k][n][m] (x: [k][n][m]f32) : [k][n][m]f32 =\n  \
               map (\\xss -> map (\\r -> let s = f32.sum r in map (/ s) r) xss) x";
    let gp = gpu(src).unwrap();
    for name in ["lse_rows", "std_rows", "with_sum"] {
        let stms = entry_stms(&gp, name);
        assert!(matches!(stms, [HostStm::RowMap { .. }]), "{name}: {}", show(&gp));
    }
    // A single reduction to the row's scalar result stays a segmented reduction, and a map of
    // row maps is distributed as before.
    assert!(matches!(entry_stms(&gp, "sums"), [HostStm::SegReduce { .. }]), "{}", show(&gp));
    let nested = entry_stms(&gp, "nested");
    assert!(!nested.iter().any(|s| matches!(s, HostStm::RowMap { .. })), "{}", show(&gp));
}

#[test]
fn row_reductions_are_distributed_out_of_the_elementwise_kernel() {
    let gp = gpu(SOFTMAX).unwrap();
    // The row map's pieces (see `softmax_over_rows_is_one_row_kernel`).
    let stms = host_stms(&gp);
    // The maximum and the sum of each row: segmented reductions with a workgroup per row, whose
    // width is the host's `m` (so short rows can take an invocation each).
    let segs: Vec<_> = stms
        .iter()
        .filter_map(|s| match s {
            HostStm::SegReduce { group, seg_w, .. } => Some((group, seg_w)),
            _ => None,
        })
        .collect();
    assert_eq!(segs.len(), 2, "{}", show(&gp));
    for (group, seg_w) in &segs {
        assert!(seg_w.is_some(), "{}", show(&gp));
        let code = own_code(&gp.kernels[group.kernel]);
        assert!(
            code.contains("var<workgroup> sh0") && code.contains("workgroupBarrier()"),
            "{code}"
        );
    }
    // The two row values share one [n][2] array (a concatenation kernel), which one map over
    // the [n][m] elements reads, with no loop over the row.
    let launches: Vec<_> = stms
        .iter()
        .filter_map(|s| match s {
            HostStm::Launch { shape, dispatch, .. } => Some((shape, dispatch)),
            _ => None,
        })
        .filter(|(_, d)| gp.kernels[d.kernel].name.starts_with("map"))
        .collect();
    assert_eq!(launches.len(), 1, "{}", show(&gp));
    let bufs = &gp.kernels[launches[0].1.kernel].buffers;
    assert_eq!(bufs.len(), 3, "{}", show(&gp));
    assert_eq!(launches[0].0.len(), 2);
    let code = own_code(&gp.kernels[launches[0].1.kernel]);
    assert!(!code.contains("for (") && !code.contains("loop {"), "{code}");
}

#[test]
fn a_row_sum_is_a_segmented_reduction_and_loops_per_row_are_distributed() {
    let src = "entry sums [n][m] (xss: [n][m]f32) : [n]f32 = map f32.sum xss\n\
               entry scaled [n][m] (xss: [n][m]i32) : [n][m]i32 =\n  \
               map (\\r -> let s = loop acc = 0 for x in r do acc + x in map (* s) r) xss";
    let gp = gpu(src).unwrap();
    let stms = host_stms(&gp);
    assert!(stms.iter().any(|s| matches!(s, HostStm::SegReduce { .. })), "{}", show(&gp));
    // The loop runs once per row (a launch over [n]), the product once per element.
    let shapes: Vec<usize> = stms
        .iter()
        .filter_map(|s| match s {
            HostStm::Launch { shape, .. } => Some(shape.len()),
            _ => None,
        })
        .collect();
    assert_eq!(shapes, [1, 2], "{}", show(&gp));
}

#[test]
fn histograms_with_atomic_operators_are_privatised_per_workgroup() {
    let src = "entry ints [n] (k: i64) (is: [n]i64) (vs: [n]i32) : [k]i32 =\n  \
               hist (+) 0 k is vs\n\
               entry floats [n] (k: i64) (is: [n]i64) (vs: [n]f32) : [k]f32 =\n  \
               hist (+) 0 k is vs\n\
               entry products [n] (k: i64) (is: [n]i64) (vs: [n]i32) : [k]i32 =\n  \
               hist (*) 1 k is vs";
    let gp = gpu(src).unwrap();
    let hists: Vec<_> = host_stms(&gp)
        .into_iter()
        .filter_map(|s| match s {
            HostStm::Hist { local, global, .. } => Some((local.kernel, global.kernel)),
            _ => None,
        })
        .collect();
    // `*` has no atomic form: it keeps the per-bin kernel.
    assert_eq!(hists.len(), 2, "{}", show(&gp));
    let (li, gi) = (own_code(&gp.kernels[hists[0].0]), own_code(&gp.kernels[hists[0].1]));
    assert!(li.contains("var<workgroup> lh: array<atomic<i32>, 4096>"), "{li}");
    assert!(li.contains("atomicAdd(&lh["), "{li}");
    assert!(!gi.contains("var<workgroup>") && gi.contains("atomicAdd(&b0["), "{gi}");
    let lf = own_code(&gp.kernels[hists[1].0]);
    assert!(lf.contains("atomicCompareExchangeWeak(&lh["), "{lf}");
    assert!(lf.contains("array<atomic<u32>>"), "{lf}");
}

#[test]
fn arguments_are_a_uniform_buffer_sized_per_kernel() {
    let gp = gpu("entry main (xs: []f32) (a: f32) (b: f32) (c: f32) (d: f32) : []f32 =\n  \
                  map (\\x -> x * a + b * c - d) xs")
    .unwrap();
    let w = &gp.kernels[0].wgsl;
    // n, a, b, c, d: five words, two vec4s.
    assert!(w.contains("var<uniform> ogm_args: array<vec4<u32>, 2>;"), "{w}");
    assert!(w.contains("ogm_args[1][0]"), "{w}");
}

#[test]
fn replicates_and_iotas_are_computed_in_the_kernels_that_read_them() {
    let gp = gpu("entry main (n: i64) (x: f32) : []f32 =\n  \
                  let r = replicate n x\n  \
                  in map2 (\\a i -> a * f32.i64 i) r (iota n)")
    .unwrap();
    let last = gp.kernels.last().unwrap();
    // Only the result is bound, and neither `r` nor the iota is stored.
    assert_eq!(last.buffers.len(), 1, "{}", show(&gp));
    let launches =
        host_stms(&gp).into_iter().filter(|s| matches!(s, HostStm::Launch { .. })).count();
    assert_eq!(launches, 1, "{}", show(&gp));
}

#[test]
fn scans_in_a_map_are_segmented_scans() {
    let src = "entry main [n][m] (xss: [n][m]i32) : [n][m]i32 =\n  \
               map (\\r -> let c = scan (+) 0 r in map2 (*) c r) xss";
    let gp = gpu(src).unwrap();
    let launches: Vec<_> = host_stms(&gp)
        .into_iter()
        .filter_map(|s| match s {
            HostStm::Launch { shape, dispatch, .. } => Some((shape.len(), dispatch.kernel)),
            _ => None,
        })
        .collect();
    // One invocation per row scans it; the elementwise kernel reads the scanned rows.
    assert_eq!(launches.len(), 2, "{}", show(&gp));
    assert_eq!(launches[0].0, 1);
    assert!(gp.kernels[launches[0].1].name.starts_with("segscan"), "{}", show(&gp));
    let code = own_code(&gp.kernels[launches[1].1]);
    assert!(!code.contains("for (") && !code.contains("loop {"), "{code}");
}

/// Each launch's rank and how often `needle` occurs in its kernel's own code.
fn launches_with(gp: &GpuProgram, needle: &str) -> Vec<(usize, usize)> {
    host_stms(gp)
        .into_iter()
        .filter_map(|s| match s {
            HostStm::Launch { shape, dispatch, .. } => {
                let code = own_code(&gp.kernels[dispatch.kernel]);
                Some((shape.len(), code.matches(needle).count()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn arrays_whose_elements_loop_are_computed_once_per_row() {
    // Two matrix-vector products per row: the hidden vector is a [n][h] array of its own, so
    // each output element runs one loop (its dot product with the hidden row), not two nested;
    // its `tanh`s, which every output element folds, are computed once each in between.
    let src = "def matvec [m][n] (w: [m][n]f32) (v: [n]f32) : [m]f32 =\n  \
               map (\\r -> f32.sum (map2 (*) r v)) w\n\
               entry main [b][i][h][k] (xs: [b][i]f32) (w1: [h][i]f32) (w2: [k][h]f32) : [b][k]f32 =\n  \
               map (\\x -> let hid = map f32.tanh (matvec w1 x) in matvec w2 hid) xs";
    let gp = gpu(src).unwrap();
    let loops = launches_with(&gp, "for (");
    assert_eq!(loops, [(2, 1), (2, 0), (2, 1)], "{}", show(&gp));
}

#[test]
fn a_row_reduction_two_map_levels_down_runs_once_per_row() {
    let src = "entry main [b][n][m] (xsss: [b][n][m]f32) : [b][n][m]f32 =\n  \
               map (\\xss -> map (\\r -> let s = f32.sum r in map (/ s) r) xss) xsss";
    let gp = gpu(src).unwrap();
    let launches = launches_with(&gp, "for (");
    // The sums: one loop per [b][n] element; the quotients: no loop per [b][n][m] element.
    assert_eq!(launches, [(2, 1), (3, 0)], "{}", show(&gp));
}

#[test]
fn costly_rows_read_many_times_are_computed_once() {
    // `w` is read once per element of each of the inner map's rows: computed where it is read,
    // each exponential would be recomputed d times. A cheap `w` stays where it is read.
    let src = |f: &str| {
        format!(
            "entry main [n][k][d] (xs: [n][k]f32) (ys: [k][d]f32) : [n][k][d]f32 =\n  \
             map (\\x -> let w = map (\\v -> {f}) x in map2 (\\wi y -> map (* wi) y) w ys) xs"
        )
    };
    let launches = |gp: &GpuProgram| launches_with(gp, "exp(");
    let gp = gpu(&src("f32.exp v")).unwrap();
    assert_eq!(launches(&gp), [(2, 1), (3, 0)], "{}", show(&gp));
    let gp = gpu(&src("v * 2")).unwrap();
    assert_eq!(launches(&gp), [(3, 0)], "{}", show(&gp));
    // Folded by each element of a map with scalar results (a product with a transposed matrix,
    // as in reverse mode through a layer): computed once, the product is a tiled matrix product.
    let product = "entry main [n][k][h] (xs: [n][k]f32) (w: [k][h]f32) : [n][h]f32 =\n  \
                   map (\\x -> let e = map f32.exp x\n\
                                 in map (\\c -> f32.sum (map2 (*) e c)) (transpose w)) xs";
    let gp = gpu(product).unwrap();
    assert_eq!(tiled_launches(&gp).len(), 1, "{}", show(&gp));
    assert_eq!(launches(&gp), [(2, 1), (2, 0)], "{}", show(&gp));
    // Read one element per element: left where it is read.
    let gather = "entry main [n][k] (xs: [n][k]f32) (js: [k]i64) : [n][k]f32 =\n  \
                  map (\\x -> let e = map f32.exp x in map (\\j -> e[j] * 2) js) xs";
    let gp = gpu(gather).unwrap();
    assert_eq!(launches(&gp), [(2, 1)], "{}", show(&gp));
}

#[test]
fn the_gradient_of_a_matrix_product_is_two_products_without_atomics() {
    // Seed-001 §7 test 15's structural check: Ā = C̄·Bᵀ (a map whose elements fold a row) and
    // B̄ = Aᵀ·C̄ (a sum over the rows of their outer products), no histogram, no atomics.
    let src = "def matmul [n][m][p] (a: [n][m]f32, b: [m][p]f32) : [n][p]f32 =\n  \
               map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a\n\
               entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) (c: [n][p]f32) =\n  \
               vjp matmul (a, b) c";
    let gp = gpu(src).unwrap();
    let stms = host_stms(&gp);
    let folds = stms
        .iter()
        .filter(|s| match s {
            HostStm::Launch { dispatch, .. } => {
                own_code(&gp.kernels[dispatch.kernel]).contains("for (")
            }
            HostStm::SplitReduce { .. } => true,
            _ => false,
        })
        .count();
    assert_eq!(folds, 2, "{}", show(&gp));
    assert!(!stms.iter().any(|s| matches!(s, HostStm::Hist { .. })), "{}", show(&gp));
    assert!(gp.kernels.iter().all(|k| !own_code(k).contains("atomic")), "{}", show(&gp));
}

#[test]
fn a_multi_index_costs_one_division_per_dimension() {
    // The remainders are `rest - q * d`: a row-major index of the same shape folds back to the
    // flat one in the driver's compiler, and no `%` is left to compute.
    let gp = gpu("entry main [n][m][p] (x: [n][m][p]f32) = map (map (map (+ 1))) x").unwrap();
    let code = own_code(&gp.kernels[0]);
    assert_eq!(code.matches(" / max(").count(), 2, "{code}");
    assert!(!code.contains(" % "), "{code}");
}

/// The matrix-product launches' kernels: (for GPUs, for software devices).
fn tiled_launches(gp: &GpuProgram) -> Vec<(String, String)> {
    host_stms(gp)
        .into_iter()
        .filter_map(|s| match s {
            HostStm::Launch { tiled: Some(t), dispatch, .. } => Some((
                gp.kernels[dispatch.kernel].name.clone(),
                gp.kernels[t.software.kernel].name.clone(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn matrix_product_nests_run_per_block_of_the_result() {
    // Written with the transpose inside the outer function: it is hoisted, and the nest tiled.
    let src = "entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =\n  \
               map (\\r -> map (\\c -> f32.sum (map2 (*) r c)) (transpose b)) a";
    let gp = gpu(src).unwrap();
    let tiled = tiled_launches(&gp);
    assert_eq!(tiled.len(), 1, "{}", show(&gp));
    let (gpu, software) = &tiled[0];
    assert!(gpu.starts_with("matmul8x8tile128x128"), "{tiled:?}");
    assert!(software.starts_with("matmul16x16"), "{tiled:?}");
    assert!(show(&gp).contains("per 128x128 tile (a 8x8 block per invocation)"), "{}", show(&gp));
    assert!(show(&gp).contains("per 16x16 block"), "{}", show(&gp));
    // One accumulator per element of an invocation's block.
    for (name, side) in [(gpu, 8), (software, 16)] {
        let k = gp.kernels.iter().find(|k| &k.name == name).unwrap();
        validate(&k.wgsl).unwrap();
        assert_eq!(k.wgsl.matches("var acc").count(), side * side, "{}", k.wgsl);
    }
    // The GPU kernel's workgroups stage both operands in workgroup memory (8 KiB and a little
    // padding) between barriers; the software kernel has neither.
    let gpu = gp.kernels.iter().find(|k| &k.name == gpu).unwrap();
    let code = own_code(gpu);
    for decl in ["var<workgroup> tile_a: array<vec4<f32>, 264>;", "tile_b: array<vec4<f32>, 264>"] {
        assert!(code.contains(decl), "{code}");
    }
    assert_eq!(code.matches("workgroupBarrier()").count(), 2, "{code}");
    let software = gp.kernels.iter().find(|k| &k.name == software).unwrap();
    assert!(!own_code(software).contains("var<workgroup>"));
}

#[test]
fn products_of_two_word_elements_keep_the_register_blocks() {
    // In the wide program i64 elements are two words each: no staged tiles on GPUs.
    let src = "entry main [n][m][p] (a: [n][m]i64) (b: [m][p]i64) : [n][p]i64 =\n  \
               map (\\r -> map (\\c -> i64.sum (map2 (*) r c)) (transpose b)) a";
    let narrow = gpu(src).unwrap();
    assert!(tiled_launches(&narrow)[0].0.starts_with("matmul8x8tile128x128"));
    let wide = compile_wide(&narrow).unwrap();
    let tiled = tiled_launches(&wide);
    assert!(tiled[0].0.starts_with("matmul4x4") && tiled[0].1.starts_with("matmul16x16"));
    for k in &wide.kernels {
        validate(&k.wgsl).unwrap();
    }
}

#[test]
fn nests_whose_functions_read_the_rows_are_not_tiled() {
    let src = "entry main [n][m][p] (a: [n][m]f32) (bt: [p][m]f32) : [n][p]f32 =\n  \
               map (\\r -> map (\\c -> f32.sum (map2 (\\x y -> x * y + r[0]) r c)) bt) a";
    let gp = gpu(src).unwrap();
    assert!(tiled_launches(&gp).is_empty(), "{}", show(&gp));
}

#[test]
fn a_cheap_map_read_once_by_a_reduction_is_computed_where_it_is_read() {
    let launches = |src: &str| {
        let gp = gpu(src).unwrap();
        host_stms(&gp).into_iter().filter(|s| matches!(s, HostStm::Launch { .. })).count()
    };
    // The products are never stored: the reduction's first pass multiplies as it reads.
    let dot = "entry main [n] (xs: [n]f32) (ys: [n]f32) : f32 = f32.sum (map2 (*) xs ys)";
    assert_eq!(launches(dot), 0);
    // Used twice (by the reduction and as a result), the map is stored once.
    let twice = "entry main [n] (xs: [n]f32) : (f32, [n]f32) =\n  \
                 let ys = map (\\x -> x * 2) xs in (f32.sum ys, ys)";
    assert_eq!(launches(twice), 1);
}

#[test]
fn per_sample_outer_products_summed_over_the_samples_are_never_stored() {
    let ranks = |src: &str| {
        let gp = gpu(src).unwrap();
        let mut r: Vec<usize> = host_stms(&gp)
            .into_iter()
            .filter_map(|s| match s {
                HostStm::Launch { shape, .. } => Some(shape.len()),
                HostStm::SplitReduce { pat, .. } => Some(pat[0].ty.rank()),
                _ => None,
            })
            .collect();
        r.sort();
        r
    };
    // The sum over n of the outer products is a matrix product (`opt::outer_products`): one
    // [h][i] launch, and the [n][h][i] products are never made.
    let outer = "entry main [n][h][i] (a: [n][h]f32) (x: [n][i]f32) : [h][i]f32 =\n  \
                 reduce (map2 (map2 (+))) (replicate h (replicate i 0f32))\n    \
                 (map2 (\\ar xr -> map (\\p -> map (* p) xr) ar) a x)";
    assert_eq!(ranks(outer), [2]);
    // Computing an element would bind seven arrays: with the reduction's output and the error
    // record, more than WebGPU's 8 storage buffers, so the products are launched and stored.
    let wide = "entry main [n][m] (a: [n][m]f32) (b: [n][m]f32) (c: [n][m]f32) (d: [n][m]f32)\n    \
                (e: [n][m]f32) (f: [n][m]f32) (g: [n][m]f32) : [m]f32 =\n  \
                reduce (map2 (+)) (replicate m 0f32)\n    \
                (map (\\k -> map (\\j -> a[k][j] + b[k][j] + c[k][j] + d[k][j] + e[k][j] + f[k][j] + g[k][j]) (iota m)) (iota n))";
    assert_eq!(ranks(wide), [1, 2]);
}

#[test]
fn element_updates_of_arrays_nothing_else_reads_write_in_place() {
    let updates = |src: &str| {
        let gp = gpu(src).unwrap();
        let mut copies = 0;
        let mut r: Vec<bool> = Vec::new();
        for s in host_stms(&gp) {
            match s {
                HostStm::UpdateElem { in_place, .. } => r.push(*in_place),
                HostStm::Copy { .. } => copies += 1,
                _ => {}
            }
        }
        (r, copies)
    };
    // A loop filling a fresh array: no copy per iteration.
    let fill = "entry main (n: i64) : []i64 =\n  \
                loop zs = replicate n 0 for i < n do zs with [i] = i";
    assert_eq!(updates(fill), (vec![true], 0));
    // A copy that is updated gets a buffer of its own, once; a copy nothing updates does not.
    let copied = "entry main (xs: []f32) : ([]f32, []f32, []f32) =\n  \
                  let ys = copy xs\n  let zs = copy xs\n  in (xs, ys with [0] = 1, zs)";
    assert_eq!(updates(copied), (vec![true], 1));
    // The sum of `ys` is computed where it is read, after the update: `a` must stay.
    let deferred = "entry main (n: i64) : (f32, []f32) =\n  \
                    let a = map f32.i64 (iota n)\n  let ys = map (* 2) a\n  \
                    let b = a with [0] = 100\n  in (f32.sum ys, b)";
    assert_eq!(updates(deferred), (vec![false], 0));
}

#[test]
fn scatters_into_fresh_arrays_write_in_place_and_others_into_a_copy() {
    let scatters = |src: &str| -> Vec<bool> {
        let gp = gpu(src).unwrap();
        host_stms(&gp)
            .into_iter()
            .filter_map(|s| match s {
                HostStm::Scatter { in_place, winners, write, .. } => {
                    assert_ne!(winners.kernel, write.kernel);
                    Some(*in_place)
                }
                _ => None,
            })
            .collect()
    };
    let fresh = "entry main [w] (n: i64) (is: [w]i64) (vs: [w]f32) : [n]f32 =\n  \
                 scatter (replicate n 0) is vs";
    assert_eq!(scatters(fresh), [true]);
    let kept = "entry main [n][w] (d: [n]f32) (is: [w]i64) (vs: [w]f32) : ([n]f32, [n]f32) =\n  \
                (d, scatter (copy d) is vs)";
    assert_eq!(scatters(kept), [true]);
    let argument = "entry main [n][w] (d: *[n]f32) (is: [w]i64) (vs: [w]f32) : [n]f32 =\n  \
                    scatter d is vs";
    assert_eq!(scatters(argument), [false]);
}

#[test]
fn constants_outside_32_bits_leave_the_entry_to_the_wide_program() {
    let src = "entry least (xs: []i64) : i64 = i64.minimum xs\n\
               entry double (xs: []i64) : []i64 = map (* 2) xs";
    let gp = gpu(src).unwrap();
    assert!(!gp.wide);
    let (name, d) = &gp.rejected[0];
    assert_eq!(name, "least");
    assert!(is_needs_wide(d), "{}", d.message);
    assert!(d.message.contains("does not fit in 32 bits"), "{}", d.message);
    assert_eq!(gp.rejected.len(), 1);

    let wide = compile_wide(&gp).unwrap();
    assert!(wide.wide && wide.rejected.is_empty());
    // 64-bit values are `vec2<u32>`, computed with the prelude's helpers, and every kernel
    // validates.
    let code: String = wide.kernels.iter().map(|k| k.wgsl.as_str()).collect();
    assert!(code.contains("vec2<u32>(4294967295u, 2147483647u)"), "i64.highest");
    assert!(code.contains("array<vec2<u32>>"));
    assert!(code.contains("ogm_w_lt_i("));

    // A program whose only entry needs 64 bits still compiles, to its rejection.
    let only = gpu("entry least (xs: []i64) : i64 = i64.minimum xs").unwrap();
    assert!(only.kernels.is_empty() && is_needs_wide(&only.rejected[0].1));
    assert_eq!(compile_wide(&only).unwrap().entries.len(), 1);
}

#[test]
fn the_prelude_has_no_names_of_buffers() {
    // Unused bindings are found by the names `b0`, `b1`, ... in a kernel's whole text.
    let name = regex::Regex::new(r"\bb[0-9]+\b").unwrap();
    assert!(name.find(PRELUDE).is_none());
}

#[test]
fn scans_have_staged_passes_for_gpus_and_a_commuting_operator_folds_strided() {
    let kernel = |gp: &GpuProgram, part: &str| {
        gp.kernels.iter().find(|k| k.name.contains(part)).map(|k| k.wgsl.clone())
    };
    // `+` commutes: the first pass needs no staging.
    let gp = gpu("entry main (xs: []f32) : []f32 = scan (+) 0 xs").unwrap();
    let p1 = kernel(&gp, "staged_pass1").expect("a staged first pass");
    let p3 = kernel(&gp, "staged_pass3").expect("a staged third pass");
    assert!(!p1.contains("var<workgroup> st0"), "{p1}");
    assert!(p3.contains("var<workgroup> st0: array<f32, 2112>"), "{p3}");
    assert!(show(&gp).contains("on a GPU:"), "{}", show(&gp));
    // Composing affine maps does not commute: the first pass stages its tiles too.
    let src =
        "def c (a1: i32, b1: i32) (a2: i32, b2: i32) : (i32, i32) = (a1 * a2, b1 * a2 + b2)\n\
               entry main (as: []i32) (bs: []i32) = unzip (scan c (1, 0) (zip as bs))";
    let gp = gpu(src).unwrap();
    let p1 = kernel(&gp, "staged_pass1").expect("a staged first pass");
    assert!(p1.contains("var<workgroup> st1: array<i32, 1056>"), "{p1}");
    // Five words an element are too wide to stage.
    let src = "def f (a: i32, b: i32, c: i32, d: i32, e: i32) (a2: i32, b2: i32, c2: i32, d2: i32, e2: i32) =\n\
               (a + a2, b + b2, c + c2, d + d2, e + e2)\n\
               entry main (a: []i32) = unzip5 (scan f (0, 0, 0, 0, 0) (zip5 a a a a a))";
    let gp = gpu(src).unwrap();
    assert!(kernel(&gp, "staged").is_none());
}

#[test]
fn operators_that_commute() {
    let lam = |src: &str| {
        let c = driver::compile(src).unwrap();
        let mut found = None;
        for f in &c.ir.funs {
            for st in &f.body.stms {
                if let ir::Exp::Scan { lam, .. } = &st.exp {
                    found = Some(lam.clone());
                }
            }
        }
        found.expect("a scan")
    };
    let yes = ["(+)", "(*)", "i32.max", "(\\a b -> b + a)", "(&)"];
    for op in yes {
        let l = lam(&format!("entry main (xs: []i32) : []i32 = scan {op} 0 xs"));
        assert!(staged::commutes(&l), "{op}");
    }
    let no = ["(-)", "(\\a b -> a * 2 + b)", "(\\a _ -> a)", "(\\a b -> a + b + 1)"];
    for op in no {
        let l = lam(&format!("entry main (xs: []i32) : []i32 = scan {op} 0 xs"));
        assert!(!staged::commutes(&l), "{op}");
    }
}

/// n-body's gradient: the adjoints of the masses and positions, read at `i` and `j` for every
/// pair, are histograms of all pairs (`opt::summed_histograms_as_one`) whose kernels compute
/// each pair once and add its contributions: no launch stores `[n][n]` values, and no kernel
/// loops over the contributions for every bin.
#[test]
fn histograms_of_pairs_compute_each_pair_once() {
    let src = "def energy [n] (ms: [n]f32) (ps: [n][3]f32) : f32 =
                 f32.sum (map (\\i -> f32.sum (map (\\j ->
                   if i >= j then 0
                   else let d = map2 (-) ps[i] ps[j]
                        in -(ms[i] * ms[j]) / f32.sqrt (f32.sum (map (\\x -> x * x) d) + 0.01))
                   (iota n))) (iota n))
               entry grad [n] (ms: [n]f32) (ps: [n][3]f32) =
                 vjp (\\(m, p) -> energy m p) (ms, ps) 1";
    let gp = gpu(src).unwrap();
    let shown = show(&gp);
    let stms = host_stms(&gp);
    let launches: Vec<_> = stms
        .iter()
        .filter_map(|s| match s {
            HostStm::Launch { shape, .. } => Some(shape.len()),
            _ => None,
        })
        .collect();
    assert!(launches.iter().all(|&r| r == 1), "{shown}");
    let hists: Vec<usize> = stms
        .iter()
        .filter_map(|s| match s {
            HostStm::Hist { local, .. } => Some(local.kernel),
            _ => None,
        })
        .collect();
    assert_eq!(hists.len(), 2, "{shown}");
    for (k, per) in hists.iter().zip(["6", "2"]) {
        let code = own_code(&gp.kernels[*k]);
        assert!(code.contains(&format!("let rows = w / {per};")), "{code}");
        assert_eq!(code.matches("atomicCompareExchangeWeak(&lh[").count(), per.parse().unwrap());
        assert!(!code.contains("switch"), "{code}");
    }
    for k in &gp.kernels {
        validate(&k.wgsl).unwrap();
    }
}

/// An elementwise reduction of arrays (a sum over samples) has, besides the kernel folding
/// whole columns, a kernel folding chunks of them and one folding the chunks, for results too
/// small to fill a device; how many chunks depends on the device and the sizes.
#[test]
fn small_elementwise_reductions_are_split_into_chunks() {
    let gp =
        gpu("entry main [n][k] (xss: [n][k]f32) : [k]f32 = reduce (map2 (+)) (replicate k 0) xss")
            .unwrap();
    let shown = show(&gp);
    let split = host_stms(&gp).into_iter().find_map(|s| match s {
        HostStm::SplitReduce { parts, finish, .. } => Some((parts.kernel, finish.kernel)),
        _ => None,
    });
    let (parts, finish) = split.unwrap_or_else(|| panic!("{shown}"));
    assert!(own_code(&gp.kernels[parts]).contains("min(start + chunk, w)"), "{shown}");
    assert!(own_code(&gp.kernels[finish]).contains("c * elems + e"), "{shown}");
    for k in &gp.kernels {
        validate(&k.wgsl).unwrap();
    }
    use super::exec::split_chunks;
    // 16 elements of 10000 arrays: 256 chunks on a software device, 312 (of 32 arrays) on a GPU.
    assert_eq!(split_chunks(10_000, 16, true), 256);
    assert_eq!(split_chunks(10_000, 16, false), 312);
    // Enough elements, or too few arrays: no split.
    assert_eq!(split_chunks(10_000, 1 << 20, false), 1);
    assert_eq!(split_chunks(40, 16, true), 1);
}

/// Sums over the same samples are folded by one kernel (the adjoints of two parameters of a
/// loss), but not when one sum reads the other, nor when the joint kernels would bind more
/// storage buffers than a WebGPU device need allow.
#[test]
fn sums_over_the_same_samples_are_folded_together() {
    let sums = |src: &str| {
        let gp = gpu(src).unwrap();
        for k in &gp.kernels {
            validate(&k.wgsl).unwrap();
        }
        let sums: Vec<usize> = host_stms(&gp)
            .into_iter()
            .filter_map(|s| match s {
                HostStm::SplitReduce { pat, .. } => Some(pat.len()),
                _ => None,
            })
            .collect();
        (sums, show(&gp))
    };
    let loss = "def loss [n][k] (xs: [n][k]f32) (a: [k]f32, b: [k]f32) : f32 =
          f32.sum (map (\\x -> f32.sum (map3 (\\xi ai bi -> let r = ai * xi + bi in r * r) x a b)) xs)
        entry main [n][k] (xs: [n][k]f32) (a: [k]f32) (b: [k]f32) = vjp (loss xs) (a, b) 1";
    let (n, shown) = sums(loss);
    assert_eq!(n, [2], "{shown}");
    let three = "entry main [n][k] (a: [n][k]f32) (b: [n][k]f32) (c: [n][k]f32) (d: [n][k]f32)
                            (e: [n][k]f32) (f: [n][k]f32) =
          let sum (xs: [n][k]f32) = reduce (map2 (+)) (replicate k 0) xs
          in (sum (map3 (map3 (\\x y z -> x + y + z)) a b c), sum (map3 (map3 (\\x y z -> x * y * z)) A B C))";
    let (n, shown) = sums(&three.replace("A B C", "a b c"));
    assert_eq!(n, [2], "{shown}");
    let (n, shown) = sums(&three.replace("A B C", "d e f"));
    assert_eq!(n, [1, 1], "{shown}");
    let (n, shown) = sums(
        "entry main [n][k] (xss: [n][k]f32) =
          let s = reduce (map2 (+)) (replicate k 0) xss
          in (s, reduce (map2 (+)) s (map (map (* 2)) xss))",
    );
    // The second sum starts from the first, which is added after it (`opt::neutral_elements`),
    // so both read `xss` in one pass.
    assert_eq!(n, [2], "{shown}");
}
