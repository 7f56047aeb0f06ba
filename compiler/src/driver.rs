//! The pipeline, strung together: what the CLI, the web crate and the tests call.

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::AdMode;
use crate::syntax::ast;
use crate::testspec::run::Backend;
use crate::value::Value;
use crate::{interp, ir, syntax, types};

/// Every stage's output for one program.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub ast: ast::Program,
    pub checked: types::CheckedProgram,
    pub ir: ir::Program,
}

/// What a compilation can vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Type-check with AUTOMAP (off: `--no-automap`, every map and rep must be explicit).
    pub automap: bool,
    /// Compute every `f64` as `f32` (`--f64-as-f32`, for WebGPU; see [`ir::demote`]). The IR is
    /// demoted; the AST and the checked program keep the types as written.
    pub f64_as_f32: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { automap: true, f64_as_f32: false }
    }
}

/// Parse, check and lower a program to the core IR.
pub fn compile(src: &str) -> Result<Compiled, Vec<Diagnostic>> {
    compile_with(src, &CompileOptions::default())
}

/// [`compile`], with options.
pub fn compile_with(src: &str, opts: &CompileOptions) -> Result<Compiled, Vec<Diagnostic>> {
    let ast = syntax::parse(src)?;
    let checked = types::check_with(&ast, opts.automap)?;
    let ir = ir::lower::lower(&checked)?;
    let mut ir = crate::ad::differentiate(&ir).map_err(|d| vec![d])?;
    if opts.f64_as_f32 {
        ir = ir::demote::f64_as_f32(&ir).map_err(|d| vec![d])?;
    }
    Ok(Compiled { ast, checked, ir })
}

/// Run one entry point on the reference interpreter.
pub fn run_interp(
    compiled: &Compiled,
    entry: &str,
    args: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    if compiled.ir.entry(entry).is_none() {
        let names = compiled.ir.entries.iter().map(|e| e.name.as_str());
        return Err(ir::unknown_entry(entry, names));
    }
    interp::run_entry(&compiled.ir, entry, args)
}

/// Random arguments for `entry`, as Futhark values separated by spaces: every array dimension is
/// `size`; floats are uniform in [0, 1), integers in [0, 100) and booleans fair coin flips (as in
/// a test's `random input` block). The same seed gives the same arguments.
pub fn random_args(
    prog: &ir::Program,
    entry: &str,
    size: i64,
    seed: u64,
) -> Result<String, Diagnostic> {
    use crate::testspec::{random, RandomValue};
    let Some(e) = prog.entry(entry) else {
        return Err(unknown_entry(entry));
    };
    if !(0..=1 << 20).contains(&size) {
        return Err(Diagnostic::new(
            Phase::Value,
            Span::DUMMY,
            format!("the size of random arguments must be between 0 and 1048576, not {size}"),
        ));
    }
    let spec: Vec<RandomValue> = e
        .params
        .iter()
        .map(|t| RandomValue::Random { shape: vec![size; t.rank], elem: t.elem })
        .collect();
    let values = random::generate(&spec, &mut random::Rng::new(seed))
        .map_err(|m| Diagnostic::new(Phase::Value, Span::DUMMY, m))?;
    let texts: Vec<String> = values.iter().map(crate::value::text::format_value).collect();
    Ok(texts.join(" "))
}

/// A diagnostic rendered with a source excerpt, or as plain lines when it has no place in the
/// program (a dummy span: an unknown entry point, arguments that do not fit it).
pub fn render_diagnostic(d: &Diagnostic, file: &str, src: &str) -> String {
    if d.span != Span::DUMMY {
        return d.render(file, src);
    }
    let mut s = format!("error: {}\n", d.header());
    for h in &d.hints {
        s.push_str(&format!("  = hint: {h}\n"));
    }
    s
}

/// The number of arguments an entry point takes, if it exists.
pub fn entry_arity(compiled: &Compiled, entry: &str) -> Option<usize> {
    compiled.ir.entry(entry).map(|e| e.params.len())
}

/// A pipeline stage that has a printout (`ogham show <stage>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Parse,
    Types,
    Elab,
    Ir,
    Ad,
    Opt,
    Wgsl,
    Wat,
    Ilp,
}

