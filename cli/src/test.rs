//! `ogham test PATH...`: run the test blocks of every program found, print each failure with a
//! readable diff (every case with `--verbose`), and close with `N passed, N failed, N skipped`.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ogham::driver::{CompileOptions, Interp};
use ogham::testspec::compare::DEFAULT_TOLERANCE;
use ogham::testspec::markdown;
use ogham::testspec::run::{run_file, Backend, CaseReport, FileReport, Options, Status};

use crate::backend::BackendKind;

#[derive(clap::Args)]
pub struct Args {
    /// Programs, Markdown documents (their `futhark` code blocks are programs), or directories to
    /// search (recursively) for `*.fut` and `*.md` files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// List every case, not only failures.
    #[arg(short, long)]
    verbose: bool,
    /// Seed for `random input` cases.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to run the programs.
    #[arg(long, value_enum, default_value_t)]
    backend: crate::backend::BackendKind,
    /// Type-check without AUTOMAP (every map and rep must be explicit).
    #[arg(long)]
    no_automap: bool,
    /// Compute every `f64` as `f32`, as WebGPU needs: the programs' types, operations and
    /// constants, and the `f64` inputs and expected values (rounded to `f32`; the comparison
    /// keeps its tolerance).
    #[arg(long)]
    f64_as_f32: bool,
}

pub fn main(args: &Args) -> ExitCode {
    let mut files = Vec::new();
    let mut totals = FileReport::default();
    for path in &args.paths {
        let mut found = Vec::new();
        if let Err(msg) = collect(path, &mut found) {
            crate::outln!("FAIL {msg}");
            totals.cases.push(whole_file_failure(msg));
        }
        files.extend(found.into_iter().map(|f| (display_name(path, &f), f)));
    }
    if files.is_empty() && totals.cases.is_empty() {
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        crate::outln!("no .fut or .md files found in {}", paths.join(", "));
    }
    let opts =
        Options { seed: args.seed, tolerance: DEFAULT_TOLERANCE, f64_as_f32: args.f64_as_f32 };
    let compile = CompileOptions { automap: !args.no_automap, f64_as_f32: args.f64_as_f32 };
    // One wasm engine (or GPU device) for the whole run.
    let mut wasm = None;
    let mut gpu = None;
    match args.backend {
        BackendKind::Interp => {}
        BackendKind::Wasm => match ogham_runtime::WasmBackend::new() {
            Ok(mut b) => {
                b.compile = compile;
                wasm = Some(b)
            }
            Err(d) => {
                crate::outln!("FAIL cannot start the wasm runtime: {}", d.message);
                return ExitCode::FAILURE;
            }
        },
        BackendKind::Gpu => match ogham_runtime::gpu::GpuBackend::new() {
            Ok(mut b) => {
                b.compile = compile;
                gpu = Some(b)
            }
            Err(d) => {
                crate::outln!("FAIL cannot start the GPU backend: {}", d.message);
                for h in &d.hints {
                    crate::outln!("  hint: {h}");
                }
                return ExitCode::FAILURE;
            }
        },
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (name, file) in &files {
        let mut report = if let Some(b) = wasm.as_mut() {
            test_file(name, file, &opts, b)
        } else if let Some(b) = gpu.as_mut() {
            test_file(name, file, &opts, b)
        } else {
            test_file(name, file, &opts, &mut Interp { opts: compile })
        };
        if gpu.is_some() {
            skip_gpu_limits(&mut report, &mut reasons);
        }
        print_report(name, &report, args.verbose);
        totals.cases.extend(report.cases);
    }
    if !reasons.is_empty() {
        crate::outln!("skipped on the GPU backend, by reason:");
        let mut by_count: Vec<(&String, &usize)> = reasons.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (why, n) in by_count {
            crate::outln!("  {n:4}  {why}");
        }
    }
    let (passed, failed, skipped) = (totals.passed(), totals.failed(), totals.skipped());
    crate::outln!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 || passed + skipped == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn whole_file_failure(msg: String) -> CaseReport {
    CaseReport { line: 1, entry: None, what: "reading".into(), status: Status::Failed(msg) }
}

/// How a found file is named in the output: relative to `.` when the search started there.
pub(crate) fn display_name(root: &Path, file: &Path) -> String {
    match file.strip_prefix(".") {
        Ok(rest) if root == Path::new(".") => rest.display().to_string(),
        _ => file.display().to_string(),
    }
}

/// Add `path` if it is a file, or the `*.fut` and `*.md` files under it (sorted) if it is a
/// directory.
pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|e| e.ok())
        // Symbolic links to directories are not followed, so a link cycle cannot loop.
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir() || !t.is_symlink()))
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "fut" || x == "md") {
            out.push(p);
        }
    }
    Ok(())
}

