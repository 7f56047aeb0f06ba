//! `ogham bench PATH...`: time the entry points of programs on the inputs of their test blocks, as
//! `futhark bench` does. Each program is compiled once for the chosen backend; each input is run
//! `--warmup` times untimed, then `--runs` times timed, then once more to measure peak memory.
//! With `--ad`, each entry point's reverse-mode derivative with respect to all of its parameters
//! (the generated `ENTRY_vjp`, as `ogham show ad --vjp` prints it) is measured the same way on the
//! same inputs, its result adjoints all ones, and the table gives the ratios of both times and
//! both peaks. Failures are rows of the table, never a stop; the exit status is 1 if any row
//! failed.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ogham::diag::{Diagnostic, Span};
use ogham::driver;
use ogham::ir::{self, AdMode};
use ogham::prim::{PrimType, PrimValue};
use ogham::testspec::random::{generate, Rng};
use ogham::testspec::{parse_tests, CaseKind, Expected, Input};
use ogham::value::packed::Packed;
use ogham::value::{ArrayValue, Value};

use crate::backend::BackendKind;

#[derive(clap::Args)]
pub struct Args {
    /// Programs, or directories to search (recursively) for `*.fut` files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only this entry point.
    #[arg(short, long)]
    entry: Option<String>,
    /// Where to run the programs.
    #[arg(long, value_enum, default_value_t)]
    backend: BackendKind,
    /// wasm: run parallel maps on this many threads (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Timed runs per input.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Untimed runs per input before the timed ones.
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Also measure each entry point's reverse-mode derivative (vjp) and report the ratios
    /// time(vjp)/time(primal) and peak(vjp)/peak(primal).
    #[arg(long)]
    ad: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Seed for `random input` cases (as `ogham test --seed`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Type-check without AUTOMAP (every map and rep must be explicit).
    #[arg(long)]
    no_automap: bool,
    /// Compute every `f64` as `f32`, as WebGPU needs: the program's types, operations and
    /// constants, and the `f64` values passed in (rounded to `f32`).
    #[arg(long)]
    f64_as_f32: bool,
    /// GPU: after the table, the device time of each kernel in the last timed run of each row.
    #[arg(long)]
    profile: bool,
}

/// Timing statistics of the runs of one input, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Stats {
    /// The statistics of some run times (at least one); the median of an even number of runs is
    /// the mean of the middle two.
    pub fn of(times: &[Duration]) -> Stats {
        let mut ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let median = match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => ms[n / 2],
            _ => (ms[n / 2 - 1] + ms[n / 2]) / 2.0,
        };
        Stats {
            median,
            min: ms.first().copied().unwrap_or(f64::NAN),
            max: ms.last().copied().unwrap_or(f64::NAN),
            runs: n,
        }
    }
}

/// One input of one entry point, measured.
#[derive(Clone, Debug)]
pub struct Measure {
    pub stats: Stats,
    /// Peak memory in bytes (what it counts depends on the backend: [`memory_note`]).
    pub peak: Option<u64>,
    /// wasm only: the size of the module's linear memory after the run.
    pub linear_memory: Option<u64>,
    /// GPU only, where the device has timestamp queries: the device time of each run's
    /// kernels, summed ([`ogham_runtime::gpu::Gpu::kernel_time`]).
    pub kernels: Option<Stats>,
    /// Bytes of the arguments and results, for the throughput of [`Measure::kernels`].
    pub bytes: u64,
    /// GPU, where kernels are timed: each kernel of the last timed run, with its launches and
    /// milliseconds.
    pub profile: Vec<(String, u32, f64)>,
}

#[derive(Clone, Debug)]
pub enum Outcome {
    Timed(Measure),
    Ad { primal: Measure, vjp: Measure },
    Skipped(String),
    Failed(String),
}

/// A line of the report: one entry point on one input (or a whole program that could not be
/// measured).
#[derive(Clone, Debug)]
pub struct Row {
    /// `file:line` of the test case (or of the error).
    pub program: String,
    pub entry: String,
    /// The input's types, or the name of the dataset.
    pub input: String,
    pub outcome: Outcome,
}

/// What "peak memory" means on a backend.
/// What a time covers on each backend.
pub fn time_note(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Wasm => {
            "the module's export call, from arguments already in its memory to results still \
             there"
        }
        BackendKind::Interp => "arguments in and results out included",
        BackendKind::Gpu => {
            "from the arguments' bytes in host memory to the results' bytes: uploads, kernels \
             and read-backs"
        }
    }
}

