//! Property: the parser never panics or overflows its stack, whatever the input. Valid programs
//! from the corpus are truncated and mutated byte by byte, and random token soups are fed in.
//! Whatever parses must also round-trip through the printer.

use super::roundtrip::config;
use super::CORPUS;
use crate::syntax::printer::print_program;
use crate::syntax::strip::same_program;
use crate::syntax::{parse, parse_expr, parse_val_spec};
use proptest::prelude::*;

/// Fragments that are likely to make a mutated program almost valid.
const FRAGMENTS: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ",", ":", ":>", "->", "\\", "=", "..", "...", "..<", "..>", ".",
    "'", "'^", "'~", "`", "#", "#a", "--", "-", "!", "*", "+", "|>", "<|", "<", ">", "|", "_",
    "\n", " ", "\ndef ", "let", "in", "if", "then", "else", "loop", "for", "while", "do", "with",
    "match", "case", "type", "entry", "def", "assert", "true", "0", "1.5", "3i8", "0x", "x",
    "f32.sqrt", "?", "~", "^", "λ", "\"",
];

#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    Delete(usize, usize),
    Insert(usize, String),
    Swap(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let pos = || any::<prop::sample::Index>();
    let insertion = prop_oneof![
        prop::sample::select(FRAGMENTS).prop_map(str::to_string),
        any::<u8>().prop_map(|b| (b as char).to_string()),
    ];
    prop_oneof![
        1 => pos().prop_map(|i| Mutation::Truncate(i.index(usize::MAX))),
        3 => (pos(), 1usize..4).prop_map(|(i, n)| Mutation::Delete(i.index(usize::MAX), n)),
        4 => (pos(), insertion).prop_map(|(i, s)| Mutation::Insert(i.index(usize::MAX), s)),
        2 => (pos(), pos()).prop_map(|(a, b)| Mutation::Swap(a.index(usize::MAX), b.index(usize::MAX))),
        1 => (pos(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i.index(usize::MAX), n)),
    ]
}

