//! The command line's behaviour that does not depend on the compiler: arguments, files, exit codes.

mod common;

use common::{ogham, scratch, write};

#[test]
fn usage_errors_exit_with_2() {
    let dir = scratch("usage");
    assert_eq!(ogham(&dir, &[], "").code, 2);
    assert_eq!(ogham(&dir, &["test"], "").code, 2);
    assert_eq!(ogham(&dir, &["frobnicate"], "").code, 2);
    let help = ogham(&dir, &["--help"], "");
    assert_eq!(help.code, 0);
    for cmd in ["run", "show", "test"] {
        assert!(help.stdout.contains(cmd), "{}", help.stdout);
    }
}

#[test]
fn show_prints_stages_and_names_unknown_ones() {
    let dir = scratch("show");
    write(&dir, "a.fut", "def main = 1\n");
    let out = ogham(&dir, &["show", "opt", "a.fut"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("fun main"), "{}", out.stdout);
    write(&dir, "e.fut", "entry main (x: i32) : i32 = x + 1\n");
    let out = ogham(&dir, &["show", "wat", "e.fut"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("(export \"entry.main\""), "{}", out.stdout);
    write(&dir, "m.fut", "entry main (xs: []f32) : []f32 = map (+1) xs\n");
    let out = ogham(&dir, &["show", "wgsl", "m.fut"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("@compute"), "{}", out.stdout);
    assert!(out.stdout.contains("host main"), "{}", out.stdout);
    let out = ogham(&dir, &["show", "bogus", "a.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("unknown stage `bogus`"), "{}", out.stderr);
    let out = ogham(&dir, &["show", "parse", "missing.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with("ogham: cannot read missing.fut"), "{}", out.stderr);
}

#[test]
fn show_with_automap_off() {
    let dir = scratch("show_no_automap");
    write(&dir, "v.fut", "entry main (xs: []f32) : []f32 = f32.sqrt xs\n");
    let out = ogham(&dir, &["show", "elab", "v.fut"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("map (\\x0 -> f32.sqrt x0) xs"), "{}", out.stdout);
    // Without AUTOMAP the implicit map is a type error, at every stage that checks types.
    for stage in ["elab", "types", "ir", "wat"] {
        let out = ogham(&dir, &["show", stage, "v.fut", "--no-automap"], "");
        assert_eq!(out.code, 1, "{stage}: {}", out.stdout);
        assert!(out.stderr.contains("type mismatch"), "{stage}: {}", out.stderr);
    }
    let out = ogham(&dir, &["show", "ilp", "v.fut", "--no-automap"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("AUTOMAP is off"), "{}", out.stdout);
    // An explicit program is printed as written.
    write(&dir, "x.fut", "entry main (xs: []f32) : []f32 = map f32.sqrt xs\n");
    let out = ogham(&dir, &["show", "elab", "x.fut", "--no-automap"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("map f32.sqrt xs"), "{}", out.stdout);
}

#[test]
fn run_reports_unreadable_files() {
    let dir = scratch("run-missing");
    let out = ogham(&dir, &["run", "missing.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with("ogham: cannot read missing.fut"), "{}", out.stderr);
    std::fs::write(dir.join("bin.fut"), [0xff, 0xfe, 0x00]).unwrap();
    let out = ogham(&dir, &["run", "bin.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("not UTF-8"), "{}", out.stderr);
}

#[test]
fn test_with_no_programs_fails() {
    let dir = scratch("test-empty");
    write(&dir, "notes.txt", "-- ==\n");
    let out = ogham(&dir, &["test", "."], "");
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "no .fut or .md files found in .\n0 passed, 0 failed, 0 skipped\n");
}

#[test]
fn test_runs_the_programs_of_markdown_documents() {
    let dir = scratch("test-markdown");
    let md = "# Doc\n\n```futhark\n-- ==\n-- input { 2 }\n-- output { 5 }\nentry main (x: i32) : i32 = x + 2\n```\n\n```sh\nls\n```\n\n```futhark\nentry f (x: i32) : i32 = x\n```\n";
    write(&dir, "doc.md", md);
    let out = ogham(&dir, &["test", "."], "");
    assert_eq!(out.code, 1);
    // The failing case is named by its line in the document; the block without tests compiles.
    assert!(out.stdout.contains("FAIL doc.md:5: main: case 0"), "{}", out.stdout);
    assert!(out.stdout.ends_with("1 passed, 1 failed, 0 skipped\n"), "{}", out.stdout);
}

#[test]
fn test_reports_missing_paths_and_malformed_blocks() {
    let dir = scratch("test-missing");
    write(&dir, "bad.fut", "-- ==\n-- input { [1, 2 }\ndef main (xs: []i32) = xs\n");
    let out = ogham(&dir, &["test", "nope", "bad.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("FAIL nope: "), "{}", out.stdout);
    assert!(
        out.stdout.contains("FAIL bad.fut:2: test blocks\n  malformed test block:"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("expected `,` or `]`, found end of input"), "{}", out.stdout);
    assert!(out.stdout.ends_with("0 passed, 2 failed, 0 skipped\n"), "{}", out.stdout);
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = scratch("pipe");
    // Enough maps that the WGSL outgrows a pipe's buffer.
    let maps: String = (0..200).map(|i| format!("  let xs = map (+{i}) xs\n")).collect();
    write(&dir, "big.fut", &format!("entry main (xs: []f32) : []f32 =\n{maps}  in xs\n"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ogham"))
        .args(["show", "wgsl", "big.fut"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is closed here, as `| head` closes it.
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success(), "{status:?}: {err}");
}

/// `--f64-as-f32`: an f64 program computes in f32 on every command, its f64 inputs and expected
/// values rounded; tests that need f64 precision are skipped with the reason; bit
/// reinterpretation is an error at its use.
#[test]
fn f64_as_f32_demotes_programs_and_values() {
    let dir = scratch("f64-as-f32");
    write(
        &dir,
        "norm.fut",
        "-- ==
-- input { [3.0, 4.0] } output { 5.0 }
entry main (xs: []f64) : f64 = f64.sqrt (f64.sum (map (\\x -> x * x) xs))
-- ==
-- tags { needs_f64 }
-- entry: tiny
-- input { 1.0 } output { true }
entry tiny (x: f64) : bool = (x + 1e-12) - x > 0
",
    );
    for backend in ["interp", "wasm"] {
        let out =
            ogham(&dir, &["run", "norm.fut", "--f64-as-f32", "--backend", backend], "[1.0, 2.0]");
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout, "2.236068f32\n", "{backend}");
        let out = ogham(&dir, &["test", "norm.fut", "--f64-as-f32", "--backend", backend], "");
        assert_eq!(out.code, 0, "{}", out.stdout);
        assert!(out.stdout.ends_with("1 passed, 0 failed, 1 skipped\n"), "{}", out.stdout);
    }
    // Without it, the f64 tolerance-free test passes too.
    let out = ogham(&dir, &["test", "norm.fut"], "");
    assert!(out.stdout.ends_with("2 passed, 0 failed, 0 skipped\n"), "{}", out.stdout);
    let out = ogham(&dir, &["show", "ir", "norm.fut", "--f64-as-f32"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("f32.sqrt") && !out.stdout.contains("f64"), "{}", out.stdout);
    write(&dir, "bits.fut", "entry main (x: f64) : u64 =\n  f64.to_bits x\n");
    let out = ogham(&dir, &["run", "bits.fut", "--f64-as-f32"], "1.0");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("`f64.to_bits` cannot be computed in f32"), "{}", out.stderr);
    assert!(out.stderr.contains("bits.fut:2:"), "{}", out.stderr);
}