pub fn memory_note(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Interp => {
            "the most heap bytes allocated at once during one more run, beyond those allocated \
             before it: the interpreter's arrays (the arguments' copies included), its own \
             bookkeeping, and the results converted to values (16 bytes per element)"
        }
        BackendKind::Wasm => {
            "the wasm arena's high-water mark in one more run: bytes from the arena's start to \
             the furthest the call allocated (arguments, results and temporaries; memory a loop \
             iteration frees is reused; each extra thread's chunk counts whole, at least 256 KiB)"
        }
        BackendKind::Gpu => {
            "the most bytes of GPU storage buffers holding arrays alive at once during one more \
             run (arguments, intermediate arrays, results; not the uniform buffers of scalar \
             arguments, the error record or read-back staging buffers)"
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Running programs on a backend.

/// An executor, started once for the whole run.
enum Engine {
    Interp,
    /// With the number of threads it runs parallel maps on.
    Wasm(ogham_runtime::Executor, usize),
    Gpu(ogham_runtime::gpu::Gpu),
}

/// What one run's memory measurement found (see [`Measure`]).
struct Memory {
    peak: Option<u64>,
    linear: Option<u64>,
}

/// A program compiled for an [`Engine`].
enum Prepared {
    Interp(ir::Program),
    Wasm(ogham_runtime::Loaded),
    Gpu(ogham_runtime::gpu::Loaded),
}

fn first(ds: Vec<Diagnostic>) -> Diagnostic {
    ds.into_iter()
        .next()
        .unwrap_or_else(|| Diagnostic::runtime(Span::DUMMY, "compilation failed (no diagnostic)"))
}

impl Engine {
    fn start(kind: BackendKind, threads: Option<u32>) -> Result<Engine, Diagnostic> {
        Ok(match kind {
            BackendKind::Interp => Engine::Interp,
            BackendKind::Wasm => {
                let (exec, n) = match threads {
                    Some(n) => (ogham_runtime::Executor::with_threads(n as usize)?, n as usize),
                    None => {
                        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                        (ogham_runtime::Executor::with_threads(n)?, n)
                    }
                };
                Engine::Wasm(exec, n)
            }
            BackendKind::Gpu => {
                let gpu = ogham_runtime::gpu::Gpu::new()?;
                // Kernel times are an extra column where the device can measure them.
                let _ = gpu.set_kernel_timing(true);
                Engine::Gpu(gpu)
            }
        })
    }

    fn prepare(&mut self, prog: &ir::Program) -> Result<Prepared, Diagnostic> {
        match self {
            Engine::Interp => Ok(Prepared::Interp(prog.clone())),
            Engine::Wasm(exec, _) => {
                let opts = ogham::backend::wasm::Options { threads: true, ..Default::default() };
                let m = ogham::backend::wasm::compile(prog, &opts).map_err(first)?;
                Ok(Prepared::Wasm(exec.load(&m)?))
            }
            Engine::Gpu(gpu) => {
                let gp = ogham::backend::wgsl::compile(prog).map_err(first)?;
                Ok(Prepared::Gpu(gpu.load(gp)?))
            }
        }
    }

    fn run(
        &mut self,
        prog: &mut Prepared,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        match (self, prog) {
            (Engine::Interp, Prepared::Interp(p)) => ogham::interp::run_entry(p, entry, args),
            (Engine::Wasm(..), Prepared::Wasm(l)) => l.run(entry, args),
            (Engine::Gpu(gpu), Prepared::Gpu(l)) => gpu.run(l, entry, args),
            _ => Err(Diagnostic::runtime(
                Span::DUMMY,
                "internal error: a program of another backend",
            )),
        }
    }

    /// One run, measuring its peak memory.
    fn run_measured(
        &mut self,
        prog: &mut Prepared,
        entry: &str,
        args: &[Value],
    ) -> Result<(Vec<Value>, Memory), Diagnostic> {
        match (self, prog) {
            (Engine::Interp, Prepared::Interp(p)) => {
                let (r, peak) = crate::heap::measure(|| ogham::interp::run_entry(p, entry, args));
                Ok((r?, Memory { peak: Some(peak), linear: None }))
            }
            (Engine::Wasm(..), Prepared::Wasm(l)) => {
                let (r, peak) = l.run_with_peak(entry, args)?;
                Ok((r, Memory { peak, linear: Some(l.memory_bytes()) }))
            }
            (Engine::Gpu(gpu), Prepared::Gpu(l)) => {
                gpu.take_peak_bytes();
                let r = gpu.run(l, entry, args)?;
                Ok((r, Memory { peak: Some(gpu.take_peak_bytes()), linear: None }))
            }
            _ => Err(Diagnostic::runtime(
                Span::DUMMY,
                "internal error: a program of another backend",
            )),
        }
    }

    fn describe(&self) -> String {
        match self {
            Engine::Interp => "interp (the reference interpreter)".into(),
            Engine::Wasm(_, 1) => "wasm (wasmtime, one thread)".into(),
            Engine::Wasm(_, n) => format!("wasm (wasmtime, parallel maps on {n} threads)"),
            Engine::Gpu(g) => format!("gpu (wgpu: {})", g.adapter()),
        }
    }
}

/// Warm up, time the runs, then measure memory in one more run. Returns the last results too.
fn measure(
    engine: &mut Engine,
    prog: &mut Prepared,
    entry: &str,
    args: &[Value],
    settings: &Settings,
) -> Result<(Measure, Vec<Value>), Diagnostic> {
    // A wasm run is timed by its module's export call alone, from arguments already in its
    // memory to results still there: the host's copies and its conversions to and from the CLI's
    // values are the same for any function with these arguments and results, and on large arrays
    // (a gradient's full-size adjoints) they would outweigh the module's work.
    // A GPU run likewise starts from arguments as bytes and ends with results as bytes, so the
    // time is the uploads, the kernels and the read-backs.
    let packed: Vec<Packed> = match prog {
        Prepared::Wasm(_) | Prepared::Gpu(_) => args.iter().map(Packed::from).collect(),
        _ => Vec::new(),
    };
    let timed_run = |engine: &mut Engine, prog: &mut Prepared| match (engine, prog) {
        (_, Prepared::Wasm(l)) => {
            let t = Instant::now();
            l.run_packed(entry, &packed)?;
            Ok::<_, Diagnostic>(l.call_time().min(t.elapsed()))
        }
        (Engine::Gpu(gpu), Prepared::Gpu(l)) => {
            let t = Instant::now();
            gpu.run_packed(l, entry, &packed)?;
            Ok(t.elapsed())
        }
        (engine, prog) => {
            let t = Instant::now();
            engine.run(prog, entry, args)?;
            Ok(t.elapsed())
        }
    };
    for _ in 0..settings.warmup {
        timed_run(engine, prog)?;
    }
    let mut times = Vec::with_capacity(settings.runs as usize);
    let mut kernels = Vec::new();
    let mut profile = Vec::new();
    for _ in 0..settings.runs {
        times.push(timed_run(engine, prog)?);
        if let Engine::Gpu(gpu) = engine {
            kernels.extend(gpu.kernel_time());
            profile = gpu.kernel_profile();
        }
    }
    let profile =
        profile.into_iter().map(|(name, n, t)| (name, n, t.as_secs_f64() * 1e3)).collect();
    let (results, memory) = engine.run_measured(prog, entry, args)?;
    let stats = Stats::of(&times);
    let kernels = (!kernels.is_empty()).then(|| Stats::of(&kernels));
    let bytes = args.iter().chain(&results).map(value_bytes).sum();
    let m =
        Measure { stats, peak: memory.peak, linear_memory: memory.linear, kernels, bytes, profile };
    Ok((m, results))
}

/// The bytes of a value's elements.
fn value_bytes(v: &Value) -> u64 {
    match v {
        Value::Prim(p) => ogham::value::packed::elem_size(p.ty()) as u64,
        Value::Array(a) => (a.data.len() * ogham::value::packed::elem_size(a.elem)) as u64,
    }
}

/// Result adjoints for a vjp: ones shaped like the primal results (zeros for integers, `false`
/// for booleans).
pub fn seeds(results: &[Value]) -> Vec<Value> {
    let one = |t: PrimType| match t {
        PrimType::Float(f) => PrimValue::float(f, 1.0),
        t => PrimValue::zero(t),
    };
    results
        .iter()
        .map(|v| match v {
            Value::Prim(p) => Value::Prim(one(p.ty())),
            Value::Array(a) => {
                let data = vec![one(a.elem); a.data.len()];
                ArrayValue::new(a.elem, a.shape.clone(), data)
                    .map_or_else(|| v.clone(), Value::Array)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Programs and their inputs.

struct Settings {
    runs: u32,
    warmup: u32,
    seed: u64,
    compile: driver::CompileOptions,
    ad: bool,
    entry: Option<String>,
    gpu: bool,
}

/// One input of a test case for one entry point.
struct Case {
    line: usize,
    entry: String,
    name: Option<String>,
    args: Result<Vec<Value>, String>,
}

/// Tags that keep a block or case out of benchmarks (Futhark's `nobench`, and `disable`).
fn no_bench(tags: &[String]) -> bool {
    tags.iter().any(|t| t == "nobench" || t == "disable")
}

/// The inputs of a program's test blocks: run cases that are expected to succeed.
fn cases(name: &str, src: &str, settings: &Settings) -> Result<Vec<Case>, Vec<Diagnostic>> {
    let blocks = parse_tests(src)?;
    let mut out = Vec::new();
    if blocks.first().is_some_and(|b| no_bench(&b.tags)) {
        return Ok(out);
    }
    for block in blocks.iter().filter(|b| !no_bench(&b.tags)) {
        for case in block.cases.iter().filter(|c| !no_bench(&c.tags)) {
            let CaseKind::Run { input, expected } = &case.kind else { continue };
            if matches!(expected, Expected::Error(_)) {
                continue;
            }
            for entry in &case.entries {
                if settings.entry.as_ref().is_some_and(|e| e != entry) {
                    continue;
                }
                let args = match input {
                    Input::Values(vs) => Ok(vs.clone()),
                    Input::Random(spec) => {
                        generate(spec, &mut Rng::for_case(settings.seed, name, case.line, entry))
                    }
                };
                let args = match args {
                    Ok(vs) if settings.compile.f64_as_f32 => {
                        Ok(vs.iter().map(Value::f64_as_f32).collect())
                    }
                    a => a,
                };
                out.push(Case {
                    line: case.line,
                    entry: entry.clone(),
                    name: case.name.clone(),
                    args,
                });
            }
        }
    }
    Ok(out)
}

/// The types of some arguments, for the table (`[100][3]f32 10i64`-style: scalars as values).
fn describe_input(args: &[Value]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|v| match v {
            Value::Prim(p) => ogham::value::text::format_value(&Value::Prim(*p)),
            Value::Array(_) => v.type_string(),
        })
        .collect();
    if parts.is_empty() {
        "()".into()
    } else {
        parts.join(" ")
    }
}

/// A diagnostic on one line: `line:col: phase: message`, the place left out when it is not in
/// the program's text (an unknown entry point, code generated for the derivative).
fn one_line(d: &Diagnostic, src: &str) -> String {
    let inside = d.span != Span::DUMMY && (d.span.start as usize) < src.len();
    let mut s = if inside {
        let (l, c) = d.span.line_col(src);
        format!("{l}:{c}: {}", d.header())
    } else {
        d.header()
    };
    s = s.lines().collect::<Vec<_>>().join(" ");
    s
}

/// Is this a limit of the backend (reported as skipped, as `ogham test` does) rather than a
/// failure? The GPU backend lacks f64 and some constructs; AD some rules (`unsupported:`).
fn limitation(text: &str, gpu: bool) -> bool {
    (gpu && crate::test::GPU_LIMITS.iter().any(|m| text.contains(m)))
        || text.contains("unsupported:")
}

fn failed_or_skipped(text: String, settings: &Settings) -> Outcome {
    if limitation(&text, settings.gpu) {
        Outcome::Skipped(text)
    } else {
        Outcome::Failed(text)
    }
}

/// The derivative of one entry point, compiled, or why there is none.
enum Derivative {
    Ready { name: String, prog: Box<Prepared> },
    Missing(Outcome),
}

fn derivative(
    engine: &mut Engine,
    src: &str,
    compiled: &driver::Compiled,
    entry: &str,
    settings: &Settings,
) -> Derivative {
    let Some(ep) = compiled.ir.entry(entry) else {
        let names = compiled.ir.entries.iter().map(|e| e.name.as_str());
        return Derivative::Missing(Outcome::Failed(ir::unknown_entry(entry, names).header()));
    };
    let float = |t: &ir::EntryType| matches!(t.elem, PrimType::Float(_));
    if !ep.params.iter().any(float) {
        return Derivative::Missing(Outcome::Skipped(
            "not differentiable: no float parameters".into(),
        ));
    }
    if !ep.results.iter().any(float) {
        return Derivative::Missing(Outcome::Skipped(
            "not differentiable: no float results".into(),
        ));
    }
    let ds = match driver::entry_derivatives(
        src,
        &compiled.ir,
        &settings.compile,
        AdMode::Vjp,
        Some(entry),
    ) {
        Ok(ds) => ds,
        Err(e) => return Derivative::Missing(vjp_error(&first(e), src, settings)),
    };
    let Some(d) = ds.into_iter().next() else {
        return Derivative::Missing(Outcome::Failed("no derivative was generated".into()));
    };
    let prog = match d.program {
        Ok(p) => p,
        Err(e) => return Derivative::Missing(vjp_error(&first(e), src, settings)),
    };
    match engine.prepare(&prog) {
        Ok(p) => Derivative::Ready { name: d.name, prog: Box::new(p) },
        Err(e) => Derivative::Missing(vjp_error(&e, src, settings)),
    }
}

fn vjp_error(d: &Diagnostic, src: &str, settings: &Settings) -> Outcome {
    match failed_or_skipped(one_line(d, src), settings) {
        Outcome::Skipped(why) => Outcome::Skipped(format!("vjp: {why}")),
        Outcome::Failed(why) => Outcome::Failed(format!("vjp: {why}")),
        o => o,
    }
}

fn bench_file(engine: &mut Engine, name: &str, path: &Path, settings: &Settings) -> Vec<Row> {
    let whole = |line: usize, outcome: Outcome| Row {
        program: format!("{name}:{line}"),
        entry: "-".into(),
        input: "-".into(),
        outcome,
    };
    let src = match crate::source::read(path) {
        Ok(s) => s,
        Err(msg) => return vec![whole(1, Outcome::Failed(msg))],
    };
    let cases = match cases(name, &src, settings) {
        Ok(c) => c,
        Err(ds) => {
            let d = first(ds);
            let line = d.span.line_col(&src).0;
            return vec![whole(
                line,
                Outcome::Failed(format!("malformed test block: {}", one_line(&d, &src))),
            )];
        }
    };
    if cases.is_empty() {
        // With `-e`, other programs' entry points are simply not asked for.
        return if settings.entry.is_some() {
            Vec::new()
        } else {
            vec![whole(1, Outcome::Skipped("no inputs in its test blocks".into()))]
        };
    }
    let compiled = match driver::compile_with(&src, &settings.compile) {
        Ok(c) => c,
        Err(ds) => {
            let d = first(ds);
            let line = d.span.line_col(&src).0;
            let msg = format!("does not compile: {}", one_line(&d, &src));
            return vec![whole(line, Outcome::Failed(msg))];
        }
    };
    let mut prog = match engine.prepare(&compiled.ir) {
        Ok(p) => p,
        Err(d) => {
            let line = if d.span == Span::DUMMY { 1 } else { d.span.line_col(&src).0 };
            return vec![whole(line, failed_or_skipped(one_line(&d, &src), settings))];
        }
    };
    let mut derivatives: HashMap<String, Derivative> = HashMap::new();
    let mut rows = Vec::new();
    for case in cases {
        let mut row = Row {
            program: format!("{name}:{}", case.line),
            entry: case.entry.clone(),
            input: String::new(),
            outcome: Outcome::Failed(String::new()),
        };
        let args = match case.args {
            Ok(a) => a,
            Err(msg) => {
                row.input = "-".into();
                row.outcome = Outcome::Failed(msg);
                rows.push(row);
                continue;
            }
        };
        row.input = case.name.clone().unwrap_or_else(|| describe_input(&args));
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[K{} {} {}", row.program, row.entry, row.input);
        }
        row.outcome = bench_case(
            engine,
            &mut prog,
            &mut derivatives,
            &src,
            &compiled,
            &case.entry,
            &args,
            settings,
        );
        rows.push(row);
    }
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
    rows
}

#[allow(clippy::too_many_arguments)]
fn bench_case(
    engine: &mut Engine,
    prog: &mut Prepared,
    derivatives: &mut HashMap<String, Derivative>,
    src: &str,
    compiled: &driver::Compiled,
    entry: &str,
    args: &[Value],
    settings: &Settings,
) -> Outcome {
    if !settings.ad {
        return match measure(engine, prog, entry, args, settings) {
            Ok((m, _)) => Outcome::Timed(m),
            Err(d) => failed_or_skipped(one_line(&d, src), settings),
        };
    }
    if !derivatives.contains_key(entry) {
        let d = derivative(engine, src, compiled, entry, settings);
        derivatives.insert(entry.to_string(), d);
    }
    let (vjp_name, vjp_prog) = match derivatives.get_mut(entry) {
        Some(Derivative::Ready { name, prog }) => (name.clone(), prog),
        Some(Derivative::Missing(o)) => return o.clone(),
        None => return Outcome::Failed("internal error: no derivative".into()),
    };
    let (primal, results) = match measure(engine, prog, entry, args, settings) {
        Ok(r) => r,
        Err(d) => return failed_or_skipped(one_line(&d, src), settings),
    };
    let mut vjp_args = args.to_vec();
    vjp_args.extend(seeds(&results));
    drop(results);
    match measure(engine, vjp_prog, &vjp_name, &vjp_args, settings) {
        Ok((vjp, _)) => Outcome::Ad { primal, vjp },
        Err(d) => vjp_error(&d, src, settings),
    }
}

/// The programs under `paths`: files as given, directories searched for `*.fut`.
fn programs(paths: &[PathBuf]) -> (Vec<(String, PathBuf)>, Vec<Row>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push((path.display().to_string(), path.clone()));
            continue;
        }
        let mut found = Vec::new();
        if let Err(msg) = crate::test::collect(path, &mut found) {
            errors.push(Row {
                program: path.display().to_string(),
                entry: "-".into(),
                input: "-".into(),
                outcome: Outcome::Failed(msg),
            });
        }
        for f in found.into_iter().filter(|f| f.extension().is_some_and(|x| x == "fut")) {
            files.push((crate::test::display_name(path, &f), f));
        }
    }
    (files, errors)
}

pub fn main(args: &Args) -> ExitCode {
    let settings = Settings {
        runs: args.runs,
        warmup: args.warmup,
        seed: args.seed,
        compile: driver::CompileOptions { automap: !args.no_automap, f64_as_f32: args.f64_as_f32 },
        ad: args.ad,
        entry: args.entry.clone(),
        gpu: args.backend == BackendKind::Gpu,
    };
    let mut engine = match Engine::start(args.backend, args.threads) {
        Ok(e) => e,
        Err(d) => {
            eprintln!("ogham: cannot start the {:?} backend: {}", args.backend, d.message);
            for h in &d.hints {
                eprintln!("  hint: {h}");
            }
            return ExitCode::FAILURE;
        }
    };
    let (files, mut rows) = programs(&args.paths);
    for (name, path) in &files {
        // A compiler bug must not stop the whole run: report it against the file and go on.
        let r = catch_unwind(AssertUnwindSafe(|| bench_file(&mut engine, name, path, &settings)));
        rows.extend(r.unwrap_or_else(|panic| {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            vec![Row {
                program: format!("{name}:1"),
                entry: "-".into(),
                input: "-".into(),
                outcome: Outcome::Failed(format!("the compiler panicked: {msg}")),
            }]
        }));
    }
    let report = Report {
        backend: args.backend,
        engine: engine.describe(),
        runs: args.runs,
        warmup: args.warmup,
        ad: args.ad,
        rows,
    };
    if report.rows.is_empty() {
        let which =
            args.entry.as_ref().map(|e| format!(" for entry point `{e}`")).unwrap_or_default();
        eprintln!("ogham: nothing to benchmark: no test inputs found{which}");
        return ExitCode::FAILURE;
    }
    if args.json {
        crate::print_out(&report.json());
    } else {
        crate::print_out(&report.text());
        if args.profile {
            crate::print_out(&report.profile());
        }
    }
    if report.rows.iter().any(|r| matches!(r.outcome, Outcome::Failed(_))) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

// ---------------------------------------------------------------------------------------------
// Output.

pub struct Report {
    pub backend: BackendKind,
    /// The backend in words (`wasm (wasmtime, parallel maps on 2 threads)`).
    pub engine: String,
    pub runs: u32,
    pub warmup: u32,
    pub ad: bool,
    pub rows: Vec<Row>,
}

/// Milliseconds, to the microsecond.
pub fn fmt_ms(ms: f64) -> String {
    format!("{ms:.3}")
}

/// Bytes in binary units: `512 B`, `1.5 KiB`, `12.3 MiB`, `1.20 GiB`.
pub fn fmt_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut x = b as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if x >= 100.0 {
        format!("{x:.0} {}", UNITS[unit])
    } else if x >= 10.0 {
        format!("{x:.1} {}", UNITS[unit])
    } else {
        format!("{x:.2} {}", UNITS[unit])
    }
}

fn fmt_opt_bytes(b: Option<u64>) -> String {
    b.map_or_else(|| "-".into(), fmt_bytes)
}

/// `b / a` to two decimals (`-` when it cannot be formed).
/// A rate in GB/s, to three significant digits.
pub fn fmt_rate(gb_s: f64) -> String {
    if !gb_s.is_finite() {
        return "-".into();
    }
    match gb_s {
        r if r >= 100.0 => format!("{r:.0}"),
        r if r >= 10.0 => format!("{r:.1}"),
        r => format!("{r:.2}"),
    }
}

pub fn fmt_ratio(a: f64, b: f64) -> String {
    if a > 0.0 && a.is_finite() && b.is_finite() {
        format!("{:.2}", b / a)
    } else {
        "-".into()
    }
}

/// An aligned table: columns separated by two spaces, `right` columns right-aligned. A row with
/// fewer cells than the header ends with its last cell unpadded (a failure's message spanning
/// the columns to its right).
pub fn table(header: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let width = |s: &str| s.chars().count();
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in rows {
        // A short row's last cell does not widen its column.
        let n = if row.len() < header.len() { row.len().saturating_sub(1) } else { row.len() };
        for (w, cell) in widths.iter_mut().zip(&row[..n]) {
            *w = (*w).max(width(cell));
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let last = i + 1 == row.len();
            let pad = widths.get(i).copied().unwrap_or(0).saturating_sub(width(cell));
            let right_aligned = right.get(i).copied().unwrap_or(false) && row.len() == widths.len();
            if right_aligned {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if !last {
                    line.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

impl Report {
    fn counts(&self) -> (usize, usize, usize) {
        let n = |f: fn(&Outcome) -> bool| self.rows.iter().filter(|r| f(&r.outcome)).count();
        (
            n(|o| matches!(o, Outcome::Timed(_) | Outcome::Ad { .. })),
            n(|o| matches!(o, Outcome::Skipped(_))),
            n(|o| matches!(o, Outcome::Failed(_))),
        )
    }

    /// The table, with a header saying what was measured and a summary line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "backend: {}; {} timed run{} after {} warm-up run{} per input; times in milliseconds \
             per call ({})",
            self.engine,
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.warmup,
            if self.warmup == 1 { "" } else { "s" },
            time_note(self.backend),
        );
        let _ = writeln!(out, "peak memory: {}", memory_note(self.backend));
        if self.ad {
            let _ = writeln!(
                out,
                "vjp: the entry point's reverse-mode derivative with respect to all of its \
                 parameters, result adjoints all ones; ratios are vjp over primal (median times, \
                 peaks)"
            );
        }
        let kernel_times = self.rows.iter().any(|r| match &r.outcome {
            Outcome::Timed(m) => m.kernels.is_some(),
            _ => false,
        });
        if kernel_times {
            let _ = writeln!(
                out,
                "kernels: the device time of a run's kernels alone, summed (timestamp queries; \
                 uploads, read-backs and the host's work between kernels excluded); GB/s: bytes \
                 of the arguments and results over the kernels' median time"
            );
        }
        out.push('\n');
        let status = |o: &Outcome| match o {
            Outcome::Skipped(why) => Some(format!("skipped: {why}")),
            Outcome::Failed(why) => Some(format!("FAILED: {why}")),
            _ => None,
        };
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let mut cells = vec![r.program.clone(), r.entry.clone(), r.input.clone()];
                match &r.outcome {
                    Outcome::Timed(m) => {
                        cells.extend([
                            fmt_ms(m.stats.median),
                            fmt_ms(m.stats.min),
                            fmt_ms(m.stats.max),
                            fmt_opt_bytes(m.peak),
                        ]);
                        if kernel_times {
                            cells.extend(match &m.kernels {
                                Some(k) => [
                                    fmt_ms(k.median),
                                    fmt_ms(k.min),
                                    fmt_rate(m.bytes as f64 / (k.median * 1e6)),
                                ],
                                None => ["-".into(), "-".into(), "-".into()],
                            });
                        }
                    }
                    Outcome::Ad { primal, vjp } => cells.extend([
                        fmt_ms(primal.stats.median),
                        fmt_ms(vjp.stats.median),
                        fmt_ratio(primal.stats.median, vjp.stats.median),
                        fmt_opt_bytes(primal.peak),
                        fmt_opt_bytes(vjp.peak),
                        match (primal.peak, vjp.peak) {
                            (Some(a), Some(b)) => fmt_ratio(a as f64, b as f64),
                            _ => "-".into(),
                        },
                    ]),
                    o => cells.extend(status(o)),
                }
                cells
            })
            .collect();
        if self.ad {
            out.push_str(&table(
                &[
                    "program",
                    "entry",
                    "input",
                    "primal ms",
                    "vjp ms",
                    "time ratio",
                    "primal peak",
                    "vjp peak",
                    "memory ratio",
                ],
                &[false, false, false, true, true, true, true, true, true],
                &rows,
            ));
        } else if kernel_times {
            out.push_str(&table(
                &[
                    "program",
                    "entry",
                    "input",
                    "median ms",
                    "min ms",
                    "max ms",
                    "peak memory",
                    "kernels ms",
                    "kernels min ms",
                    "GB/s",
                ],
                &[false, false, false, true, true, true, true, true, true, true],
                &rows,
            ));
        } else {
            out.push_str(&table(
                &["program", "entry", "input", "median ms", "min ms", "max ms", "peak memory"],
                &[false, false, false, true, true, true, true],
                &rows,
            ));
        }
        let (measured, skipped, failed) = self.counts();
        let _ = writeln!(out, "\n{measured} measured, {skipped} skipped, {failed} failed");
        if self.ad && measured > 0 {
            let (mut time_ok, mut mem_ok, mut no_ratio) = (0, 0, 0);
            for r in &self.rows {
                if let Outcome::Ad { primal, vjp } = &r.outcome {
                    time_ok += usize::from(vjp.stats.median <= 4.0 * primal.stats.median);
                    match (primal.peak, vjp.peak) {
                        // A primal without arrays (a loop over scalars on the GPU's host) has
                        // no memory to compare with.
                        (Some(0), Some(b)) if b > 0 => no_ratio += 1,
                        (Some(a), Some(b)) => mem_ok += usize::from(b <= 3 * a),
                        _ => {}
                    }
                }
            }
            let with_ratio = measured - no_ratio;
            let _ = write!(
                out,
                "time ratio at most 4: {time_ok} of {measured}; memory ratio at most 3: {mem_ok} of {with_ratio}"
            );
            if no_ratio > 0 {
                let _ = write!(out, " ({no_ratio} with no arrays in the primal)");
            }
            out.push('\n');
        }
        out
    }

    /// Each timed row's kernels (GPU): launches and device time in the last timed run.
    pub fn profile(&self) -> String {
        let mut out = String::new();
        for r in &self.rows {
            let Outcome::Timed(m) = &r.outcome else { continue };
            if m.profile.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{} {} {}:", r.program, r.entry, r.input);
            let rows: Vec<Vec<String>> = m
                .profile
                .iter()
                .map(|(name, n, ms)| {
                    vec![name.clone(), n.to_string(), fmt_ms(*ms), fmt_ms(ms / f64::from(*n))]
                })
                .collect();
            out.push_str(&table(
                &["kernel", "launches", "ms", "ms per launch"],
                &[false, true, true, true],
                &rows,
            ));
        }
        out
    }

    /// The report as one JSON object.
    pub fn json(&self) -> String {
        let measure = |m: &Measure| {
            let mut s = format!(
                "{{\"median_ms\": {}, \"min_ms\": {}, \"max_ms\": {}, \"runs\": {}, \"peak_bytes\": {}",
                json_num(m.stats.median),
                json_num(m.stats.min),
                json_num(m.stats.max),
                m.stats.runs,
                m.peak.map_or("null".into(), |b| b.to_string()),
            );
            if let Some(b) = m.linear_memory {
                let _ = write!(s, ", \"linear_memory_bytes\": {b}");
            }
            if let Some(k) = &m.kernels {
                let _ = write!(
                    s,
                    ", \"kernels\": {{\"median_ms\": {}, \"min_ms\": {}, \"max_ms\": {}}}, \
                     \"bytes\": {}",
                    json_num(k.median),
                    json_num(k.min),
                    json_num(k.max),
                    m.bytes
                );
            }
            s.push('}');
            s
        };
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\"backend\": {}, \"engine\": {}, \"runs\": {}, \"warmup\": {}, \"ad\": {}, \
             \"time\": {}, \"peak_memory\": {}, \"rows\": [",
            json_str(match self.backend {
                BackendKind::Interp => "interp",
                BackendKind::Wasm => "wasm",
                BackendKind::Gpu => "gpu",
            }),
            json_str(&self.engine),
            self.runs,
            self.warmup,
            self.ad,
            json_str(time_note(self.backend)),
            json_str(memory_note(self.backend)),
        );
        for (i, r) in self.rows.iter().enumerate() {
            out.push_str(if i == 0 { "\n  " } else { ",\n  " });
            let _ = write!(
                out,
                "{{\"program\": {}, \"entry\": {}, \"input\": {}, ",
                json_str(&r.program),
                json_str(&r.entry),
                json_str(&r.input)
            );
            match &r.outcome {
                Outcome::Timed(m) => {
                    let _ = write!(out, "\"status\": \"ok\", \"time\": {}}}", measure(m));
                }
                Outcome::Ad { primal, vjp } => {
                    let ratio = |a: f64, b: f64| {
                        if a > 0.0 {
                            json_num(b / a)
                        } else {
                            "null".into()
                        }
                    };
                    let mem = match (primal.peak, vjp.peak) {
                        (Some(a), Some(b)) => ratio(a as f64, b as f64),
                        _ => "null".into(),
                    };
                    let _ = write!(
                        out,
                        "\"status\": \"ok\", \"primal\": {}, \"vjp\": {}, \"time_ratio\": {}, \
                         \"memory_ratio\": {}}}",
                        measure(primal),
                        measure(vjp),
                        ratio(primal.stats.median, vjp.stats.median),
                        mem
                    );
                }
                Outcome::Skipped(why) => {
                    let _ = write!(out, "\"status\": \"skipped\", \"reason\": {}}}", json_str(why));
                }
                Outcome::Failed(why) => {
                    let _ = write!(out, "\"status\": \"failed\", \"error\": {}}}", json_str(why));
                }
            }
        }
        let (measured, skipped, failed) = self.counts();
        let _ = writeln!(
            out,
            "\n], \"measured\": {measured}, \"skipped\": {skipped}, \"failed\": {failed}}}"
        );
        out
    }
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(xs: &[u64]) -> Vec<Duration> {
        xs.iter().map(|&x| Duration::from_millis(x)).collect()
    }

    #[test]
    fn statistics_of_run_times() {
        let s = Stats::of(&ms(&[30, 10, 20]));
        assert_eq!(s, Stats { median: 20.0, min: 10.0, max: 30.0, runs: 3 });
        // An even number of runs: the mean of the middle two.
        let s = Stats::of(&ms(&[4, 1, 3, 2]));
        assert_eq!((s.median, s.min, s.max, s.runs), (2.5, 1.0, 4.0, 4));
        let s = Stats::of(&ms(&[7]));
        assert_eq!((s.median, s.min, s.max), (7.0, 7.0, 7.0));
        assert!(Stats::of(&[]).median.is_nan());
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(fmt_ms(1.23456), "1.235");
        assert_eq!(fmt_bytes(0), "0 B");
        assert_eq!(fmt_bytes(1023), "1023 B");
        assert_eq!(fmt_bytes(1536), "1.50 KiB");
        assert_eq!(fmt_bytes(12 << 20 | 300 << 10), "12.3 MiB");
        assert_eq!(fmt_bytes(300 << 20), "300 MiB");
        assert_eq!(fmt_bytes(3 << 30), "3.00 GiB");
        assert_eq!(fmt_ratio(2.0, 5.0), "2.50");
        assert_eq!(fmt_ratio(0.0, 5.0), "-");
        assert_eq!(json_str("a \"b\"\\\n\u{1}"), "\"a \\\"b\\\"\\\\\\n\\u0001\"");
    }

    #[test]
    fn tables_align_their_columns() {
        let rows = vec![
            vec!["a.fut:3".to_string(), "main".into(), "1.500".into()],
            vec!["long/name.fut:12".to_string(), "f".into(), "12.250".into()],
            vec!["b.fut:1".to_string(), "-".into()],
        ];
        let t = table(&["program", "entry", "ms"], &[false, false, true], &rows);
        assert_eq!(
            t,
            "program           entry      ms\n\
             a.fut:3           main    1.500\n\
             long/name.fut:12  f      12.250\n\
             b.fut:1           -\n"
        );
        // A short row's last cell may be longer than its column.
        let rows = vec![
            vec!["x".to_string(), "FAILED: a long message".into()],
            vec!["y".to_string(), "1".into(), "2".into()],
        ];
        let t = table(&["p", "a", "b"], &[false, true, true], &rows);
        assert_eq!(t, "p  a  b\nx  FAILED: a long message\ny  1  2\n");
    }

    #[test]
    fn seeds_are_ones_shaped_like_the_results() {
        let vals = ogham::value::text::parse_values("[[1.5f32, 2], [3, 4]] 7i64 2.5 true").unwrap();
        let s = seeds(&vals);
        let text: Vec<String> = s.iter().map(ogham::value::text::format_value).collect();
        assert_eq!(text, ["[[1.0f32, 1.0f32],\n [1.0f32, 1.0f32]]", "0i64", "1.0f64", "false"]);
    }

    #[test]
    fn inputs_are_described_by_their_types() {
        let vals = ogham::value::text::parse_values("[[1f32, 2], [3, 4]] 7i64").unwrap();
        assert_eq!(describe_input(&vals), "[2][2]f32 7i64");
        assert_eq!(describe_input(&[]), "()");
    }

    #[test]
    fn limits_of_a_backend_are_skips() {
        assert!(limitation("3:1: f64 is not available on WebGPU", true));
        assert!(!limitation("3:1: f64 is not available on WebGPU", false));
        assert!(limitation("4:2: unsupported: reverse mode of scan", false));
        assert!(!limitation("index 5 out of bounds", true));
    }
}
