//! `ogham run FILE [-e ENTRY]`: compile, read the arguments from stdin in Futhark's value format,
//! run the entry point (on the reference interpreter, or compiled to wasm with `--backend wasm`)
//! and print each result on its own line.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use ogham::diag::render_all;
use ogham::driver;
use ogham::value::text::{format_value, parse_values};

#[derive(clap::Args)]
pub struct Args {
    /// The program.
    file: PathBuf,
    /// The entry point to run.
    #[arg(short, long, default_value = "main")]
    entry: String,
    /// Where to run it.
    #[arg(long, value_enum, default_value_t)]
    backend: crate::backend::BackendKind,
    /// Type-check without AUTOMAP (every map and rep must be explicit).
    #[arg(long)]
    no_automap: bool,
    /// Compute every `f64` as `f32`, as WebGPU needs: the program's types, operations and
    /// constants, and the `f64` values passed in (rounded to `f32`).
    #[arg(long)]
    f64_as_f32: bool,
}

pub fn main(args: &Args) -> ExitCode {
    let name = args.file.display().to_string();
    let src = match crate::source::read(&args.file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("ogham: {msg}");
            return ExitCode::FAILURE;
        }
    };
    let opts = driver::CompileOptions { automap: !args.no_automap, f64_as_f32: args.f64_as_f32 };
    let compiled = match driver::compile_with(&src, &opts) {
        Ok(c) => c,
        Err(diags) => {
            eprint!("{}", render_all(&diags, &name, &src));
            return ExitCode::FAILURE;
        }
    };
    // An entry point without parameters needs no input, so do not wait for stdin.
    let input = if driver::entry_arity(&compiled, &args.entry) == Some(0) {
        String::new()
    } else {
        let mut input = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut input) {
            eprintln!("ogham: cannot read the arguments from stdin: {e}");
            return ExitCode::FAILURE;
        }
        input
    };
    let values = match parse_values(&input) {
        Ok(v) if args.f64_as_f32 => v.iter().map(ogham::value::Value::f64_as_f32).collect(),
        Ok(v) => v,
        Err(d) => {
            eprint!("{}", d.render("<stdin>", &input));
            return ExitCode::FAILURE;
        }
    };
    let run = match args.backend {
        crate::backend::BackendKind::Interp => driver::run_interp(&compiled, &args.entry, &values),
        crate::backend::BackendKind::Wasm => run_wasm(&compiled, &args.entry, &values),
        crate::backend::BackendKind::Gpu => run_gpu(&compiled, &args.entry, &values),
    };
    match run {
        Ok(results) => {
            for v in &results {
                crate::outln!("{}", format_value(v));
            }
            ExitCode::SUCCESS
        }
        Err(d) => {
            eprint!("{}", driver::render_diagnostic(&d, &name, &src));
            ExitCode::FAILURE
        }
    }
}

fn run_wasm(
    compiled: &driver::Compiled,
    entry: &str,
    values: &[ogham::value::Value],
) -> Result<Vec<ogham::value::Value>, ogham::diag::Diagnostic> {
    let opts = ogham::backend::wasm::Options { threads: true, ..Default::default() };
    let m = ogham::backend::wasm::compile(&compiled.ir, &opts).map_err(|mut ds| {
        ds.truncate(1);
        ds.pop().unwrap_or_else(|| {
            ogham::diag::Diagnostic::runtime(ogham::diag::Span::DUMMY, "compilation failed")
        })
    })?;
    let exec = ogham_runtime::Executor::new()?;
    exec.load(&m)?.run(entry, values)
}

fn run_gpu(
    compiled: &driver::Compiled,
    entry: &str,
    values: &[ogham::value::Value],
) -> Result<Vec<ogham::value::Value>, ogham::diag::Diagnostic> {
    let gp = ogham::backend::wgsl::compile(&compiled.ir).map_err(|ds| {
        ds.into_iter().next().unwrap_or_else(|| {
            ogham::diag::Diagnostic::runtime(ogham::diag::Span::DUMMY, "compilation failed")
        })
    })?;
    let mut gpu = ogham_runtime::gpu::Gpu::new()?;
    let loaded = gpu.load(gp)?;
    gpu.run(&loaded, entry, values)
}
