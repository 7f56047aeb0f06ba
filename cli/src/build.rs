//! `ogham build FILE -o OUT`: compile a program with the wasm backend and write the module
//! (`OUT.wasm`) and its manifest (`OUT.json`, the ABI that `runtime/js/ogham.mjs` reads), so that
//! hosts such as Node or a browser page run it without the compiler.

use std::path::PathBuf;
use std::process::ExitCode;

use ogham::diag::render_all;
use ogham::driver;

#[derive(clap::Args)]
pub struct Args {
    /// The program.
    file: PathBuf,
    /// Output path without extension: writes OUT.wasm and OUT.json.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Emit scalar code only (no SIMD128 instructions), e.g. to measure what SIMD gains.
    #[arg(long = "no-simd")]
    no_simd: bool,
    /// Run outermost maps on every core: the module then imports a shared memory, which needs
    /// a host with wasm threads (Node, or a cross-origin-isolated page).
    #[arg(long)]
    threads: bool,
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
    let opts = ogham::backend::wasm::Options { simd: !args.no_simd, threads: args.threads };
    let module = driver::compile(&src).and_then(|c| ogham::backend::wasm::compile(&c.ir, &opts));
    let module = match module {
        Ok(m) => m,
        Err(diags) => {
            eprint!("{}", render_all(&diags, &name, &src));
            return ExitCode::FAILURE;
        }
    };
    let wasm = args.out.with_extension("wasm");
    let json = args.out.with_extension("json");
    let written = std::fs::write(&wasm, &module.bytes)
        .and_then(|()| std::fs::write(&json, module.manifest.to_json()));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ogham: cannot write {}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}
