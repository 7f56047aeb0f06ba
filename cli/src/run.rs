//! `ogham run FILE [-e ENTRY]`: compile, read the arguments from stdin in Futhark's value format,
//! run the entry point on the reference interpreter and print each result on its own line.

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
    /// Type-check without AUTOMAP (every map and rep must be explicit).
    #[arg(long)]
    no_automap: bool,
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
    let compiled = match driver::compile_with(&src, !args.no_automap) {
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
        Ok(v) => v,
        Err(d) => {
            eprint!("{}", d.render("<stdin>", &input));
            return ExitCode::FAILURE;
        }
    };
    match driver::run_interp(&compiled, &args.entry, &values) {
        Ok(results) => {
            for v in &results {
                println!("{}", format_value(v));
            }
            ExitCode::SUCCESS
        }
        Err(d) => {
            eprint!("{}", driver::render_diagnostic(&d, &name, &src));
            ExitCode::FAILURE
        }
    }
}