impl Stage {
    pub const ALL: [Stage; 9] = [
        Stage::Parse,
        Stage::Types,
        Stage::Elab,
        Stage::Ir,
        Stage::Ad,
        Stage::Opt,
        Stage::Wgsl,
        Stage::Wat,
        Stage::Ilp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Types => "types",
            Stage::Elab => "elab",
            Stage::Ir => "ir",
            Stage::Ad => "ad",
            Stage::Opt => "opt",
            Stage::Wgsl => "wgsl",
            Stage::Wat => "wat",
            Stage::Ilp => "ilp",
        }
    }

    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The printout of one stage for a program.
pub fn show(stage: Stage, src: &str) -> Result<String, Vec<Diagnostic>> {
    show_with(stage, src, &ShowOptions::default())
}

/// What `ogham show` can vary besides the stage.
#[derive(Clone, Debug)]
pub struct ShowOptions {
    /// Type-check with AUTOMAP (off: `--no-automap`, every map and rep must be explicit).
    pub automap: bool,
    /// Only this entry point and what it calls (for `ad`).
    pub entry: Option<String>,
    /// For `ad`: instead of the program as written, the derivative of each entry point (or of
    /// `entry`) with respect to all of its parameters, in this mode.
    pub derivative: Option<AdMode>,
    /// From `ir` on: every `f64` computed as `f32` (`--f64-as-f32`).
    pub f64_as_f32: bool,
}

impl Default for ShowOptions {
    fn default() -> Self {
        ShowOptions { automap: true, entry: None, derivative: None, f64_as_f32: false }
    }
}

/// [`show`] with options.
pub fn show_with(stage: Stage, src: &str, opts: &ShowOptions) -> Result<String, Vec<Diagnostic>> {
    let automap = opts.automap;
    let copts = CompileOptions { automap, f64_as_f32: opts.f64_as_f32 };
    match stage {
        Stage::Parse => show_parse(src),
        Stage::Types => {
            let ast = syntax::parse(src)?;
            let checked = types::check_with(&ast, automap)?;
            Ok(types::print::print_checked(&checked))
        }
        Stage::Elab if automap => show_elab(src),
        Stage::Elab => {
            // Nothing is inserted: the program as checked without AUTOMAP.
            let ast = syntax::parse(src)?;
            let checked = types::check_with(&ast, false)?;
            Ok(types::automap::print_elaborated(&checked, &[], src))
        }
        Stage::Ilp if automap => show_ilp(src),
        Stage::Ilp => Ok("AUTOMAP is off (--no-automap): no rank ILP is built\n".to_string()),
        Stage::Ir => {
            let ast = syntax::parse(src)?;
            let checked = types::check_with(&ast, automap)?;
            let mut ir = ir::lower::lower(&checked)?;
            if opts.f64_as_f32 {
                ir = ir::demote::f64_as_f32(&ir).map_err(|d| vec![d])?;
            }
            Ok(ir::print::print_program(&ir))
        }
        Stage::Ad | Stage::Opt => {
            // `opt`: what the backends compile (`opt::for_backends`) instead of AD's output.
            let finish = |p: &ir::Program| match stage {
                Stage::Opt => crate::opt::for_backends(p),
                _ => p.clone(),
            };
            let compiled = compile_with(src, &copts)?;
            if let Some(mode) = opts.derivative {
                let only = opts.entry.as_deref();
                return show_derivatives(src, &compiled.ir, &copts, mode, only, finish);
            }
            let Some(entry) = &opts.entry else {
                return Ok(ir::print::print_program(&finish(&compiled.ir)));
            };
            match crate::ad::restrict_to_entry(&compiled.ir, entry) {
                Some(p) => Ok(ir::print::print_program(&finish(&p))),
                None => Err(vec![unknown_entry(entry)]),
            }
        }
        Stage::Wgsl => {
            let compiled = compile_with(src, &copts)?;
            let gp = crate::backend::wgsl::compile(&compiled.ir)?;
            Ok(crate::backend::wgsl::show(&gp))
        }
        Stage::Wat => {
            let compiled = compile_with(src, &copts)?;
            let m = crate::backend::wasm::compile(&compiled.ir, &Default::default())?;
            crate::backend::wasm::to_wat(&m.bytes).map_err(|e| {
                vec![Diagnostic::new(Phase::Lower, Span::DUMMY, format!("internal error: {e}"))]
            })
        }
    }
}