fn apply(src: &str, ms: &[Mutation]) -> String {
    let mut b = src.as_bytes().to_vec();
    for m in ms {
        let len = b.len().max(1);
        match m {
            Mutation::Truncate(i) => b.truncate(i % len),
            Mutation::Delete(i, n) => {
                let i = i % len;
                let end = (i + n).min(b.len());
                if i < end {
                    b.drain(i..end);
                }
            }
            Mutation::Insert(i, s) => {
                let i = i % (b.len() + 1);
                b.splice(i..i, s.bytes());
            }
            Mutation::Swap(i, j) => {
                if !b.is_empty() {
                    let (i, j) = (i % b.len(), j % b.len());
                    b.swap(i, j);
                }
            }
            Mutation::Duplicate(i, n) => {
                let i = i % len;
                let end = (i + n).min(b.len());
                if i < end {
                    let piece: Vec<u8> = b[i..end].to_vec();
                    b.splice(end..end, piece);
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Parse `src` every way the crate can; whatever parses as a program must round-trip.
fn check_never_panics(src: &str) -> Result<(), TestCaseError> {
    match parse(src) {
        Ok(p) => {
            let text = print_program(&p);
            match parse(&text) {
                Ok(q) => prop_assert!(same_program(&p, &q), "{src}\nprinted as\n{text}"),
                Err(ds) => prop_assert!(false, "{src}\nprinted as\n{text}\n{ds:?}"),
            }
        }
        Err(ds) => {
            prop_assert!(!ds.is_empty());
            for d in &ds {
                prop_assert!(
                    d.span.start <= d.span.end && d.span.end as usize <= src.len(),
                    "{d:?}"
                );
                prop_assert!(src.is_char_boundary(d.span.start as usize), "{d:?}");
                // Rendering must not panic either.
                let _ = d.render("fuzz.fut", src);
            }
        }
    }
    let _ = parse_expr(src);
    let _ = parse_val_spec(src, 0);
    Ok(())
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn mutated_programs_never_panic(
        file in any::<prop::sample::Index>(),
        ms in prop::collection::vec(mutation(), 1..6),
    ) {
        let (_, src) = CORPUS[file.index(CORPUS.len())];
        check_never_panics(&apply(src, &ms))?;
    }

    #[test]
    fn token_soups_never_panic(
        toks in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..200),
        spaced in any::<bool>(),
    ) {
        let src = toks.join(if spaced { " " } else { "" });
        check_never_panics(&src)?;
        check_never_panics(&format!("def main = {src}"))?;
    }

}

/// A program in the module language; not in the round-trip corpus, since its flat names
/// (`m.f`) print as projections.
const MODULES: &str = include_str!("../testdata/modules.fut");

/// Whatever `src` is, parsing it returns (no panic), with errors inside the source.
fn check_parse_returns(src: &str) -> Result<(), TestCaseError> {
    if let Err(ds) = parse(src) {
        prop_assert!(!ds.is_empty());
        for d in &ds {
            prop_assert!(d.span.start <= d.span.end && d.span.end as usize <= src.len(), "{d:?}");
            let _ = d.render("fuzz.fut", src);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn mutated_module_programs_never_panic(ms in prop::collection::vec(mutation(), 1..6)) {
        check_parse_returns(&apply(MODULES, &ms))?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn deep_soups_never_panic(
        toks in prop::collection::vec(prop::sample::select(&["(", "[", "{", "-", "!", "\\x ->", "let x = 1 in", "if c then 1 else", "x.0", "a +", "f x", "(x: ", "*[]", "#a"][..]), 200..2000),
    ) {
        check_never_panics(&format!("def main = {}", toks.join(" ")))?;
    }
}

/// Inputs nested just below the depth limit parse, print, compare and drop within 1 MiB of stack
/// (WebAssembly's default) in a debug build.
#[test]
fn deep_inputs_fit_in_a_small_stack() {
    let d = crate::syntax::MAX_DEPTH as usize - 6;
    let inputs = [
        format!("def x = {}1{}", "(".repeat(d), ")".repeat(d)),
        format!("def x = {}1{}", "[".repeat(d), "]".repeat(d)),
        format!("def x = {}1", "- ".repeat(d)),
        format!("def x = {}1", "\\x -> ".repeat(d)),
        format!("def x = {}1", "if c then 1 else ".repeat(d)),
        format!("def x = {}1", "let a = 1 in ".repeat(d)),
        format!("def x = {}1{}", "let a = ".repeat(d / 2), " in a".repeat(d / 2)),
        format!("def x = {}1{}", "f (".repeat(d), ")".repeat(d)),
        format!("def x = {}0{}", "a[".repeat(d), "]".repeat(d)),
        format!("def x = {}1{}", "1 + (".repeat(d), ")".repeat(d)),
        format!("def x = {}", "loop x = 0 for i < n do ".repeat(d / 2) + "x"),
        format!("def x = {}x", "match x case _ -> ".repeat(d / 2)),
        format!("def x (y: {}i32{}) = y", "(".repeat(d), ")".repeat(d)),
        format!("def x (y: i32{}) = y", " -> i32".repeat(d)),
        format!("def x (y: {}i32) = y", "[]".repeat(d)),
        format!("def x ({}y{}) = y", "(".repeat(d), ")".repeat(d)),
    ];
    let r = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            for src in inputs {
                let p = parse(&src).unwrap_or_else(|ds| panic!("{}: {:?}", &src[..40], ds[0]));
                let text = print_program(&p);
                let q = parse(&text).unwrap_or_else(|ds| panic!("{}: {:?}", &text[..40], ds[0]));
                assert!(same_program(&p, &q));
            }
        })
        .and_then(|h| h.join().map_err(|_| std::io::Error::other("panicked")));
    assert!(r.is_ok());
}
