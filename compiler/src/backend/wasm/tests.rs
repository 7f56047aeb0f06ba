use std::collections::HashMap;

use super::*;
use crate::driver;

fn module(src: &str) -> Result<WasmModule, Vec<Diagnostic>> {
    let c = driver::compile(src)?;
    compile(&c.ir, &Options::default())
}

#[test]
fn a_scalar_entry_compiles_and_validates() {
    let m = module("entry main (x: i32) : i32 = x + 1").unwrap();
    assert_eq!(m.manifest.entries[0].export, "entry.main");
    let wat = to_wat(&m.bytes).unwrap();
    assert!(wat.contains("(export \"entry.main\""), "{wat}");
}

#[test]
fn f16_goes_through_host_conversions() {
    let m = module("entry main (x: f16) : f16 = x + x").unwrap();
    let wat = to_wat(&m.bytes).unwrap();
    assert!(wat.contains("f16.round"), "{wat}");
}

#[test]
fn messages_fill_in_values() {
    assert_eq!(fill("a {} b {}", &[PrimValue::I64(3), PrimValue::F32(1.5)]), "a 3 b 1.5");
    assert_eq!(fill("{} {}", &[PrimValue::Bool(true)]), "true {}");
}

/// Every example and test program compiles to a valid module, or says what is unsupported.
#[test]
fn the_corpus_compiles() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let mut stack = vec![root.join("examples"), root.join("tests/programs"), root.join("tests/ad")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "fut") {
                files.push(p);
            }
        }
    }
    let mut bad = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let Ok(c) = driver::compile(&src) else { continue };
        if let Err(e) = compile(&c.ir, &Options::default()) {
            if !e.iter().all(|d| d.message.starts_with("unsupported")) {
                bad.push(format!("{}: {:?}", f.display(), e[0].message));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
#[ignore]
fn dump_wat() {
    let path = std::env::var("OGHAM_WAT").unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let c = driver::compile(&src).unwrap();
    let (mut m, _) = gen::generate(&c.ir, &Options::default()).unwrap();
    let bytes = m.emit_wasm();
    println!("{}", to_wat(&bytes).unwrap());
}

#[test]
fn snippets_validate() {
    let snippets = [
        "entry main (x: i32) : i32 = x / 2",
        "entry main (n: i64) : []i64 = iota n",
        "entry main (xs: []f32) : f32 = reduce (+) 0 xs",
        "entry main (xs: []f32) : []f32 = map (+1) xs",
        "entry main (xs: []f32) : f32 = xs[1]",
        "entry main (xs: [][]f32) : []f32 = xs[1]",
        "entry main (x: i32) : i32 = loop acc = x for i < 10 do acc + i",
        "entry main (x: i32) : i32 = if x > 2 then 1 else 2",
        "entry main (xs: []i32) : []i32 = scan (+) 0 xs",
    ];
    let mut bad = Vec::new();
    for s in snippets {
        if let Err(e) = module(s) {
            bad.push(format!("{s}: {}", e[0].message));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn simd_paths_emit_vector_code_and_can_be_turned_off() {
    let src = "entry dot (xs: []f32) (ys: []f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
               entry mx (xs: []f64) : f64 = reduce f64.max (-f64.inf) xs";
    let c = driver::compile(src).unwrap();
    let on =
        to_wat(&compile(&c.ir, &Options { simd: true, threads: false }).unwrap().bytes).unwrap();
    let off =
        to_wat(&compile(&c.ir, &Options { simd: false, threads: false }).unwrap().bytes).unwrap();
    assert!(on.contains("f32x4.mul") && on.contains("f32x4.add") && on.contains("f64x2.pmax"));
    assert!(!off.contains("v128"), "{off}");
}

/// With threads, an outermost map with a loop inside becomes an exported `par.K`; a lane-wise map
/// stays a vector loop; the memory is imported and shared.
#[test]
fn threads_outline_heavy_outermost_maps() {
    let src = "
entry rows [n][m] (xss: [n][m]f32) : [n]f32 = map (\\xs -> f32.sum (map (* 2) xs)) xss
entry flat (xs: []f32) : []f32 = map (* 2) xs
";
    let c = driver::compile(src).unwrap();
    let m = compile(&c.ir, &Options { threads: true, ..Options::default() }).unwrap();
    assert!(m.manifest.threads && m.manifest.to_json().contains("\"threads\":true"));
    let wat = to_wat(&m.bytes).unwrap();
    assert!(wat.contains("(import \"env\" \"memory\" (memory") && wat.contains("shared"), "{wat}");
    assert!(wat.contains("(import \"threads\" \"par_for\""), "{wat}");
    assert!(wat.contains("(export \"par.0\"") && !wat.contains("\"par.1\""), "{wat}");
    assert!(wat.contains("(export \"reset_thread\""), "{wat}");
    // A reduction of such a map: its chunks too.
    let c2 = driver::compile(
        "entry total [n][m] (xss: [n][m]f32) : f32 = f32.sum (map (\\xs -> f32.sum (map (* 2) xs)) xss)",
    )
    .unwrap();
    let m = compile(&c2.ir, &Options { threads: true, ..Options::default() }).unwrap();
    assert!(to_wat(&m.bytes).unwrap().contains("(export \"par.0\""));
    // Without threads: no imports of either.
    let m = compile(&c.ir, &Options::default()).unwrap();
    let wat = to_wat(&m.bytes).unwrap();
    assert!(!wat.contains("par_for") && !wat.contains("shared"), "{wat}");
}

/// Softmax's rows: the sum of the exponentials is folded in the loop that computes them (no
/// second pass over them), and each row is computed in its place in the result (no copy).
#[test]
fn map_rows_are_written_in_place_and_a_fused_sum_needs_no_second_pass() {
    let src = "
entry main [n][m] (xss: [n][m]f32) : [n][m]f32 =
  map (\\xs -> let mx = f32.maximum xs
              let es = map (\\x -> f32.exp (x - mx)) xs
              let s = f32.sum es
              in map (/ s) es) xss";
    let wat = to_wat(&module(src).unwrap().bytes).unwrap();
    assert!(!wat.contains("memory.copy"), "{wat}");
    // The rows; per row: maximum (vector, 4-wide tail, scalar tail), exponentials with the sum
    // (two vectors a step, one, scalar), the sum's scalar tail, the division (two vectors a
    // step, one, scalar).
    assert_eq!(wat.matches("loop ;;").count(), 11, "{wat}");
}

/// A scan of a map that only the scan reads computes the map's values where it reads them:
/// one loop, and only the scan's results are allocated. A map whose results something else
/// reads too is stored first.
#[test]
fn a_scan_of_a_map_computes_the_mapped_values_in_its_loop() {
    let wat = |src: &str| to_wat(&module(src).unwrap().bytes).unwrap();
    let fused = wat("entry main [n] (r: f64) (xs: [n]f64) : [n]f64 =
  let (_, bs) = unzip (scan (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                            (map (\\x -> (r, x * 2)) xs))
  in bs");
    assert_eq!(fused.matches("loop ;;").count(), 1, "{fused}");
    let stored = wat("entry main [n] (xs: [n]f64) : ([n]f64, [n]f64) =
  let ys = map (\\x -> x * 2) xs
  in (scan (+) 0 ys, ys)");
    assert!(stored.matches("loop ;;").count() >= 2, "{stored}");
}

/// A float `max`/`min` reduction whose neutral element is a constant other than NaN folds its
/// vector accumulators with `pmax`/`pmin` (one instruction; no accumulator is ever NaN, so a NaN
/// element is skipped as Futhark's `max` skips it); with a neutral element that may be NaN, the
/// long form that returns the non-NaN operand stays. runtime/tests/elementary.rs runs both on
/// NaNs against the interpreter.
#[test]
fn min_max_reductions_with_a_constant_neutral_fold_with_pseudo_min_max() {
    let wat = |src: &str| to_wat(&module(src).unwrap().bytes).unwrap();
    let mx = wat("entry main (xs: []f32) : f32 = f32.maximum xs");
    assert!(mx.contains("f32x4.pmax") && !mx.contains("v128.bitselect"), "{mx}");
    let mn = wat("entry main (xs: []f64) : f64 = reduce f64.min f64.inf xs");
    assert!(mn.contains("f64x2.pmin") && !mn.contains("v128.bitselect"), "{mn}");
    // Fused with the map before it: the accumulators fold the mapped values the same way.
    let fused = wat("entry main (xs: []f32) : f32 = reduce f32.max (-f32.inf) (map (* 2) xs)");
    assert!(fused.contains("f32x4.pmax") && !fused.contains("v128.bitselect"), "{fused}");
    let nan = wat("entry main (xs: []f32) : f32 = reduce f32.max f32.nan xs");
    assert!(!nan.contains("f32x4.pmax") && nan.contains("v128.bitselect"), "{nan}");
    let var = wat("entry main (ne: f32) (xs: []f32) : f32 = reduce f32.max ne xs");
    assert!(!var.contains("f32x4.pmax") && var.contains("v128.bitselect"), "{var}");
}

/// The longest chain of dependent f32 `add`/`sub`/`mul`s in the straight-line function `name`
/// of `wat` (which takes one parameter): a latency bound of its result.
fn f32_chain(wat: &str, name: &str) -> usize {
    let start = wat.find(&format!("(func ${name} ")).unwrap();
    let body = &wat[start..];
    let body = &body[..body[1..].find("(func ").map_or(body.len(), |e| e + 1)];
    let mut locals: HashMap<u32, usize> = HashMap::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut longest = 0;
    for line in body.lines().skip(2).map(str::trim) {
        let mut words = line.split_whitespace();
        let (Some(op), arg) = (words.next(), words.next()) else { continue };
        let local = || arg.unwrap().parse::<u32>().unwrap();
        match op {
            "local.get" => stack.push(*locals.get(&local()).unwrap_or(&0)),
            "local.set" => _ = locals.insert(local(), stack.pop().unwrap()),
            "local.tee" => _ = locals.insert(local(), *stack.last().unwrap()),
            _ if op.ends_with(".const") => stack.push(0),
            _ if op.contains("reinterpret") || op.contains("convert") => {}
            "f32.add" | "f32.sub" | "f32.mul" => {
                let (a, b) = (stack.pop().unwrap(), stack.pop().unwrap());
                stack.push(a.max(b) + 1);
            }
            _ if op.starts_with("f32.") || op.starts_with("i32.") => {
                let (a, b) = (stack.pop().unwrap(), stack.pop().unwrap());
                stack.push(a.max(b));
            }
            _ => {}
        }
        longest = longest.max(stack.last().copied().unwrap_or(0));
    }
    longest
}

/// `f32.exp` evaluates its polynomial by Estrin's scheme (coefficient pairs, r² and r⁴ formed
/// independently), not Horner's rule: the vector loops of softmax waited on that chain. The
/// scalar helper runs the same operations as the vector code, one lane wide.
#[test]
fn exp_has_a_short_chain_of_dependent_operations() {
    let wat = to_wat(&module("entry main (x: f32) : f32 = f32.exp x").unwrap().bytes).unwrap();
    // The reduction 6 (·log2 e, ± 1.5·2^23, ·ln2_hi, x −, − k·ln2_lo), the polynomial 5 (r²,
    // a pair, ·r², two adds), then ·r², + r, + 1 and the two scalings: 16. Horner's rule: 21.
    assert_eq!(f32_chain(&wat, "exp_f32"), 16, "{wat}");
}

/// Vector constants come from the pool at `CONST_POOL` (one load where V8 would build each
/// `v128.const` in three instructions), each stored once; zero stays an immediate.
#[test]
fn vector_constants_are_loaded_from_the_pool() {
    let src = "entry main (xs: []f32) : []f32 = map (\\x -> x * 3 + 1 + x * 3 + 0) xs";
    let wat = to_wat(&module(src).unwrap().bytes).unwrap();
    let three = format!("v128.load offset={CONST_POOL}");
    let one = format!("v128.load offset={}", CONST_POOL + 16);
    // Three vector steps: two in the unrolled loop, one in the loop after it.
    assert_eq!(wat.matches(&three).count(), 6, "{wat}");
    assert_eq!(wat.matches(&one).count(), 3, "{wat}");
    assert!(wat.contains(&format!("(data (;0;) (i32.const {CONST_POOL})")), "{wat}");
    assert!(wat.contains("v128.const i32x4 0x00000000"), "{wat}");
}
