//! Running a program's test blocks on a [`Backend`] and judging each case. Pure: the caller reads
//! files and prints the [`FileReport`]; any compiler or executor can be the backend.

use super::compare::{abbreviate, compare_values, render_mismatches, DEFAULT_TOLERANCE};
use super::random::{generate, Rng};
use super::{disabling_tag, parse_tests, CaseKind, Expected, ExpectedError, Input, TestCase};
use crate::diag::{render_all, Diagnostic};
use crate::value::Value;

/// Something that compiles a program once and runs its entry points.
pub trait Backend {
    type Program;
    fn compile(&mut self, src: &str) -> Result<Self::Program, Vec<Diagnostic>>;
    fn run(
        &mut self,
        prog: &Self::Program,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic>;
}

/// The tag of a case (or block, or file) whose verdict depends on `f64` precision (a difference
/// below 1e-12): skipped when `f64` is computed as `f32`.
pub const NEEDS_F64: &str = "needs_f64";

/// Settings of a test run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Base seed for `random input`.
    pub seed: u64,
    /// Relative float tolerance (see [`super::compare`]).
    pub tolerance: f64,
    /// The backend computes `f64` as `f32` (`--f64-as-f32`): `f64` inputs and expected values
    /// are rounded to `f32` before they are passed and compared.
    pub f64_as_f32: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { seed: 0, tolerance: DEFAULT_TOLERANCE, f64_as_f32: false }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Passed,
    /// What went wrong, one or more lines (a diff, or expected vs actual error); callers indent it.
    Failed(String),
    /// Why the case did not run.
    Skipped(String),
}

/// The verdict on one case for one entry point (or on the file as a whole).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseReport {
    /// 1-based line of the case (of the first diagnostic for a whole-file failure).
    pub line: usize,
    /// The entry point, for run cases.
    pub entry: Option<String>,
    /// What was tested: `case 2`, `case 0 ("name")`, `compile error`, `compilation`, `test blocks`.
    pub what: String,
    pub status: Status,
}

impl CaseReport {
    /// `file:line: entry: case N` (the entry left out when there is none).
    pub fn title(&self, file: &str) -> String {
        match &self.entry {
            Some(e) => format!("{file}:{}: {e}: {}", self.line, self.what),
            None => format!("{file}:{}: {}", self.line, self.what),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileReport {
    pub cases: Vec<CaseReport>,
}

impl FileReport {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.status == Status::Passed).count()
    }

    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| matches!(c.status, Status::Failed(_))).count()
    }

    pub fn skipped(&self) -> usize {
        self.cases.iter().filter(|c| matches!(c.status, Status::Skipped(_))).count()
    }
}

fn indent(text: &str) -> String {
    text.trim_end().lines().map(|l| format!("\n  {l}")).collect()
}

fn first_line(diags: &[Diagnostic], src: &str) -> usize {
    diags.first().map_or(1, |d| d.span.line_col(src).0)
}

/// Run every test of one program. `file` names the program in messages.
pub fn run_file<B: Backend>(file: &str, src: &str, backend: &mut B, opts: &Options) -> FileReport {
    let mut report = FileReport::default();
    let blocks = match parse_tests(src) {
        Ok(b) => b,
        Err(diags) => {
            report.cases.push(CaseReport {
                line: first_line(&diags, src),
                entry: None,
                what: "test blocks".into(),
                status: Status::Failed(format!(
                    "malformed test block:{}",
                    indent(&render_all(&diags, file, src))
                )),
            });
            return report;
        }
    };
    let file_needs_f64 = blocks.first().is_some_and(|b| b.tags.iter().any(|t| t == NEEDS_F64));
    if opts.f64_as_f32 && file_needs_f64 {
        // The whole file needs f64 (it may reinterpret an f64's bits, which does not compile in
        // f32): every case is skipped without compiling it.
        let why =
            format!("the file is tagged `{NEEDS_F64}`, and f64 is computed as f32 (--f64-as-f32)");
        for case in blocks.iter().flat_map(|b| &b.cases) {
            report.cases.push(report_for(case, None, Status::Skipped(why.clone())));
        }
        return report;
    }
    let compiled = backend.compile(src);
    let compile_tests =
        blocks.iter().flat_map(|b| &b.cases).any(|c| matches!(c.kind, CaseKind::CompileError(_)));
    let prog = match compiled {
        Ok(p) => Some(p),
        Err(diags) if !compile_tests => {
            report.cases.push(CaseReport {
                line: first_line(&diags, src),
                entry: None,
                what: "compilation".into(),
                status: Status::Failed(format!(
                    "the program does not compile:{}",
                    indent(&render_all(&diags, file, src))
                )),
            });
            return report;
        }
        Err(diags) => {
            // Judge the compile-error tests on these diagnostics; other cases cannot run.
            let text: Vec<String> = diags.iter().map(|d| error_text(d, src)).collect();
            let text = text.join("\n");
            let one_line = diags.first().map(|d| d.one_line(file, src)).unwrap_or_default();
            for case in blocks.iter().flat_map(|b| &b.cases) {
                let status = match &case.kind {
                    CaseKind::CompileError(e) => judge_error(e, &text, &one_line),
                    CaseKind::Unsupported(why) => Status::Skipped(why.clone()),
                    CaseKind::Run { .. } => Status::Skipped(
                        "the program does not compile (it has a compile-error test)".into(),
                    ),
                };
                report.cases.push(report_for(case, None, status));
            }
            return report;
        }
    };
    let Some(prog) = prog else { return report };
    // No test block, or blocks without cases (Futhark's "this program compiles"): compiling
    // is the test.
    if blocks.iter().all(|b| b.cases.is_empty()) {
        report.cases.push(CaseReport {
            line: 1,
            entry: None,
            what: "compilation".into(),
            status: Status::Passed,
        });
        return report;
    }
    let file_disabled = blocks.first().and_then(|b| disabling_tag(&b.tags)).map(str::to_string);
    for block in &blocks {
        let disabled =
            file_disabled.clone().or_else(|| disabling_tag(&block.tags).map(str::to_string));
        for case in &block.cases {
            let skip =
                disabled.as_deref().map(|t| format!("disabled by `tags {{ {t} }}`")).or_else(
                    || disabling_tag(&case.tags).map(|t| format!("disabled by the `{t}` tag")),
                );
            let skip = skip.or_else(|| {
                let f64_only = [&blocks[0].tags, &block.tags, &case.tags]
                    .iter()
                    .any(|tags| tags.iter().any(|t| t == NEEDS_F64));
                (opts.f64_as_f32 && f64_only).then(|| {
                    format!("tagged `{NEEDS_F64}`, and f64 is computed as f32 (--f64-as-f32)")
                })
            });
            match (&case.kind, skip) {
                (_, Some(why)) => report.cases.push(report_for(case, None, Status::Skipped(why))),
                (CaseKind::Unsupported(why), None) => {
                    report.cases.push(report_for(case, None, Status::Skipped(why.clone())))
                }
                (CaseKind::CompileError(e), None) => {
                    let status = Status::Failed(format!(
                        "expected a compile error matching: {}\nbut the program compiled",
                        pattern_text(e)
                    ));
                    report.cases.push(report_for(case, None, status));
                }
                (CaseKind::Run { input, expected }, None) => {
                    for entry in &case.entries {
                        let status =
                            run_case(file, src, backend, &prog, case, entry, input, expected, opts);
                        report.cases.push(report_for(case, Some(entry), status));
                    }
                }
            }
        }
    }
    report
}

