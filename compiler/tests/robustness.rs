//! The front end never panics: every program in examples/ and tests/programs, truncated, with bytes
//! deleted, duplicated or swapped, or with tokens shuffled, goes through parsing, type checking and
//! lowering and comes out as a value or as diagnostics, never as a panic.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

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
    "reduce", "iota", "x", "_", "--", "\"", "`", "assert", "[n+1]", "[n*m]", "[2*n-1]", "[(n", "/",
    "%",
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

/// How long one damaged program may take to compile before it counts as a hang. Every corpus
/// program compiles in milliseconds; the margin is for slow, loaded machines.
const HANG_LIMIT: Duration = Duration::from_secs(20);

/// Compiles on a separate thread so that a hang is reported with the program that caused it
/// instead of stalling the test run. A hung thread is left behind; the process ends with the test.
fn compile_within_limit(src: String) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    let worker = src.clone();
    std::thread::spawn(move || {
        let ok = std::panic::catch_unwind(|| ogham::driver::compile(&worker).is_ok());
        let _ = tx.send(ok.is_ok());
    });
    match rx.recv_timeout(HANG_LIMIT) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("the front end panicked on:\n{src}")),
        Err(_) => Err(format!("the front end took over {HANG_LIMIT:?} on:\n{src}")),
    }
}

#[test]
fn the_front_end_never_panics_on_damaged_examples() {
    let corpus = corpus();
    assert!(corpus.len() >= 30, "expected the example corpus, found {} programs", corpus.len());
    let env = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    let cases = env("OGHAM_ROBUSTNESS_CASES").unwrap_or(3000) as u32;
    // A fixed seed keeps CI reproducible; OGHAM_ROBUSTNESS_SEED explores other damage.
    let seed = env("OGHAM_ROBUSTNESS_SEED").unwrap_or(0x0b5e_55ed);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    // No shrinking: a hang would make every shrinking step wait out the limit.
    let config = Config { cases, max_shrink_iters: 0, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (0..corpus.len(), prop::collection::vec(mutation(), 1..4));
    runner
        .run(&strategy, |(i, ms)| {
            let mut src = corpus[i].1.clone();
            for m in &ms {
                src = apply(&src, m);
            }
            // Ok or Err are both fine; a panic or a hang fails the property.
            compile_within_limit(src)
                .map_err(|e| TestCaseError::fail(format!("{} {ms:?}: {e}", corpus[i].0.display())))
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
