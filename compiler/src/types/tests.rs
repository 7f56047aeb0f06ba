//! Tests of the checker, from source text.

mod contract;
mod errors;
mod infer;
mod prelude;
mod props;
mod sizes;
mod stack;
mod unique;

use crate::diag::Diagnostic;
use crate::syntax;

use super::{check, print, CheckedProgram};

/// Render diagnostics against the user's source or, for prelude spans, the prelude's.
pub(super) fn render(es: &[Diagnostic], src: &str) -> String {
    let base = syntax::PRELUDE_BASE;
    let shift = |s: crate::Span| crate::Span { start: s.start - base, end: s.end - base };
    es.iter()
        .map(|d| {
            if d.span.start >= base {
                let mut d = d.clone();
                d.span = shift(d.span);
                for l in &mut d.secondary {
                    if l.span.start >= base {
                        l.span = shift(l.span);
                    }
                }
                d.render("prelude.fut", super::PRELUDE_SRC)
            } else {
                d.render("test.fut", src)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parse and check; parse errors fail the test.
pub(super) fn check_src(src: &str) -> Result<CheckedProgram, Vec<Diagnostic>> {
    let p = match syntax::parse(src) {
        Ok(p) => p,
        Err(es) => panic!("parse error:\n{}", render(&es, src)),
    };
    let r = check(&p);
    if let Ok(cp) = &r {
        contract::validate(cp);
    }
    r
}

/// The printed types of a program that must check.
pub(super) fn types(src: &str) -> String {
    match check_src(src) {
        Ok(cp) => print::print_checked(&cp),
        Err(es) => panic!("unexpected errors:\n{}", render(&es, src)),
    }
}

/// The type of one definition.
pub(super) fn type_of(src: &str, name: &str) -> String {
    let t = types(src);
    for line in t.lines() {
        let line = line.strip_prefix("entry ").unwrap_or(line);
        if let Some(rest) = line.strip_prefix(&format!("{name} : ")) {
            return rest.to_string();
        }
    }
    panic!("no definition `{name}` in:\n{t}")
}

/// The errors of a program that must not check.
pub(super) fn errors(src: &str) -> Vec<Diagnostic> {
    match check_src(src) {
        Ok(cp) => panic!("expected errors, but it checks:\n{}", print::print_checked(&cp)),
        Err(es) => es,
    }
}

/// The first error, which must contain `needle`; returns it for further checks.
pub(super) fn error(src: &str, needle: &str) -> Diagnostic {
    let es = errors(src);
    let first = es[0].clone();
    assert!(
        first.message.contains(needle),
        "expected an error containing {needle:?}, got:\n{}",
        render(&es, src)
    );
    first
}

/// The source text a span covers.
pub(super) fn text(src: &str, span: crate::Span) -> &str {
    &src[span.start as usize..span.end as usize]
}