/// The derivative of one entry point: the program after AD restricted to a generated entry
/// point (`ad::wrap`) that applies `jvp` or `vjp` to it.
#[derive(Clone, Debug)]
pub struct EntryDerivative {
    pub entry: String,
    /// The generated entry point's name.
    pub name: String,
    pub program: Result<ir::Program, Vec<Diagnostic>>,
}

fn unknown_entry(entry: &str) -> Diagnostic {
    Diagnostic::new(Phase::Value, Span::DUMMY, format!("unknown entry point `{entry}`"))
}

/// The `mode` derivative of every entry point of `src` (or only of `only`) with respect to all of
/// its parameters. `base` is `src` compiled; all the generated entry points are checked and
/// differentiated together, in one more compilation of the program (with `opts`).
pub fn entry_derivatives(
    src: &str,
    base: &ir::Program,
    opts: &CompileOptions,
    mode: AdMode,
    only: Option<&str>,
) -> Result<Vec<EntryDerivative>, Vec<Diagnostic>> {
    if let Some(e) = only {
        if base.entry(e).is_none() {
            return Err(vec![unknown_entry(e)]);
        }
    }
    let word = match mode {
        AdMode::Jvp => "jvp",
        AdMode::Vjp => "vjp",
    };
    // The generated entry points are source: they name the types as written, not demoted.
    let written;
    let base = if opts.f64_as_f32 {
        written = compile_with(src, &CompileOptions { f64_as_f32: false, ..*opts })?.ir;
        &written
    } else {
        base
    };
    let mut out = Vec::new();
    let mut wrapped = format!("{src}\n");
    for e in base.entries.iter().filter(|e| only.is_none_or(|o| o == e.name)) {
        let name = crate::ad::wrap::fresh_name(&wrapped, &format!("{}_{word}", e.name));
        let program = match crate::ad::wrap::wrapper_source(e, &name, mode) {
            Ok(text) => {
                wrapped.push('\n');
                wrapped.push_str(&text);
                Ok(ir::Program::default())
            }
            Err(d) => Err(vec![d]),
        };
        out.push(EntryDerivative { entry: e.name.clone(), name, program });
    }
    let compiled = compile_with(&wrapped, opts);
    for d in out.iter_mut().filter(|d| d.program.is_ok()) {
        d.program = match &compiled {
            Ok(c) => crate::ad::restrict_to_entry(&c.ir, &d.name)
                .ok_or_else(|| vec![unknown_entry(&d.name)]),
            Err(ds) => Err(ds.clone()),
        };
    }
    Ok(out)
}

