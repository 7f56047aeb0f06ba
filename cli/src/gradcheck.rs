//! `ogham gradcheck FILE -e ENTRY`: compare the entry point's jvp and vjp with central finite
//! differences (f64) at random inputs (or at inputs read from stdin with `--stdin`), print the
//! errors, and fail if the worst exceeds the tolerance.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use ogham::ad::gradcheck::gradcheck;
use ogham::value::text::{format_value, parse_values};

#[derive(clap::Args)]
pub struct Args {
    /// The program.
    file: PathBuf,
    /// The entry point to check.
    #[arg(short, long, default_value = "main")]
    entry: String,
    /// Read the inputs from stdin instead of generating random ones.
    #[arg(long)]
    stdin: bool,
    /// Every dimension of the random inputs.
    #[arg(long, default_value_t = 3)]
    size: i64,
    /// Seed of the random inputs and directions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The largest relative error accepted.
    #[arg(long, default_value_t = 1e-5)]
    tolerance: f64,
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
    let inputs = if args.stdin {
        let mut input = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut input) {
            eprintln!("ogham: cannot read the inputs from stdin: {e}");
            return ExitCode::FAILURE;
        }
        match parse_values(&input) {
            Ok(v) => Some(v),
            Err(d) => {
                eprint!("{}", d.render("<stdin>", &input));
                return ExitCode::FAILURE;
            }
        }
    } else {
        None
    };
    match gradcheck(&src, &args.entry, inputs, args.size, args.seed) {
        Ok(r) => {
            let shown: Vec<String> = r.inputs.iter().map(format_value).collect();
            crate::outln!("inputs: {}", shown.join(" "));
            crate::outln!("jvp vs finite differences: {:.3e}", r.jvp_error);
            crate::outln!("vjp vs finite differences: {:.3e}", r.vjp_error);
            crate::outln!("jvp vs vjp:                {:.3e}", r.modes_error);
            let worst = r.worst();
            if worst <= args.tolerance {
                crate::outln!("ok: worst relative error {worst:.3e} <= {:.1e}", args.tolerance);
                ExitCode::SUCCESS
            } else if worst.is_nan() {
                // Finite results with a derivative that is not (`f64.sqrt` at 0): no
                // comparison is possible at these inputs.
                crate::outln!(
                    "FAILED: the derivatives or their finite differences are not finite at \
                     these inputs (as `sqrt`'s derivative at 0); try other inputs (`--stdin`) \
                     or another `--seed`"
                );
                ExitCode::FAILURE
            } else {
                crate::outln!("FAILED: worst relative error {worst:.3e} > {:.1e}", args.tolerance);
                ExitCode::FAILURE
            }
        }
        Err(diags) => {
            for d in &diags {
                eprint!("{}", ogham::driver::render_diagnostic(d, &name, &src));
            }
            ExitCode::FAILURE
        }
    }
}
