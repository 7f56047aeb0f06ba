//! `ogham run`, `show` and `test` end to end: the built binary on small programs.

mod common;

use common::{ogham, scratch, write};

const SUM: &str = "\
-- Sums.
-- ==
-- input { [1, 2, 3] } output { 6 }
-- input { empty([0]i32) } output { 0 }
entry main (xs: []i32) : i32 = reduce (+) 0 xs

entry get (xs: []i32) (i: i64) : i32 = xs[i]

entry both (x: i32) : (i32, f32) = (x + 1, f32.i32 x * 0.5)

entry grid (n: i64) : [][]i64 = map (\\i -> map (\\j -> i * n + j) (iota n)) (iota n)

entry nothing : i32 = 42
";

#[test]
fn run_prints_each_result_in_the_value_format() {
    let dir = scratch("run");
    write(&dir, "sum.fut", SUM);
    let out = ogham(&dir, &["run", "sum.fut"], "[1, 2, 3]\n");
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "6i32\n", ""));
    let out = ogham(&dir, &["run", "sum.fut", "-e", "both"], "4");
    assert_eq!(out.stdout, "5i32\n2.0f32\n", "{}", out.stderr);
    let out = ogham(&dir, &["run", "sum.fut", "--entry", "grid"], "2i64");
    assert_eq!(out.stdout, "[[0i64, 1i64],\n [2i64, 3i64]]\n", "{}", out.stderr);
    let out = ogham(&dir, &["run", "sum.fut", "-e", "grid"], "0i64");
    assert_eq!(out.stdout, "empty([0][0]i64)\n", "{}", out.stderr);
    let out = ogham(&dir, &["run", "sum.fut", "-e", "get"], "-- a comment\n[10, 20, 30]\n1i64");
    assert_eq!(out.stdout, "20i32\n", "{}", out.stderr);
    let out = ogham(&dir, &["run", "sum.fut", "-e", "nothing"], "");
    assert_eq!(out.stdout, "42i32\n", "{}", out.stderr);
}

#[test]
fn run_errors_go_to_stderr_with_status_1() {
    let dir = scratch("run-errors");
    write(&dir, "sum.fut", SUM);
    // Unreadable arguments point into the input.
    let out = ogham(&dir, &["run", "sum.fut"], "[1, 2");
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("expected `,` or `]`, found end of input"), "{}", out.stderr);
    assert!(out.stderr.contains("<stdin>:1:6"), "{}", out.stderr);
    // Run-time errors point into the program.
    let out = ogham(&dir, &["run", "sum.fut", "-e", "get"], "[1, 2, 3] 5i64");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("out of bounds for array of shape [3]"), "{}", out.stderr);
    assert!(out.stderr.contains("sum.fut:7:"), "{}", out.stderr);
    // Unknown entry points name the known ones.
    let out = ogham(&dir, &["run", "sum.fut", "-e", "nope"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("unknown entry point `nope`"), "{}", out.stderr);
    assert!(out.stderr.contains("`main`"), "{}", out.stderr);
    // Arguments of the wrong type.
    let out = ogham(&dir, &["run", "sum.fut"], "[1.5, 2.5]");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("value error"), "{}", out.stderr);
}

