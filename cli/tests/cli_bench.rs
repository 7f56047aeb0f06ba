//! `ogham bench` end to end: the built binary on small programs, on the interpreter and on wasm.

mod common;

use common::{ogham, scratch, write};

const SMALL: &str = "\
-- ==
-- entry: sum
-- input { [1f32, 2, 3] }
-- random input { [1000]f32 }
entry sum (xs: []f32) : f32 = f32.sum (map (\\x -> x * x) xs)

-- ==
-- entry: count
-- input { 3i64 }
-- input { 4i64 } error: never
entry count (n: i64) : i64 = n + 1
";

const RUNTIME_ERROR: &str = "\
-- ==
-- entry: get
-- input { [1, 2, 3] 5i64 }
-- input { [1, 2, 3] 1i64 }
entry get (xs: []i32) (i: i64) : i32 = xs[i]
";

const TYPE_ERROR: &str = "\
-- ==
-- input { 1 }
entry main (x: i32) : i32 = x + true
";

/// The table's rows: the lines between the header line (starting `program`) and the blank line
/// before the summary.
fn rows(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("program"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// A row's cells (split on runs of spaces; inputs hold single spaces between types).
fn cells(row: &str) -> Vec<&str> {
    row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect()
}

fn is_ms(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(|x| x >= 0.0) && s.contains('.')
}

fn is_bytes(s: &str) -> bool {
    let Some((num, unit)) = s.split_once(' ') else { return false };
    num.parse::<f64>().is_ok() && ["B", "KiB", "MiB", "GiB"].contains(&unit)
}

#[test]
fn bench_times_every_input_on_the_interpreter_and_wasm() {
    let dir = scratch("bench");
    write(&dir, "small.fut", SMALL);
    for backend in ["interp", "wasm"] {
        let out = ogham(&dir, &["bench", "--runs", "2", "--backend", backend, "small.fut"], "");
        assert_eq!(out.code, 0, "{backend}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.starts_with(&format!("backend: {backend} (")), "{}", out.stdout);
        assert!(out.stdout.contains("2 timed runs after 1 warm-up run"), "{}", out.stdout);
        assert!(out.stdout.contains("\npeak memory: "), "{}", out.stdout);
        let header = out.stdout.lines().find(|l| l.starts_with("program")).unwrap_or_default();
        assert_eq!(
            cells(header),
            ["program", "entry", "input", "median ms", "min ms", "max ms", "peak memory"]
        );
        let rows = rows(&out.stdout);
        // Three inputs; the case expecting an error is not a benchmark.
        assert_eq!(rows.len(), 3, "{}", out.stdout);
        for (row, (program, entry, input)) in rows.iter().zip([
            ("small.fut:3", "sum", "[3]f32"),
            ("small.fut:4", "sum", "[1000]f32"),
            ("small.fut:9", "count", "3i64"),
        ]) {
            let c = cells(row);
            assert_eq!(c[..3], [program, entry, input], "{row}");
            assert!(c[3..6].iter().all(|x| is_ms(x)), "{row}");
            let (median, min, max): (f64, f64, f64) =
                (c[3].parse().unwrap(), c[4].parse().unwrap(), c[5].parse().unwrap());
            assert!(min <= median && median <= max, "{row}");
            assert!(is_bytes(c[6]), "{row}");
            assert_eq!(c.len(), 7, "{row}");
        }
        assert!(out.stdout.ends_with("\n3 measured, 0 skipped, 0 failed\n"), "{}", out.stdout);
    }
}

#[test]
fn bench_ad_gives_the_ratios_of_the_derivative() {
    let dir = scratch("bench-ad");
    write(&dir, "small.fut", SMALL);
    let out = ogham(&dir, &["bench", "--runs", "2", "--ad", "small.fut"], "");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let rows = rows(&out.stdout);
    assert_eq!(rows.len(), 3, "{}", out.stdout);
    let c = cells(rows[1]);
    assert_eq!(c[..3], ["small.fut:4", "sum", "[1000]f32"]);
    // primal ms, vjp ms, time ratio, primal peak, vjp peak, memory ratio
    assert_eq!(c.len(), 9, "{}", rows[1]);
    assert!(is_ms(c[3]) && is_ms(c[4]) && is_ms(c[5]), "{}", rows[1]);
    assert!(is_bytes(c[6]) && is_bytes(c[7]) && is_ms(c[8]), "{}", rows[1]);
    assert!(rows[2].contains("skipped: not differentiable: no float parameters"), "{}", out.stdout);
    assert!(out.stdout.contains("\n2 measured, 1 skipped, 0 failed\n"), "{}", out.stdout);
    assert!(out.stdout.contains("time ratio at most 4: "), "{}", out.stdout);

    // The same as JSON, on wasm.
    let out = ogham(
        &dir,
        &["bench", "--runs", "2", "--ad", "--json", "--backend", "wasm", "small.fut"],
        "",
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let json = out.stdout.trim();
    assert!(json.starts_with("{\"backend\": \"wasm\", ") && json.ends_with('}'), "{json}");
    assert!(json.contains("\"ad\": true"), "{json}");
    assert_eq!(json.matches("\"time_ratio\": ").count(), 2, "{json}");
    assert_eq!(json.matches("\"memory_ratio\": ").count(), 2, "{json}");
    assert_eq!(json.matches("\"linear_memory_bytes\": ").count(), 4, "{json}");
    assert!(json.contains("\"status\": \"skipped\", \"reason\": \"not differentiable"), "{json}");
    assert!(json.ends_with("\"measured\": 2, \"skipped\": 1, \"failed\": 0}"), "{json}");
}

#[test]
fn bench_reports_failures_per_row_with_status_1() {
    let dir = scratch("bench-errors");
    write(&dir, "small.fut", SMALL);
    write(&dir, "get.fut", RUNTIME_ERROR);
    write(&dir, "wrong.fut", TYPE_ERROR);
    for backend in ["interp", "wasm"] {
        let out = ogham(&dir, &["bench", "--runs", "2", "--backend", backend, "."], "");
        assert_eq!(out.code, 1, "{backend}: {}{}", out.stdout, out.stderr);
        let rows = rows(&out.stdout);
        assert_eq!(rows.len(), 6, "{}", out.stdout);
        // Files in order: get.fut, small.fut, wrong.fut.
        assert!(rows[0].starts_with("get.fut:3"), "{}", out.stdout);
        assert!(
            rows[0].contains(
                "FAILED: 5:40: runtime error: index [5] out of bounds for array of shape [3]"
            ),
            "{}",
            rows[0]
        );
        assert!(!rows[1].contains("FAILED"), "{}", rows[1]);
        assert!(rows[5].starts_with("wrong.fut:3"), "{}", out.stdout);
        assert!(
            rows[5].contains("FAILED: does not compile: 3:33: type error: type mismatch"),
            "{}",
            rows[5]
        );
        assert!(out.stdout.ends_with("\n4 measured, 0 skipped, 2 failed\n"), "{}", out.stdout);
    }
    // Nothing to measure is an error too.
    let out = ogham(&dir, &["bench", "-e", "nope", "small.fut"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no test inputs found for entry point `nope`"), "{}", out.stderr);
}
