//! `ogham show STAGE FILE`: print one stage of the pipeline.

use std::path::PathBuf;
use std::process::ExitCode;

use ogham::diag::render_all;
use ogham::driver::{self, Stage};
use ogham::ir::AdMode;

#[derive(clap::Args)]
pub struct Args {
    /// The stage: parse, types, elab, ir, ad, opt, wgsl or wat.
    stage: String,
    /// The program.
    file: PathBuf,
    /// Only this entry point and what it calls (for `ad` and `opt`).
    #[arg(short = 'e', long = "entry")]
    entry: Option<String>,
    /// Type-check without AUTOMAP (every map and rep must be explicit).
    #[arg(long)]
    no_automap: bool,
    /// For `ad` and `opt`: the reverse-mode derivative (vjp) of each entry point, or of `-e ENTRY`, with
    /// respect to all of its parameters.
    #[arg(long, conflicts_with = "jvp")]
    vjp: bool,
    /// For `ad` and `opt`: the forward-mode derivative (jvp) of each entry point, or of `-e ENTRY`.
    #[arg(long)]
    jvp: bool,
    /// From `ir` on: compute every `f64` as `f32`, as WebGPU needs (its types, operations and
    /// constants).
    #[arg(long)]
    f64_as_f32: bool,
}

pub fn main(args: &Args) -> ExitCode {
    let Some(stage) = Stage::from_name(&args.stage) else {
        let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
        eprintln!("ogham: unknown stage `{}` (stages: {})", args.stage, names.join(", "));
        return ExitCode::FAILURE;
    };
    let name = args.file.display().to_string();
    let src = match crate::source::read(&args.file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("ogham: {msg}");
            return ExitCode::FAILURE;
        }
    };
    if (args.vjp || args.jvp) && !matches!(stage, Stage::Ad | Stage::Opt) {
        eprintln!("ogham: --vjp and --jvp apply to `show ad` and `show opt` only");
        return ExitCode::FAILURE;
    }
    let derivative = match (args.vjp, args.jvp) {
        (true, _) => Some(AdMode::Vjp),
        (_, true) => Some(AdMode::Jvp),
        _ => None,
    };
    let opts = driver::ShowOptions {
        automap: !args.no_automap,
        entry: args.entry.clone(),
        derivative,
        f64_as_f32: args.f64_as_f32,
    };
    let shown = driver::show_with(stage, &src, &opts);
    match shown {
        Ok(text) => {
            crate::print_out(&text);
            ExitCode::SUCCESS
        }
        Err(diags) => {
            eprint!("{}", render_all(&diags, &name, &src));
            ExitCode::FAILURE
        }
    }
}