#[test]
fn compile_errors_print_every_diagnostic() {
    let dir = scratch("compile-errors");
    write(&dir, "bad.fut", "def f (x: i32) : i32 = x + true\n\ndef g (y: i32) : bool = y\n");
    let out = ogham(&dir, &["run", "bad.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("bad.fut:1:"), "{}", out.stderr);
    assert!(out.stderr.contains("type mismatch"), "{}", out.stderr);
    for stage in ["parse", "types", "ir"] {
        let out = ogham(&dir, &["show", stage, "bad.fut"], "");
        assert_eq!(out.code, if stage == "parse" { 0 } else { 1 }, "{stage}: {}", out.stderr);
    }
}

#[test]
fn show_prints_each_stage() {
    let dir = scratch("show-stages");
    write(&dir, "sum.fut", SUM);
    for stage in ["parse", "types", "ir"] {
        let out = ogham(&dir, &["show", stage, "sum.fut"], "");
        assert_eq!(out.code, 0, "{stage}: {}", out.stderr);
        assert!(out.stdout.contains("main"), "{stage}: {}", out.stdout);
    }
}

const MIXED: &str = "\
-- ==
-- input { 1 } output { 2 }
-- input { 1 } output { 3 }
-- input { [1, 2] } output { 2 }
-- random input { i32 } auto output
-- input @ data/big.in
-- notest input { 1 } output { 2 }
entry main (x: i32) : i32 = x + 1

-- ==
-- entry: scale
-- input { [1f32, 2f32, 3f32] } output { [2f32, 4f32, 6.001f32] }
-- input { [1f32, 2f32, 3f32, 4f32] } output { [2f32, 4f32, 7f32, 9f32] }
-- input { [1f32] } output { [2f32, 3f32] }
entry scale (xs: []f32) : []f32 = map (\\x -> x * 2f32) xs

-- ==
-- entry: get
-- input { [1, 2, 3] 5i64 } error: out of bounds for array of shape \\[3\\]
-- input { [1, 2, 3] 5i64 } error: division by zero
-- input { [1, 2, 3] 1i64 } error: anything
entry get (xs: []i32) (i: i64) : i32 = xs[i]
";

#[test]
fn test_reports_failures_with_diffs_and_a_summary() {
    let dir = scratch("test-mixed");
    write(&dir, "progs/mixed.fut", MIXED);
    write(&dir, "progs/plain.fut", "def main (x: i32) : i32 = x\n");
    write(
        &dir,
        "progs/skip/disabled.fut",
        "-- ==\n-- tags { disable }\n-- input { 1 } output { 5 }\ndef main (x: i32) : i32 = x\n",
    );
    let out = ogham(&dir, &["test", "progs"], "");
    assert_eq!(out.code, 1, "{}", out.stdout);
    let expected_failures = "\
FAIL progs/mixed.fut:3: main: case 1
  result 0: expected 3i32, got 2i32
FAIL progs/mixed.fut:4: main: case 2
";
    assert!(out.stdout.starts_with(expected_failures), "{}", out.stdout);
    for needle in [
        "FAIL progs/mixed.fut:13: scale: case 1\n  result 0: 2 of 4 elements differ (type [4]f32)\n    [2]: expected 7.0f32, got 6.0f32\n    [3]: expected 9.0f32, got 8.0f32\n",
        "FAIL progs/mixed.fut:14: scale: case 2\n  result 0: expected shape [2]f32, got [1]f32\n",
        "FAIL progs/mixed.fut:20: get: case 1\n  expected an error matching: division by zero\n  actual error: progs/mixed.fut:22:",
        "FAIL progs/mixed.fut:21: get: case 2\n  expected an error matching: anything\n  but the run succeeded with: 2i32\n",
    ] {
        assert!(out.stdout.contains(needle), "missing:\n{needle}\nin:\n{}", out.stdout);
    }
    assert!(!out.stdout.contains("PASS"), "{}", out.stdout);
    // mixed: 4 pass (case 0, random, scale 0, get 0), 6 fail, 2 skipped; plain compiles; the
    // disabled file's case is skipped.
    assert!(out.stdout.ends_with("\n5 passed, 6 failed, 3 skipped\n"), "{}", out.stdout);

    let out = ogham(&dir, &["test", "--verbose", "progs/plain.fut", "progs/skip"], "");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        out.stdout,
        "PASS progs/plain.fut:1: compilation\n\
         SKIP progs/skip/disabled.fut:3: case 0: disabled by `tags { disable }`\n\
         1 passed, 0 failed, 1 skipped\n"
    );
}

#[test]
fn test_passes_when_everything_passes() {
    let dir = scratch("test-pass");
    write(&dir, "sum.fut", SUM);
    let out = ogham(&dir, &["test", "sum.fut"], "");
    assert_eq!((out.code, out.stdout.as_str()), (0, "2 passed, 0 failed, 0 skipped\n"));
    let out = ogham(&dir, &["test", "-v", "."], "");
    assert_eq!(
        out.stdout,
        "PASS sum.fut:3: main: case 0\nPASS sum.fut:4: main: case 1\n2 passed, 0 failed, 0 skipped\n"
    );
}

#[test]
fn test_checks_compile_error_tests() {
    let dir = scratch("test-compile-errors");
    write(&dir, "neg.fut", "-- ==\n-- error: unknown variable\ndef main (x: i32) : i32 = y\n");
    write(&dir, "wrong.fut", "-- ==\n-- error: type mismatch\ndef main (x: i32) : i32 = y\n");
    write(&dir, "fine.fut", "-- ==\n-- error: type mismatch\ndef main (x: i32) : i32 = x\n");
    write(&dir, "broken.fut", "-- ==\n-- input { 1 } output { 1 }\ndef main (x: i32) : i32 = y\n");
    let out = ogham(&dir, &["test", "."], "");
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("FAIL broken.fut:3: compilation\n  the program does not compile:\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("FAIL fine.fut:2: compile error\n  expected a compile error matching: type mismatch\n  but the program compiled\n"), "{}", out.stdout);
    assert!(out.stdout.contains("FAIL wrong.fut:2: compile error\n  expected an error matching: type mismatch\n  actual error: wrong.fut:3:"), "{}", out.stdout);
    assert!(out.stdout.ends_with("1 passed, 3 failed, 0 skipped\n"), "{}", out.stdout);
}

/// `gradcheck`: derivatives that agree with finite differences pass; where they are not finite
/// (`sqrt` at 0) it fails and says so instead of printing a NaN error.
#[test]
fn gradcheck_passes_smooth_entries_and_explains_non_finite_derivatives() {
    let dir = scratch("gradcheck");
    write(
        &dir,
        "g.fut",
        "entry main (xs: []f64) : f64 = f64.sqrt (f64.sum (map (\\x -> x * x) xs))\n",
    );
    let out = ogham(&dir, &["gradcheck", "g.fut", "--stdin"], "[3.0, 4.0]");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("ok: worst relative error"), "{}", out.stdout);
    let out = ogham(&dir, &["gradcheck", "g.fut", "--stdin"], "[0.0, 0.0]");
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("are not finite at these inputs"), "{}", out.stdout);
}
