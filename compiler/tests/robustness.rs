//! The front end never panics: every program in examples/ and tests/programs, truncated, with bytes
//! deleted, duplicated or swapped, or with tokens shuffled, goes through parsing, type checking and
//! lowering and comes out as a value or as diagnostics, never as a panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn corpus() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["examples", "tests/programs"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else { continue };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "fut") {
                    if let Ok(src) = std::fs::read_to_string(&p) {
                        out.push((p, src));
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// One way of damaging a source text.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Swap(usize, usize),
    Insert(usize, &'static str),
    ShuffleWords(u64),
}

const SNIPPETS: &[&str] = &[
    "(", ")", "[", "]", "{", "}", "let", "in", "if", "then", "else", "loop", "for", "do", "\\",
    "->", "=", ",", ".", "..", "...", "with", "match", "case", "#", "'", "*", "?", "-", "!", ":",
    ":>", "|>", "0", "1i8", "1e300f32", "0x", "def", "entry", "type", "[]", "[n]", "f32", "map",
    "reduce", "iota", "x", "_", "--", "\"", "`", "assert",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), prop::sample::select(SNIPPETS)).prop_map(|(a, s)| Mutation::Insert(a, s)),
        any::<u64>().prop_map(Mutation::ShuffleWords),
    ]
}

fn boundary(s: &str, mut i: usize) -> usize {
    i %= s.len() + 1;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(src: &str, m: &Mutation) -> String {
    match *m {
        Mutation::Truncate(a) => src[..boundary(src, a)].to_string(),
        Mutation::Delete(a, n) => {
            let a = boundary(src, a);
            let b = boundary(src, a + n);
            format!("{}{}", &src[..a], &src[b.max(a)..])
        }
        Mutation::Duplicate(a, n) => {
            let a = boundary(src, a);
            let b = boundary(src, a + n).max(a);
            format!("{}{}{}", &src[..b], &src[a..b], &src[b..])
        }
        Mutation::Swap(a, b) => {
            let (a, b) = (boundary(src, a), boundary(src, b));
            let (a, b) = (a.min(b), a.max(b));
            let mid = boundary(src, a + (b - a) / 2).max(a);
            format!("{}{}{}{}", &src[..a], &src[mid..b], &src[a..mid], &src[b..])
        }
        Mutation::Insert(a, s) => {
            let a = boundary(src, a);
            format!("{} {s} {}", &src[..a], &src[a..])
        }
        Mutation::ShuffleWords(seed) => {
            // Swap a handful of whitespace-separated words, keeping the layout otherwise.
            let mut words: Vec<&str> = src.split(' ').collect();
            let mut x = seed | 1;
            for _ in 0..4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = words.len();
                let (i, j) = ((x % n as u64) as usize, ((x >> 32) % n as u64) as usize);
                words.swap(i, j);
            }
            words.join(" ")
        }
    }
}

#[test]
fn the_front_end_never_panics_on_damaged_examples() {
    let corpus = corpus();
    assert!(corpus.len() >= 30, "expected the example corpus, found {} programs", corpus.len());
    let cases = std::env::var("OGHAM_ROBUSTNESS_CASES").ok().and_then(|s| s.parse().ok());
    let mut runner = TestRunner::new(Config { cases: cases.unwrap_or(3000), ..Config::default() });
    let strategy = (0..corpus.len(), prop::collection::vec(mutation(), 1..4));
    runner
        .run(&strategy, |(i, ms)| {
            let mut src = corpus[i].1.clone();
            for m in &ms {
                src = apply(&src, m);
            }
            // Ok or Err are both fine; a panic fails the property and proptest shrinks it.
            let _ = ogham::driver::compile(&src);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_unmodified_example_compiles_without_panicking() {
    for (path, src) in corpus() {
        let result = std::panic::catch_unwind(|| ogham::driver::compile(&src).is_ok());
        assert!(result.is_ok(), "compiling {} panicked", path.display());
    }
}
