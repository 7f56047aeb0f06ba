//! Properties over the example corpus: every program lowers to valid IR, and mutated programs
//! that still type-check never make lowering panic.

use crate::ir::{print::print_program, validate::validate};
use crate::{syntax, types};

/// Whether the program's tests expect compiling it to fail with one of `ds`.
fn expects_compile_error(src: &str, ds: &[crate::diag::Diagnostic]) -> bool {
    let Ok(blocks) = crate::testspec::parse_tests(src) else { return false };
    blocks.iter().flat_map(|b| &b.cases).any(|c| match &c.kind {
        crate::testspec::CaseKind::CompileError(e) => ds.iter().any(|d| e.matches(&d.message)),
        _ => false,
    })
}

/// Every example program and test program that type-checks lowers to valid IR.
#[test]
fn corpus_lowers() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in ["examples", "tests/programs"] {
        let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) else { continue };
        let mut paths: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().and_then(|e| e.to_str()) != Some("fut") {
                continue;
            }
            let Ok(src) = std::fs::read_to_string(&path) else { continue };
            let Ok(ast) = syntax::parse(&src) else { continue };
            let checked = match types::check(&ast) {
                Ok(c) => c,
                Err(d) if d.iter().any(|d| d.message.contains("not built yet")) => return,
                Err(_) => continue,
            };
            count += 1;
            match super::super::lower(&checked) {
                Ok(p) => {
                    if let Err(e) = validate(&p) {
                        failures.push(format!("{}: invalid IR: {e}", path.display()));
                    }
                }
                // A program whose test expects this compile error (one lowering reports,
                // such as an `unflatten` whose sizes nothing fixes).
                Err(ds) if expects_compile_error(&src, &ds) => {}
                Err(ds) => {
                    for d in ds {
                        failures.push(format!("{}: {}", path.display(), d.message));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{count} programs, failures:\n{}", failures.join("\n"));
}

/// The corpus programs, for the property test.
fn corpus() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut out = Vec::new();
    for dir in ["examples", "tests/programs"] {
        let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) else { continue };
        let mut paths: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().and_then(|e| e.to_str()) == Some("fut") {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    out.push(s);
                }
            }
        }
    }
    out
}

/// Apply one mutation to a program's text: delete a range, duplicate a range, or replace an
/// identifier or number with another one from the same program (which often still type-checks).
fn mutate(src: &str, op: u8, pos: usize, len: usize, other: usize) -> String {
    let chars: Vec<char> = src.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let at = pos % chars.len();
    let end = (at + len).min(chars.len());
    let words: Vec<(usize, usize)> = {
        let mut w = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_alphanumeric() || chars[i] == '_' {
                let s = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
                {
                    i += 1;
                }
                w.push((s, i));
            } else {
                i += 1;
            }
        }
        w
    };
    let text = |r: (usize, usize)| chars[r.0..r.1].iter().collect::<String>();
    match op % 4 {
        0 => chars[..at].iter().chain(&chars[end..]).collect(),
        1 => chars[..end].iter().chain(&chars[at..]).collect(),
        _ if words.is_empty() => src.to_string(),
        _ => {
            let target = words[pos % words.len()];
            let with = text(words[other % words.len()]);
            let mut s: String = chars[..target.0].iter().collect();
            s.push_str(&with);
            s.extend(&chars[target.1..]);
            s
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
    ))]

    /// Lowering never panics on a program that type-checks, and what it produces is valid IR.
    #[test]
    fn lowering_never_panics(
        file in 0usize..1000,
        muts in proptest::collection::vec((0u8..4, 0usize..100_000, 0usize..30, 0usize..100_000), 1..4),
    ) {
        let files = corpus();
        if files.is_empty() {
            return Ok(());
        }
        let mut src = files[file % files.len()].clone();
        for (op, pos, len, other) in muts {
            src = mutate(&src, op, pos, len, other);
        }
        let Ok(ast) = syntax::parse(&src) else { return Ok(()) };
        let Ok(checked) = types::check(&ast) else { return Ok(()) };
        if let Ok(p) = super::super::lower(&checked) {
            if let Err(e) = validate(&p) {
                panic!("invalid IR: {e}\nfor program:\n{src}\n{}", print_program(&p));
            }
        }
    }
}
