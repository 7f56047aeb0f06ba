//! The compiler's stages run once each for the package's `compile`: every stage's printout, the
//! diagnostics with line and column, and the time each stage took. Pure Rust (the clock is passed
//! in), so it is tested natively.

use ogham::backend::{wasm, wgsl};
use ogham::diag::{Diagnostic, Span};
use ogham::ir::AdMode;
use ogham::syntax::PRELUDE_BASE;
use ogham::{ad, ir, syntax, types};

/// Where a diagnostic points in the user's source.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub start: usize,
    pub end: usize,
    /// 1-based line and column (in characters).
    pub line: usize,
    pub col: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    pub message: String,
    /// Always "error" for now: the compiler reports no warnings.
    pub severity: &'static str,
    /// The phase, as the CLI prints it ("type error", "runtime error", ...).
    pub phase: &'static str,
    /// `None` for problems outside the program (an unknown entry point, bad arguments).
    pub span: Option<Place>,
    pub hint: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stages {
    /// The program after AUTOMAP, with inserted maps/reps listed.
    pub elaborated: Option<String>,
    /// The core IR after lowering.
    pub ir: Option<String>,
    /// Per entry point: its derivative (jvp or vjp, with respect to all of its parameters) after
    /// AD and simplification.
    pub derivative: Vec<(String, String)>,
    /// The wasm module as text.
    pub wasm: Option<String>,
    /// The GPU program (WGSL kernels and host schedule) as `ogham show wgsl` prints it, or why
    /// the GPU backend cannot compile the program (a WGSL comment).
    pub wgsl: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compiled {
    pub diagnostics: Vec<Diag>,
    pub stages: Stages,
    /// Milliseconds per stage that ran, in order.
    pub timings: Vec<(&'static str, f64)>,
    /// The entry points' names.
    pub entries: Vec<String>,
}

/// The 1-based line and column of byte offset `at` in `src`.
pub fn line_col(src: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(src.len());
    while at > 0 && !src.is_char_boundary(at) {
        at -= 1;
    }
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |k| k + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// A compiler diagnostic, placed in `src`.
pub fn diag(d: &Diagnostic, src: &str) -> Diag {
    let in_user_code = d.span != Span::DUMMY && d.span.start < PRELUDE_BASE;
    let span = in_user_code.then(|| {
        let (start, end) = (d.span.start as usize, d.span.end as usize);
        let (line, col) = line_col(src, start);
        Place { start, end, line, col }
    });
    let mut hints = d.hints.clone();
    if !d.label.is_empty() && !in_user_code {
        hints.insert(0, d.label.clone());
    }
    Diag {
        message: d.message.clone(),
        severity: "error",
        phase: d.phase.as_str(),
        span,
        hint: (!hints.is_empty()).then(|| hints.join("\n")),
    }
}

/// Per entry point, the printout of its `mode` derivative with respect to all of its parameters,
/// or a comment saying why there is none.
fn derivatives(src: &str, lowered: &ir::Program, mode: AdMode) -> Vec<(String, String)> {
    let word = if mode == AdMode::Jvp { "jvp" } else { "vjp" };
    match ogham::driver::entry_derivatives(src, lowered, &Default::default(), mode, None) {
        Ok(ds) => ds
            .into_iter()
            .map(|d| {
                let text = match d.program {
                    Ok(p) => ir::print::print_program(&p),
                    Err(es) => {
                        let why: Vec<&str> = es.iter().map(|e| e.message.as_str()).collect();
                        format!("-- no {word} of `{}`: {}\n", d.entry, why.join("; "))
                    }
                };
                (d.entry, text)
            })
            .collect(),
        Err(es) => {
            let why: Vec<&str> = es.iter().map(|e| e.message.as_str()).collect();
            lowered
                .entries
                .iter()
                .map(|e| (e.name.clone(), format!("-- {}\n", why.join("; "))))
                .collect()
        }
    }
}

/// Parse, check (with AUTOMAP), lower, differentiate and compile to wasm and to WGSL, keeping
/// every printout. The Derivative printout of each entry point is its `mode` derivative. Stops at
/// the first stage that reports errors, except that a program the GPU backend cannot compile
/// (f64, unsupported constructs) only gets that reason as its WGSL text. `now` gives milliseconds.
pub fn compile(src: &str, now: &dyn Fn() -> f64, mode: AdMode) -> Compiled {
    let mut out = Compiled::default();
    let mut t = now();
    let mut lap = |out: &mut Compiled, name: &'static str| {
        let t1 = now();
        out.timings.push((name, t1 - t));
        t = t1;
    };
    let fail = |out: &mut Compiled, ds: Vec<Diagnostic>| {
        out.diagnostics = ds.iter().map(|d| diag(d, src)).collect();
    };
    let ast = match syntax::parse(src) {
        Ok(a) => a,
        Err(ds) => {
            lap(&mut out, "parse");
            fail(&mut out, ds);
            return out;
        }
    };
    lap(&mut out, "parse");
    let (checked, reports) = types::check_automap_report(&ast);
    let checked = match checked {
        Ok(c) => c,
        Err(ds) => {
            lap(&mut out, "check");
            fail(&mut out, ds);
            return out;
        }
    };
    out.stages.elaborated = Some(types::automap::print_elaborated(&checked, &reports, src));
    lap(&mut out, "check");
    let lowered = match ir::lower::lower(&checked) {
        Ok(p) => p,
        Err(ds) => {
            lap(&mut out, "lower");
            fail(&mut out, ds);
            return out;
        }
    };
    out.stages.ir = Some(ir::print::print_program(&lowered));
    out.entries = lowered.entries.iter().map(|e| e.name.clone()).collect();
    lap(&mut out, "lower");
    let prog = match ad::differentiate(&lowered) {
        Ok(p) => p,
        Err(d) => {
            lap(&mut out, "ad");
            fail(&mut out, vec![d]);
            return out;
        }
    };
    lap(&mut out, "ad");
    out.stages.derivative = derivatives(src, &lowered, mode);
    lap(&mut out, "derivative");
    let module = match wasm::compile(&prog, &wasm::Options::default()) {
        Ok(m) => m,
        Err(ds) => {
            lap(&mut out, "wasm");
            fail(&mut out, ds);
            return out;
        }
    };
    lap(&mut out, "wasm");
    match wasm::to_wat(&module.bytes) {
        Ok(text) => out.stages.wasm = Some(text),
        Err(e) => out.stages.wasm = Some(format!(";; cannot print the module: {e}")),
    }
    lap(&mut out, "wat");
    out.stages.wgsl = Some(match wgsl::compile(&prog) {
        Ok(gp) => wgsl::show(&gp),
        Err(ds) => gpu_rejection(&ds, src),
    });
    lap(&mut out, "wgsl");
    out
}

/// Why the GPU backend cannot compile a program, as WGSL comments.
fn gpu_rejection(ds: &[Diagnostic], src: &str) -> String {
    let mut s = String::from("// The GPU backend cannot compile this program:\n");
    for d in ds {
        let d = diag(d, src);
        let at = d.span.map(|p| format!("line {}:{}: ", p.line, p.col)).unwrap_or_default();
        s.push_str(&format!("// {at}{}\n", d.message));
        for h in d.hint.iter().flat_map(|h| h.lines()) {
            s.push_str(&format!("//   hint: {h}\n"));
        }
    }
    s
}

/// The program compiled as far as running it needs: the core IR after AD (for the interpreter)
/// or the wasm module.
pub fn front_end(src: &str) -> Result<ogham::driver::Compiled, Vec<Diag>> {
    ogham::driver::compile(src).map_err(|ds| ds.iter().map(|d| diag(d, src)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> f64 {
        0.0
    }

    #[test]
    fn every_stage_has_a_printout() {
        let src = "entry main (xs: []f32) (y: f32) : []f32 = xs + y\n";
        let c = compile(src, &clock, AdMode::Vjp);
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        assert!(c.stages.elaborated.as_deref().unwrap().contains("map"));
        assert!(c.stages.ir.as_deref().unwrap().contains("main"));
        assert_eq!(c.stages.derivative.len(), 1);
        assert!(c.stages.derivative[0].1.contains("entry main_vjp"), "{:?}", c.stages.derivative);
        assert!(c.stages.wasm.as_deref().unwrap().contains("(module"));
        assert!(c.stages.wgsl.as_deref().unwrap().contains("@compute"));
        let names: Vec<&str> = c.timings.iter().map(|t| t.0).collect();
        assert_eq!(names, ["parse", "check", "lower", "ad", "derivative", "wasm", "wat", "wgsl"]);
        assert_eq!(c.entries, ["main"]);
    }

    #[test]
    fn a_program_the_gpu_cannot_compile_says_why_in_its_wgsl() {
        let src = "entry main (xs: []f64) : f64 = f64.sum xs\n";
        let c = compile(src, &clock, AdMode::Vjp);
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        assert!(c.stages.wasm.is_some());
        let w = c.stages.wgsl.unwrap();
        assert!(w.starts_with("// The GPU backend cannot compile this program:"), "{w}");
        assert!(w.contains("f64 is not available on WebGPU"), "{w}");
        assert!(w.contains("line 1:"), "{w}");
    }

    #[test]
    fn a_type_error_has_its_line_and_column() {
        let src = "def f (x: i32) = x\n\nentry main (x: i32) : bool = f x\n";
        let c = compile(src, &clock, AdMode::Vjp);
        assert_eq!(c.diagnostics.len(), 1);
        let d = &c.diagnostics[0];
        assert!(d.message.contains("type mismatch"), "{d:?}");
        assert_eq!(d.span.as_ref().unwrap().line, 3);
        assert_eq!(c.stages, Stages::default());
    }

    #[test]
    fn a_parse_error_stops_at_parsing() {
        let c = compile("def main = if true else 1", &clock, AdMode::Vjp);
        assert!(c.diagnostics[0].message.contains("expected"));
        assert_eq!(c.timings.len(), 1);
    }

    #[test]
    fn lines_and_columns_count_characters() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nx", 3), (2, 1));
        assert_eq!(line_col("é", 1), (1, 1));
        assert_eq!(line_col("ab", 99), (1, 3));
    }

    #[test]
    fn the_derivative_follows_the_mode() {
        let src = "entry f (x: f64) : f64 = x * x\nentry g (n: i64) : i64 = n\n";
        let c = compile(src, &clock, AdMode::Jvp);
        let (f, g) = (&c.stages.derivative[0], &c.stages.derivative[1]);
        assert_eq!(f.0, "f");
        assert!(f.1.contains("entry f_jvp (f64, f64) : f64"), "{}", f.1);
        assert!(g.1.contains("no jvp of `g`: entry point `g` has no float parameters"), "{}", g.1);
    }
}
