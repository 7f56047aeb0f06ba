use super::*;
use crate::diag::Span;
use crate::prim::PrimValue;

/// A stand-in compiler: a source containing `BROKEN` fails to compile with a type error there;
/// entry points: `id` returns its arguments, `inc` adds one to an `i32`, `boom` fails at run time,
/// `sum` adds the elements of an `f32` array; anything else is unknown.
struct Fake {
    compiles: usize,
    runs: Vec<(String, Vec<Value>)>,
}

impl Fake {
    fn new() -> Fake {
        Fake { compiles: 0, runs: Vec::new() }
    }
}

impl Backend for Fake {
    type Program = ();

    fn compile(&mut self, src: &str) -> Result<(), Vec<Diagnostic>> {
        self.compiles += 1;
        match src.find("BROKEN") {
            Some(i) => Err(vec![Diagnostic::ty(
                Span::new(i, i + 6),
                "type mismatch: expected `i32`, found `bool`",
            )]),
            None => Ok(()),
        }
    }

    fn run(&mut self, _: &(), entry: &str, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        self.runs.push((entry.to_string(), args.to_vec()));
        match (entry, args) {
            ("id", _) => Ok(args.to_vec()),
            ("inc", [Value::Prim(PrimValue::I32(x))]) => {
                Ok(vec![Value::Prim(PrimValue::I32(x + 1))])
            }
            ("sum", [v]) => {
                let s: f32 = v.elems().iter().filter_map(|p| p.as_f64()).map(|x| x as f32).sum();
                Ok(vec![Value::Prim(PrimValue::F32(s))])
            }
            ("boom", _) => Err(Diagnostic::runtime(
                Span::new(0, 3),
                "index 5 out of bounds for array of shape [4]",
            )),
            (e, _) => Err(Diagnostic::runtime(Span::DUMMY, format!("unknown entry point `{e}`"))),
        }
    }
}

fn run(src: &str) -> (FileReport, Fake) {
    let mut fake = Fake::new();
    let r = run_file("t.fut", src, &mut fake, &Options::default());
    (r, fake)
}

/// One line per case: title and status, failures with their details.
fn summary(r: &FileReport) -> String {
    r.cases
        .iter()
        .map(|c| match &c.status {
            Status::Passed => format!("PASS {}\n", c.title("t.fut")),
            Status::Skipped(why) => format!("SKIP {} ({why})\n", c.title("t.fut")),
            Status::Failed(d) => {
                let d: String = d.lines().map(|l| format!("  {l}\n")).collect();
                format!("FAIL {}\n{d}", c.title("t.fut"))
            }
        })
        .collect()
}

