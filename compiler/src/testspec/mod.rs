//! Futhark-format test blocks (`-- ==`, `entry:`, `input { } output { }`, `error:`, ...), parsed from
//! the comments of a `.fut` file, and everything `ogham test` needs that does no I/O: value
//! comparison with Futhark's float tolerance and readable diffs ([`compare`]), seeded random inputs
//! ([`random`]) and the runner over a [`run::Backend`] ([`run`]).
//!
//! A test block is a run of comment lines that start at the beginning of a line and contain a line
//! that is just `==`: the lines before it describe the test, the lines after it hold the cases:
//!
//! ```text
//! -- Indexing.
//! -- ==
//! -- tags { quick }
//! -- entry: main other
//! -- input { [4,3,2,1] 1i64 }
//! -- output { 3 }
//! -- input { [4,3,2,1] 5i64 } error: out of bounds
//! -- random input { [100]f32 10i64 } auto output
//! ```
//!
//! A block whose only case is `error: REGEX` (no input) is a compile-error test. Forms that Ogham
//! does not run (`input @ file`, `script input`, `structure`, `warning:`, `property:`) become
//! [`CaseKind::Unsupported`] cases, which the runner counts as skipped with the reason, never as
//! passed.

pub mod compare;
pub mod markdown;
mod parse;
pub mod random;
pub mod run;

use crate::diag::Span;
use crate::prim::{PrimType, PrimValue};
use crate::value::Value;

pub use parse::parse_tests;

/// One `-- ==` block.
#[derive(Clone, Debug)]
pub struct TestBlock {
    /// 1-based line of the `-- ==` line.
    pub line: usize,
    /// The `==` line.
    pub span: Span,
    /// The comment lines before `==`, without the `--`.
    pub description: String,
    /// `tags { ... }`. Tags of a file's first block apply to the whole file (as in Futhark); tags
    /// of a later block apply to that block.
    pub tags: Vec<String>,
    pub cases: Vec<TestCase>,
}

/// One test case of a block.
#[derive(Clone, Debug)]
pub struct TestCase {
    /// Position within its block, counting from 0 (Futhark's dataset `#0`, `#1`, ...).
    pub index: usize,
    /// A quoted dataset name written before the case, if any.
    pub name: Option<String>,
    /// The entry points the case runs on (`main` unless an `entry:` line says otherwise). Empty
    /// for compile-error tests.
    pub entries: Vec<String>,
    /// Words written before `input` (`compiled`, `random`, `nobench`, user tags).
    pub tags: Vec<String>,
    /// From the first word of the case to the end of its expected result.
    pub span: Span,
    /// 1-based line where the case starts.
    pub line: usize,
    pub kind: CaseKind,
}

#[derive(Clone, Debug)]
pub enum CaseKind {
    /// `error: REGEX` without an input: compiling the program must fail with a matching error.
    CompileError(ExpectedError),
    /// Run the entry points on the input and check the result.
    Run { input: Input, expected: Expected },
    /// A form Ogham does not run; the reason says which.
    Unsupported(String),
}

#[derive(Clone, Debug)]
pub enum Input {
    Values(Vec<Value>),
    /// `random input { [100]f32 10i64 }`: values generated with a seeded generator.
    Random(Vec<RandomValue>),
}

/// One item of a `random input` block.
#[derive(Clone, Debug, PartialEq)]
pub enum RandomValue {
    /// Random values of this shape (empty for a scalar) and element type.
    Random { shape: Vec<i64>, elem: PrimType },
    /// A fixed value written literally (`10i64`).
    Fixed(PrimValue),
}

#[derive(Clone, Debug)]
pub enum Expected {
    /// `output { ... }`: these values, compared with [`compare::compare_values`].
    Values(Vec<Value>),
    /// `error: REGEX`: the run must fail with a matching error.
    Error(ExpectedError),
    /// No expected result, or `auto output` (which needs a reference compiler): the run must
    /// succeed; its values are not checked.
    Succeeds,
}

/// The regex of an `error:` line. An empty regex accepts any error.
#[derive(Clone, Debug)]
pub struct ExpectedError {
    /// The regex as written.
    pub pattern: String,
    regex: Option<regex::Regex>,
}

impl ExpectedError {
    /// Compile `pattern`; `.` also matches newlines, as Futhark's (it matches whole error texts).
    pub fn new(pattern: &str) -> Result<ExpectedError, regex::Error> {
        let pattern = pattern.trim();
        let regex = if pattern.is_empty() {
            None
        } else {
            Some(regex::RegexBuilder::new(pattern).dot_matches_new_line(true).build()?)
        };
        Ok(ExpectedError { pattern: pattern.to_string(), regex })
    }

    /// Does the error text match (anywhere in it)?
    pub fn matches(&self, text: &str) -> bool {
        self.regex.as_ref().is_none_or(|r| r.is_match(text))
    }

    pub fn is_any(&self) -> bool {
        self.regex.is_none()
    }
}

/// Does a tag list disable a file, block or case? (`disable`, and `notest` which Futhark also
/// excludes by default.)
pub fn disabling_tag(tags: &[String]) -> Option<&str> {
    tags.iter().map(String::as_str).find(|t| matches!(*t, "disable" | "notest"))
}
