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
    assert!(on.contains("f32x4.mul") && on.contains("f32x4.add") && on.contains("v128.bitselect"));
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
    // (vector, scalar), the sum's scalar tail, the division (vector, scalar).
    assert_eq!(wat.matches("loop ;;").count(), 9, "{wat}");
}
