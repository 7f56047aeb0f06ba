//! Every test case of every program in examples/ and tests/programs runs on the interpreter and on
//! wasm, and the two must agree: the same values (floats within the test runner's relative
//! tolerance, `DEFAULT_TOLERANCE`, everything else exactly) or errors with the same message and
//! span. Each file's verdicts must also be the same on both backends.

mod common;

use std::cell::RefCell;

use ogham::diag::Diagnostic;
use ogham::driver::{Compiled, Interp};
use ogham::testspec::compare::{compare_values, render_mismatches, DEFAULT_TOLERANCE};
use ogham::testspec::run::{run_file, Backend, Options, Status};
use ogham::value::Value;
use ogham_runtime::{Loaded, WasmBackend};

/// Runs both backends; answers with the wasm result and records every disagreement.
struct Both {
    wasm: WasmBackend,
    disagreements: Vec<String>,
}

impl Backend for Both {
    type Program = (Option<Compiled>, RefCell<Loaded>);

    fn compile(&mut self, src: &str) -> Result<Self::Program, Vec<Diagnostic>> {
        let w = self.wasm.compile(src)?;
        Ok((Interp::default().compile(src).ok(), w))
    }

    fn run(
        &mut self,
        p: &Self::Program,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        let w = self.wasm.run(&p.1, entry, args);
        let Some(c) = &p.0 else { return w };
        let i = Interp::default().run(c, entry, args);
        match (&i, &w) {
            (Ok(a), Ok(b)) => {
                let ms = compare_values(a, b, DEFAULT_TOLERANCE);
                if !ms.is_empty() {
                    self.disagreements.push(format!("{entry}: {}", render_mismatches(&ms)));
                }
            }
            (Err(a), Err(b)) if a.message == b.message && a.span == b.span => {}
            _ => self.disagreements.push(format!(
                "{entry}: interp {:?} vs wasm {:?}",
                i.as_ref().map_err(|d| &d.message).map(|_| "ok"),
                w.as_ref().map_err(|d| &d.message).map(|_| "ok")
            )),
        }
        w
    }
}

#[test]
fn wasm_agrees_with_the_interpreter_on_the_corpus() {
    let mut both = Both { wasm: WasmBackend::new().unwrap(), disagreements: Vec::new() };
    let opts = Options::default();
    let mut problems = Vec::new();
    let mut cases = 0;
    for f in common::corpus(&["examples", "tests/programs", "tests/ad"]) {
        let name = f.display().to_string();
        let src = std::fs::read_to_string(&f).unwrap();
        both.disagreements.clear();
        let wr = run_file(&name, &src, &mut both, &opts);
        let ir = run_file(&name, &src, &mut Interp::default(), &opts);
        cases += wr.cases.len();
        let verdict = |s: &Status| match s {
            Status::Passed => "passed",
            Status::Failed(_) => "failed",
            Status::Skipped(_) => "skipped",
        };
        let wv: Vec<&str> = wr.cases.iter().map(|c| verdict(&c.status)).collect();
        let iv: Vec<&str> = ir.cases.iter().map(|c| verdict(&c.status)).collect();
        if wv != iv {
            let fails: Vec<String> = wr
                .cases
                .iter()
                .filter_map(|c| match &c.status {
                    Status::Failed(d) => Some(format!("{}\n{d}", c.title(&name))),
                    _ => None,
                })
                .collect();
            problems.push(format!("{name}: verdicts differ\n{}", fails.join("\n")));
        }
        for d in &both.disagreements {
            problems.push(format!("{name}: {d}"));
        }
    }
    assert!(cases > 500, "only {cases} cases found");
    assert!(problems.is_empty(), "{}\n{}", problems.len(), problems.join("\n"));
}

/// Array reductions whose rows a map computes are summed as the rows are computed, in parallel
/// chunks where the map is worth it; the chunks' sums must still be combined in order. With
/// 2x2 matrix products (associative, not commutative), against a sequential loop, for fewer
/// rows than chunks and more.
#[test]
fn summed_rows_are_folded_in_order() {
    let src = "
def mul2 (a: [2][2]i64) (b: [2][2]i64) : [2][2]i64 =
  [[a[0][0] * b[0][0] + a[0][1] * b[1][0], a[0][0] * b[0][1] + a[0][1] * b[1][1]],
   [a[1][0] * b[0][0] + a[1][1] * b[1][0], a[1][0] * b[0][1] + a[1][1] * b[1][1]]]

def step (i: i64) : [2][2]i64 =
  map (\\r -> map (\\c -> (i * 3 + r * 5 + c * 7) % 4 - 1) (iota 2)) (iota 2)

-- ==
-- input { 0i64 } output { true }
-- input { 3i64 } output { true }
-- input { 17i64 } output { true }
-- input { 100i64 } output { true }
entry main (n: i64) : bool =
  let id = [[1i64, 0], [0, 1]]
  let r = reduce mul2 id (map step (iota n))
  let s = loop acc = id for i < n do mul2 acc (step i)
  in and (map2 (\\x y -> and (map2 (==) x y)) r s)
";
    passes_on_both(src, "summed_rows", 4);
}

/// Float rows that an inner map computes, summed by `+`, are added into the sums as they are
/// computed (the sums start at zero); exact in f64 here, against a sequential loop, for no
/// rows, fewer rows than chunks and more, with a second result stored as usual.
#[test]
fn rows_added_as_computed_sum_as_a_loop_does() {
    let src = "
def row (m: i64) (i: i64) : [m]f64 = map (\\j -> f64.i64 ((i * 5 + j * 3) % 7) * 0.5 - 1) (iota m)

-- ==
-- input { 0i64 5i64 } output { true }
-- input { 3i64 5i64 } output { true }
-- input { 100i64 37i64 } output { true }
entry main (n: i64) (m: i64) : bool =
  let (rows, is) =
    unzip (map (\\i -> (map (\\j -> f64.i64 ((i * 5 + j * 3) % 7) * 0.5 - 1) (iota m), f64.i64 i)) (iota n))
  let (read, firsts) =
    unzip (map (\\i -> let r = map (\\j -> f64.i64 ((i * 5 + j * 3) % 7) * 0.5 - 1) (iota m)
                      in (r, r[0] * 2)) (iota n))
  let r = reduce (map2 (+)) (replicate m 0) rows
  let r2 = reduce (map2 (+)) (replicate m 0) read
  let s = loop acc = replicate m 0 for i < n do map2 (+) acc (row m i)
  in and (map2 (==) r s) && and (map2 (==) r2 s)
     && and (map2 (\\f i -> f == (row m i)[0] * 2) firsts (iota n))
     && and (map2 (\\x i -> x == f64.i64 i) is (iota n))
";
    passes_on_both(src, "added_rows", 3);
}

/// Every one of the `cases` cases of `src`'s test block passes on wasm, which agrees with the
/// interpreter on each.
fn passes_on_both(src: &str, name: &str, cases: usize) {
    let mut both = Both { wasm: WasmBackend::new().unwrap(), disagreements: Vec::new() };
    let report = run_file(name, src, &mut both, &Options::default());
    assert_eq!(report.cases.len(), cases);
    for c in &report.cases {
        assert!(matches!(c.status, Status::Passed), "{}", c.title(name));
    }
    assert!(both.disagreements.is_empty(), "{:?}", both.disagreements);
}