fn test_file<B: Backend>(name: &str, path: &Path, opts: &Options, backend: &mut B) -> FileReport {
    let src = match crate::source::read(path) {
        Ok(s) => s,
        Err(msg) => return FileReport { cases: vec![whole_file_failure(msg)] },
    };
    if path.extension().is_some_and(|x| x == "md") {
        return test_markdown(name, &src, opts, backend);
    }
    test_source(name, &src, opts, backend)
}

/// Every program embedded in a Markdown document, each as its own file; case lines are the
/// document's. A block without a test block must compile.
fn test_markdown<B: Backend>(name: &str, md: &str, opts: &Options, backend: &mut B) -> FileReport {
    let mut report = FileReport::default();
    for block in markdown::programs(md) {
        let mut r = test_source(name, &block.source, opts, backend);
        if r.cases.is_empty() {
            r.cases.push(CaseReport {
                line: 1,
                entry: None,
                what: "compiles".into(),
                status: Status::Passed,
            });
        }
        for case in &mut r.cases {
            case.line += block.line - 1;
        }
        report.cases.extend(r.cases);
    }
    report
}

fn test_source<B: Backend>(name: &str, src: &str, opts: &Options, backend: &mut B) -> FileReport {
    // A compiler bug must not stop the whole run: report it against the file and go on.
    catch_unwind(AssertUnwindSafe(|| run_file(name, src, backend, opts))).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        FileReport {
            cases: vec![CaseReport {
                line: 1,
                entry: None,
                what: "internal error".into(),
                status: Status::Failed(format!("the compiler panicked: {msg}")),
            }],
        }
    })
}

fn print_report(name: &str, report: &FileReport, verbose: bool) {
    for case in &report.cases {
        let title = case.title(name);
        match &case.status {
            Status::Passed if verbose => crate::outln!("PASS {title}"),
            Status::Skipped(why) if verbose => crate::outln!("SKIP {title}: {why}"),
            Status::Failed(details) => {
                crate::outln!("FAIL {title}");
                for line in details.lines() {
                    crate::outln!("  {line}");
                }
            }
            _ => {}
        }
    }
}

/// What errors about the GPU backend's limits start with (f64, constructs not handled yet).
pub(crate) const GPU_LIMITS: [&str; 2] =
    ["f64 is not available on WebGPU", "unsupported on the GPU backend"];

/// What the GPU backend does not do (f64, constructs not handled yet) makes a case skipped, with
/// the reason, rather than failed: the counts by reason show the work that remains.
fn skip_gpu_limits(report: &mut FileReport, reasons: &mut BTreeMap<String, usize>) {
    for case in &mut report.cases {
        let Status::Failed(details) = &case.status else { continue };
        let Some(why) = details.lines().find_map(|l| {
            GPU_LIMITS.iter().find_map(|m| l.find(m).map(|k| l[k..].trim().to_string()))
        }) else {
            continue;
        };
        // Numbers vary between programs (values, sizes); group by the words.
        let mut key = String::new();
        let (mut prev, mut in_num) = (' ', false);
        for c in why.chars() {
            if c.is_ascii_digit() && (in_num || !prev.is_ascii_alphanumeric()) {
                if !in_num {
                    key.push('N');
                }
                in_num = true;
                continue;
            }
            in_num = false;
            key.push(c);
            prev = c;
        }
        *reasons.entry(key).or_default() += 1;
        case.status = Status::Skipped(why);
    }
}
