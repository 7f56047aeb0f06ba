//! `ogham show STAGE FILE`: print one stage of the pipeline (`parse`, `types`, `ir`; the later
//! stages say they are not available yet).

use std::path::PathBuf;
use std::process::ExitCode;

use ogham::diag::render_all;
use ogham::driver::{self, Stage};

#[derive(clap::Args)]
pub struct Args {
    /// The stage: parse, types, elab, ir, ad, opt, wgsl or wat.
    stage: String,
    /// The program.
    file: PathBuf,
    /// Only this entry point and what it calls (for `ad`).
    #[arg(short = 'e', long = "entry")]
    entry: Option<String>,
}

pub fn main(args: &Args) -> ExitCode {
    let Some(stage) = Stage::from_name(&args.stage) else {
        let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
        eprintln!("ogham: unknown stage `{}` (stages: {})", args.stage, names.join(", "));
        return ExitCode::FAILURE;
    };
    if !stage.available() && stage != Stage::Wgsl {
        eprintln!("ogham: stage `{}` is not available yet", stage.name());
        return ExitCode::FAILURE;
    }
    let name = args.file.display().to_string();
    let src = match crate::source::read(&args.file) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("ogham: {msg}");
            return ExitCode::FAILURE;
        }
    };
    let shown = match (stage, &args.entry) {
        (Stage::Ad, Some(e)) => driver::show_ad_entry(&src, Some(e)),
        (Stage::Wgsl, _) => driver::compile(&src)
            .and_then(|c| ogham::backend::wgsl::compile(&c.ir))
            .map(|gp| ogham::backend::wgsl::show(&gp)),
        _ => driver::show(stage, &src),
    };
    match shown {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(diags) => {
            eprint!("{}", render_all(&diags, &name, &src));
            ExitCode::FAILURE
        }
    }
}