fn show_derivatives(
    src: &str,
    base: &ir::Program,
    opts: &CompileOptions,
    mode: AdMode,
    only: Option<&str>,
    finish: impl Fn(&ir::Program) -> ir::Program,
) -> Result<String, Vec<Diagnostic>> {
    let ds = entry_derivatives(src, base, opts, mode, only)?;
    let word = if mode == AdMode::Jvp { "jvp" } else { "vjp" };
    let mut out = String::new();
    for d in ds {
        match d.program {
            Ok(p) => {
                out.push_str(&format!(
                    "-- {word} of `{}` with respect to all of its parameters\n",
                    d.entry
                ));
                out.push_str(&ir::print::print_program(&finish(&p)));
            }
            Err(e) if only.is_some() => return Err(e),
            Err(e) => {
                let why: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
                out.push_str(&format!("-- {word} of `{}`: {}\n", d.entry, why.join("; ")));
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The parsed program, printed back as source.
pub fn show_parse(src: &str) -> Result<String, Vec<Diagnostic>> {
    let ast = syntax::parse(src)?;
    Ok(syntax::printer::print_program(&ast))
}

/// Every user definition with its inferred type.
pub fn show_types(src: &str) -> Result<String, Vec<Diagnostic>> {
    show_with(Stage::Types, src, &ShowOptions::default())
}

/// Every user definition after AUTOMAP, as source, with each inserted map/rep listed.
pub fn show_elab(src: &str) -> Result<String, Vec<Diagnostic>> {
    let ast = syntax::parse(src)?;
    let (checked, reports) = types::check_automap_report(&ast);
    let checked = checked?;
    Ok(types::automap::print_elaborated(&checked, &reports, src))
}

/// Every user definition's AUTOMAP rank ILP: variables, constraints, objective and solution.
pub fn show_ilp(src: &str) -> Result<String, Vec<Diagnostic>> {
    let ast = syntax::parse(src)?;
    let (_, reports) = types::check_automap_report(&ast);
    Ok(types::automap::print_ilps(&reports))
}

/// The core IR after lowering (`jvp`/`vjp` not yet expanded).
pub fn show_ir(src: &str) -> Result<String, Vec<Diagnostic>> {
    show_with(Stage::Ir, src, &ShowOptions::default())
}

/// The core IR after differentiation and simplification (the derivative code).
pub fn show_ad(src: &str) -> Result<String, Vec<Diagnostic>> {
    show_ad_entry(src, None)
}

/// As [`show_ad`], restricted to one entry point and the functions it calls.
pub fn show_ad_entry(src: &str, entry: Option<&str>) -> Result<String, Vec<Diagnostic>> {
    let opts = ShowOptions { entry: entry.map(str::to_string), ..ShowOptions::default() };
    show_with(Stage::Ad, src, &opts)
}

/// The program compiled to WebAssembly, as text.
pub fn show_wat(src: &str) -> Result<String, Vec<Diagnostic>> {
    show_with(Stage::Wat, src, &ShowOptions::default())
}

/// The reference interpreter as a backend for the test runner.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interp {
    pub opts: CompileOptions,
}

impl Backend for Interp {
    type Program = Compiled;

    fn compile(&mut self, src: &str) -> Result<Compiled, Vec<Diagnostic>> {
        compile_with(src, &self.opts)
    }

    fn run(
        &mut self,
        prog: &Compiled,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        run_interp(prog, entry, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_round_trip() {
        for s in Stage::ALL {
            assert_eq!(Stage::from_name(s.name()), Some(s));
        }
        assert_eq!(Stage::from_name("bogus"), None);
    }

    #[test]
    fn show_parse_prints_source() {
        let text = show_parse("def  main (x:i32) = x+1").unwrap();
        assert!(text.contains("def main (x: i32) = x + 1"), "{text}");
        let e = show_parse("def main = if true else 1").unwrap_err();
        assert!(e[0].message.contains("expected"), "{e:?}");
    }

    #[test]
    fn show_types_prints_inferred_types() {
        let text = show_types("def inc (x: i32) = x + 1").unwrap();
        assert!(text.contains("inc") && text.contains("i32"), "{text}");
        let e = show_types("def f (x: i32) : bool = x").unwrap_err();
        assert!(e[0].message.contains("type mismatch"), "{e:?}");
    }

    #[test]
    fn diagnostics_without_a_place_have_no_excerpt() {
        let d = Diagnostic::new(Phase::Value, Span::DUMMY, "unknown entry point `f`")
            .with_hint("entry points: `main`");
        assert_eq!(
            render_diagnostic(&d, "a.fut", "def main = 1"),
            "error: value error: unknown entry point `f`\n  = hint: entry points: `main`\n"
        );
        let d = Diagnostic::runtime(Span::new(4, 8), "boom");
        assert!(render_diagnostic(&d, "a.fut", "def main = 1").contains("a.fut:1:5"));
    }

    #[test]
    fn show_ir_prints_the_core_ir() {
        let text = show_ir("entry main (x: i32) : i32 = x + 1").unwrap();
        assert!(text.contains("main"), "{text}");
    }

    #[test]
    fn the_interpreter_runs_entry_points() {
        let c = compile("entry main (x: i32) : i32 = x + 1").unwrap();
        let args = crate::value::text::parse_values("41").unwrap();
        assert_eq!(
            run_interp(&c, "main", &args).unwrap(),
            crate::value::text::parse_values("42").unwrap()
        );
        assert_eq!(entry_arity(&c, "main"), Some(1));
        assert_eq!(entry_arity(&c, "nope"), None);
        let e = run_interp(&c, "nope", &args).unwrap_err();
        assert_eq!(e.message, "unknown entry point `nope`");
        assert_eq!(e.hints, vec!["entry points: `main`".to_string()]);
    }

    #[test]
    fn opt_shows_what_the_backends_compile() {
        // The map's call of a small function is inlined; `ad` shows the call.
        let src = "def sq (x: f32) = x * x
                   entry main (xs: []f32) : []f32 = map sq xs";
        let ad = show(Stage::Ad, src).unwrap();
        let opt = show(Stage::Opt, src).unwrap();
        assert!(ad.contains("sq("), "{ad}");
        assert!(!opt.contains("sq(") && opt.contains(" * "), "{opt}");
        let d = ShowOptions { derivative: Some(AdMode::Vjp), ..ShowOptions::default() };
        let vjp = show_with(Stage::Opt, src, &d).unwrap();
        assert!(vjp.contains("-- vjp of `main`") && vjp.contains("fun main_vjp"), "{vjp}");
    }

    #[test]
    fn show_without_automap() {
        let src = "entry main (xs: []f32) : []f32 = f32.sqrt xs";
        let off = ShowOptions { automap: false, ..ShowOptions::default() };
        assert!(show(Stage::Types, src).is_ok());
        let e = show_with(Stage::Types, src, &off).unwrap_err();
        assert!(e[0].message.contains("type mismatch"), "{e:?}");
        let text = show_with(Stage::Ilp, src, &off).unwrap();
        assert!(text.contains("AUTOMAP is off"), "{text}");
        let text =
            show_with(Stage::Wgsl, "entry main (xs: []f32) = map f32.sqrt xs", &off).unwrap();
        assert!(text.contains("@compute"), "{text}");
    }

    #[test]
    fn random_arguments_fit_the_entry_point() {
        let src = "entry f (xss: [][]f32) (k: i64) (b: bool) : f32 = if b then xss[0, 0] else f32.i64 k\n";
        let c = compile(src).unwrap();
        let text = random_args(&c.ir, "f", 3, 1).unwrap();
        assert_eq!(text, random_args(&c.ir, "f", 3, 1).unwrap(), "reproducible");
        assert_ne!(text, random_args(&c.ir, "f", 3, 2).unwrap());
        let args = crate::value::text::parse_values(&text).unwrap();
        assert_eq!(args.len(), 3);
        assert_eq!(
            crate::value::text::format_type(args[0].shape(), args[0].elem_type()),
            "[3][3]f32"
        );
        // The arguments run.
        run_interp(&c, "f", &args).unwrap();
        assert!(random_args(&c.ir, "g", 3, 1).unwrap_err().message.contains("unknown entry point"));
        assert!(random_args(&c.ir, "f", -1, 1).unwrap_err().message.contains("between 0 and"));
    }

    #[test]
    fn derivatives_of_entry_points() {
        let src = "entry dot (xs: []f32) (ys: []f32) : f32 = reduce (+) 0 (map2 (*) xs ys)\n\
                   entry count (n: i64) : i64 = n + 1\n";
        let vjp = ShowOptions { derivative: Some(AdMode::Vjp), ..ShowOptions::default() };
        let text = show_with(Stage::Ad, src, &vjp).unwrap();
        assert!(text.contains("-- vjp of `dot` with respect to all of its parameters"), "{text}");
        assert!(text.contains("entry dot_vjp ([]f32, []f32, f32) : (*[]f32, *[]f32)"), "{text}");
        assert!(text.contains("`count`: entry point `count` has no float parameters"), "{text}");
        // The derivative is made of ordinary IR: no jvp/vjp is left.
        assert!(!text.contains("vjp(") && !text.contains("jvp("), "{text}");
        let jvp = ShowOptions {
            derivative: Some(AdMode::Jvp),
            entry: Some("dot".into()),
            ..ShowOptions::default()
        };
        let text = show_with(Stage::Ad, src, &jvp).unwrap();
        assert!(text.contains("entry dot_jvp ([]f32, []f32, []f32, []f32) : f32"), "{text}");
        assert!(!text.contains("count"), "{text}");
        let one = ShowOptions { entry: Some("count".into()), ..jvp.clone() };
        let e = show_with(Stage::Ad, src, &one).unwrap_err();
        assert!(e[0].message.contains("no float parameters"), "{e:?}");
        let missing = ShowOptions { entry: Some("nope".into()), ..jvp };
        let e = show_with(Stage::Ad, src, &missing).unwrap_err();
        assert!(e[0].message.contains("unknown entry point `nope`"), "{e:?}");
    }
}