#[test]
fn passing_failing_and_skipped_cases() {
    let src = "\
-- ==
-- entry: inc
-- input { 1 } output { 2 }
-- input { 1 } output { 3 }
-- input { 1 } error: bounds
-- input @ data/x.in
-- notest input { 1 } output { 2 }

-- ==
-- entry: boom
-- input { 1 } error: out of bounds for array of shape \\[4\\]
-- input { 1 } error: division by zero
-- input { 1 } error: Error*
-- input { 1 } error: Error: Index 5 out of bounds
-- input { 1 } error:
-- input { 1 } output { 1 }
-- input { 1 }

-- ==
-- entry: id inc
-- compiled input { 7 } output { 8 }
";
    let (r, fake) = run(src);
    assert_eq!(fake.compiles, 1);
    expect_test::expect![[r#"
        PASS t.fut:3: inc: case 0
        FAIL t.fut:4: inc: case 1
          result 0: expected 3i32, got 2i32
        FAIL t.fut:5: inc: case 2
          expected an error matching: bounds
          but the run succeeded with: 2i32
        SKIP t.fut:6: case 3 (input from a file (`input @ data/x.in`) is not supported)
        SKIP t.fut:7: case 4 (disabled by the `notest` tag)
        PASS t.fut:11: boom: case 0
        FAIL t.fut:12: boom: case 1
          expected an error matching: division by zero
          actual error: t.fut:1:1: runtime error: index 5 out of bounds for array of shape [4]
        PASS t.fut:13: boom: case 2
        PASS t.fut:14: boom: case 3
        PASS t.fut:15: boom: case 4
        FAIL t.fut:16: boom: case 5
          the run failed:
            error: runtime error: index 5 out of bounds for array of shape [4]
              ┌─ t.fut:1:1
              │
            1 │ -- ==
              │ ^^^
        FAIL t.fut:17: boom: case 6
          the run failed:
            error: runtime error: index 5 out of bounds for array of shape [4]
              ┌─ t.fut:1:1
              │
            1 │ -- ==
              │ ^^^
        FAIL t.fut:21: id: case 0
          result 0: expected 8i32, got 7i32
        PASS t.fut:21: inc: case 0
    "#]]
    .assert_eq(&summary(&r));
    assert_eq!((r.passed(), r.failed(), r.skipped()), (6, 6, 2));
}

#[test]
fn files_without_blocks_only_compile() {
    let (r, _) = run("def main = 1\n");
    assert_eq!(summary(&r), "PASS t.fut:1: compilation\n");
    // So are files whose blocks have no cases.
    let (r, _) = run("-- ==\n-- tags { slow }\n\ndef main = 1\n");
    assert_eq!(summary(&r), "PASS t.fut:1: compilation\n");
    let (r, _) = run("def main = BROKEN\n");
    assert_eq!(r.failed(), 1);
    let s = summary(&r);
    assert!(s.starts_with("FAIL t.fut:1: compilation\n  the program does not compile:\n"), "{s}");
    assert!(s.contains("type mismatch: expected `i32`, found `bool`"), "{s}");
}

#[test]
fn a_compile_failure_is_one_failure() {
    let (r, fake) = run(
        "-- ==\n-- input { 1 } output { 1 }\n-- input { 2 } output { 2 }\n\ndef main = BROKEN\n",
    );
    assert_eq!((r.passed(), r.failed(), r.skipped()), (0, 1, 0));
    assert_eq!(r.cases[0].line, 5);
    assert!(fake.runs.is_empty());
}

#[test]
fn compile_error_tests() {
    let (r, _) = run("-- ==\n-- error: type mismatch.*found `bool`\n\ndef main = BROKEN\n");
    assert_eq!(summary(&r), "PASS t.fut:2: compile error\n");
    let (r, _) = run("-- ==\n-- error: unknown variable\n\ndef main = BROKEN\n");
    expect_test::expect![[r#"
        FAIL t.fut:2: compile error
          expected an error matching: unknown variable
          actual error: t.fut:4:12: type error: type mismatch: expected `i32`, found `bool`
    "#]]
    .assert_eq(&summary(&r));
    let (r, _) = run("-- ==\n-- error: unknown variable\n\ndef main = 1\n");
    expect_test::expect![[r#"
        FAIL t.fut:2: compile error
          expected a compile error matching: unknown variable
          but the program compiled
    "#]]
    .assert_eq(&summary(&r));
    // The regex sees the position, phase and message, not the file name or the quoted source.
    let (r, _) = run("-- ==\n-- error: ^4:12: type error: type mismatch\n\ndef main = BROKEN\n");
    assert_eq!(r.passed(), 1);
    let (r, _) = run("-- ==\n-- error: t\\.fut\n\ndef main = BROKEN\n");
    assert_eq!(r.failed(), 1);
    let (r, _) = run("-- ==\n-- error: def main\n\ndef main = BROKEN\n");
    assert_eq!(r.failed(), 1);
}

#[test]
fn disabled_files_and_blocks() {
    let src = "-- ==\n-- tags { slow disable }\n-- entry: inc\n-- input { 1 } output { 5 }\n\n-- ==\n-- entry: inc\n-- input { 1 } output { 2 }\n";
    let (r, fake) = run(src);
    assert_eq!((r.passed(), r.failed(), r.skipped()), (0, 0, 2));
    assert!(
        matches!(&r.cases[1].status, Status::Skipped(w) if w == "disabled by `tags { disable }`")
    );
    assert!(fake.runs.is_empty());
    // Tags of a later block disable only that block.
    let src = "-- ==\n-- entry: inc\n-- input { 1 } output { 2 }\n\n-- ==\n-- tags { disable }\n-- entry: inc\n-- input { 1 } output { 5 }\n";
    let (r, _) = run(src);
    assert_eq!((r.passed(), r.failed(), r.skipped()), (1, 0, 1));
}

#[test]
fn files_that_need_f64_are_not_compiled_in_f32() {
    // A file whose first block is tagged `needs_f64` may not even compile when f64 is computed
    // as f32 (it may reinterpret an f64's bits): none of it is compiled then.
    let src =
        "-- ==\n-- tags { needs_f64 }\n-- entry: inc\n-- input { 1 } output { 2 }\n\nBROKEN\n";
    let mut fake = Fake::new();
    let opts = Options { f64_as_f32: true, ..Options::default() };
    let r = run_file("t.fut", src, &mut fake, &opts);
    assert_eq!((r.passed(), r.failed(), r.skipped()), (0, 0, 1));
    assert_eq!(fake.compiles, 0);
    // Without `--f64-as-f32` the file compiles (here: fails to) as any other.
    let (r, fake) = run(src);
    assert_eq!((r.passed(), r.failed(), fake.compiles), (0, 1, 1));
}

#[test]
fn random_inputs_run_and_are_reproducible() {
    let src = "-- ==\n-- entry: id\n-- random input { [10]f32 3i64 } auto output\n-- random input { [4]i32 }\n";
    let (r, fake) = run(src);
    assert_eq!((r.passed(), r.failed()), (2, 0));
    assert_eq!(fake.runs[0].1[0].type_string(), "[10]f32");
    assert_eq!(fake.runs[0].1[1], Value::Prim(PrimValue::I64(3)));
    let (_, again) = run(src);
    assert_eq!(fake.runs, again.runs);
    // A random input can still have an expected output.
    let (r, _) = run("-- ==\n-- entry: id\n-- random input { 3i64 } output { 3i64 }\n");
    assert_eq!(r.passed(), 1);
    let (r, _) = run("-- ==\n-- entry: boom\n-- random input { [3]f32 }\n");
    assert_eq!(r.failed(), 1);
    let (r, _) = run("-- ==\n-- entry: id\n-- random input { [100000][100000]f32 }\n");
    assert!(matches!(&r.cases[0].status, Status::Failed(m) if m.contains("too large")));
}

#[test]
fn float_results_use_the_tolerance() {
    let src = "-- ==\n-- entry: sum\n-- input { [0.1f32, 0.2f32, 0.3f32] } output { 0.6f32 }\n-- input { [1f32, 2, 3] } output { 6.1f32 }\n";
    let (r, _) = run(src);
    assert_eq!((r.passed(), r.failed()), (1, 1));
}

#[test]
fn unknown_entries_fail() {
    let (r, _) = run("-- ==\n-- entry: nope\n-- input { 1 } output { 1 }\n");
    assert!(
        matches!(&r.cases[0].status, Status::Failed(m) if m.contains("unknown entry point `nope`"))
    );
}

#[test]
fn malformed_blocks_fail_the_file() {
    let (r, fake) = run("def main = 1\n-- ==\n-- input { [1, 2] [3 }\n");
    assert_eq!(fake.compiles, 0);
    assert_eq!(r.failed(), 1);
    assert_eq!(r.cases[0].line, 3);
    let s = summary(&r);
    assert!(s.starts_with("FAIL t.fut:3: test blocks\n  malformed test block:\n"), "{s}");
    assert!(s.contains("expected `,` or `]`, found end of input"), "{s}");
}

#[test]
fn named_cases() {
    let (r, _) = run("-- ==\n-- entry: inc\n-- \"one\" input { 1 } output { 2 }\n");
    assert_eq!(r.cases[0].title("t.fut"), "t.fut:3: inc: case 0 (\"one\")");
}
