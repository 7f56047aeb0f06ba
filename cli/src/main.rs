//! `ogham`: run, test and inspect Ogham programs.

mod backend;
mod bench;
mod build;
mod gradcheck;
mod heap;
mod run;
mod serve;
mod show;
mod source;
mod test;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts heap bytes, for the interpreter's peak memory in `ogham bench`.
#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

#[derive(Parser)]
#[command(name = "ogham", version, about = "Run, test and inspect Ogham programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an entry point (interpreter, wasm or GPU); arguments are read from stdin.
    Run(run::Args),
    /// Compile a program to a wasm module and its manifest (OUT.wasm, OUT.json).
    Build(build::Args),
    /// Print a stage of the pipeline for a program.
    Show(show::Args),
    /// Check an entry point's derivatives (jvp and vjp) against finite differences.
    Gradcheck(gradcheck::Args),
    /// Run the test blocks of programs (files, or directories searched for `*.fut`).
    Test(test::Args),
    /// Time entry points on the inputs of their test blocks (with `--ad`, also their derivatives).
    Bench(bench::Args),
    /// Serve the built playground (www/dist) on localhost.
    Serve(serve::Args),
}

/// `println!` through [`print_out`]: a closed pipe on stdout ends the output, not the program.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::print_out(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// Write `text` to stdout. A reader that stopped reading (`ogham show wgsl f | head`) is not an
/// error; `print!` would panic there.
pub fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("ogham: cannot write the output: {e}");
        }
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run(args) => run::main(&args),
        Command::Build(args) => build::main(&args),
        Command::Show(args) => show::main(&args),
        Command::Test(args) => test::main(&args),
        Command::Bench(args) => bench::main(&args),
        Command::Gradcheck(args) => gradcheck::main(&args),
        Command::Serve(args) => serve::main(&args),
    }
}