fn report_for(case: &TestCase, entry: Option<&str>, status: Status) -> CaseReport {
    let what = match (&case.kind, &case.name) {
        (CaseKind::CompileError(_), _) => "compile error".to_string(),
        (_, Some(n)) => format!("case {} (\"{n}\")", case.index),
        (_, None) => format!("case {}", case.index),
    };
    CaseReport { line: case.line, entry: entry.map(str::to_string), what, status }
}

fn pattern_text(e: &ExpectedError) -> String {
    if e.is_any() {
        "(any error)".to_string()
    } else {
        e.pattern.clone()
    }
}

/// What an `error:` regex is matched against: the diagnostic's position, phase, message, labels
/// and hints, but neither the file name nor the quoted source, so that a test cannot pass because
/// its file name or its source happens to contain the expected words.
pub fn error_text(d: &Diagnostic, src: &str) -> String {
    let (line, col) = d.span.line_col(src);
    let mut s = format!("{line}:{col}: {}", d.header());
    for l in std::iter::once(d.label.as_str()).chain(d.secondary.iter().map(|l| l.message.as_str()))
    {
        if !l.is_empty() {
            s.push('\n');
            s.push_str(l);
        }
    }
    for h in &d.hints {
        s.push_str("\nhint: ");
        s.push_str(h);
    }
    // Last, the message as Futhark words errors (`Error: Index [4] out of bounds ...`), so that
    // test blocks written for Futhark's messages match.
    let mut chars = d.message.chars();
    let capital: String =
        chars.next().into_iter().flat_map(char::to_uppercase).chain(chars).collect();
    s.push_str("\nError: ");
    s.push_str(&capital);
    s
}

fn judge_error(e: &ExpectedError, text: &str, one_line: &str) -> Status {
    if e.matches(text) {
        Status::Passed
    } else {
        Status::Failed(format!(
            "expected an error matching: {}\nactual error: {one_line}",
            pattern_text(e)
        ))
    }
}

#[allow(clippy::too_many_arguments)]
fn run_case<B: Backend>(
    file: &str,
    src: &str,
    backend: &mut B,
    prog: &B::Program,
    case: &TestCase,
    entry: &str,
    input: &Input,
    expected: &Expected,
    opts: &Options,
) -> Status {
    let args = match input {
        Input::Values(vs) => vs.clone(),
        Input::Random(spec) => {
            match generate(spec, &mut Rng::for_case(opts.seed, file, case.line, entry)) {
                Ok(vs) => vs,
                Err(msg) => return Status::Failed(msg),
            }
        }
    };
    let demote = |vs: &[Value]| -> Vec<Value> {
        if opts.f64_as_f32 {
            vs.iter().map(Value::f64_as_f32).collect()
        } else {
            vs.to_vec()
        }
    };
    let result = backend.run(prog, entry, &demote(&args));
    match (expected, result) {
        (Expected::Values(want), Ok(got)) => {
            let ms = compare_values(&demote(want), &got, opts.tolerance);
            if ms.is_empty() {
                Status::Passed
            } else {
                Status::Failed(render_mismatches(&ms).trim_end().to_string())
            }
        }
        (Expected::Succeeds, Ok(_)) => Status::Passed,
        (Expected::Error(e), Ok(got)) => {
            let shown: Vec<String> = got.iter().map(|v| abbreviate(v, 80)).collect();
            Status::Failed(format!(
                "expected an error matching: {}\nbut the run succeeded with: {}",
                pattern_text(e),
                shown.join(" ")
            ))
        }
        (Expected::Error(e), Err(d)) => {
            judge_error(e, &error_text(&d, src), &d.one_line(file, src))
        }
        (Expected::Values(_) | Expected::Succeeds, Err(d)) => Status::Failed(format!(
            "the run failed:{}",
            indent(&crate::driver::render_diagnostic(&d, file, src))
        )),
    }
}

#[cfg(test)]
mod tests;
