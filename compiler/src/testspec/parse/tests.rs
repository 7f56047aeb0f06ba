use super::*;
use crate::prim::{PrimType, PrimValue};
use crate::testspec::RandomValue;
use crate::value::Value;

fn blocks(src: &str) -> Vec<TestBlock> {
    parse_tests(src)
        .unwrap_or_else(|ds| panic!("{:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn error(src: &str) -> Diagnostic {
    match parse_tests(src) {
        Err(ds) => {
            let d = ds[0].clone();
            assert!(d.span.end as usize <= src.len());
            d
        }
        Ok(b) => panic!("expected an error, got {b:?}"),
    }
}

fn run_kind(c: &TestCase) -> (&Input, &Expected) {
    match &c.kind {
        CaseKind::Run { input, expected } => (input, expected),
        k => panic!("not a run case: {k:?}"),
    }
}

fn input_values(c: &TestCase) -> &[Value] {
    match run_kind(c).0 {
        Input::Values(vs) => vs,
        i => panic!("not values: {i:?}"),
    }
}

const DOC_EXAMPLE: &str = "\
-- Test simple indexing of an array.
-- ==
-- tags { firsttag secondtag }
-- input { [4,3,2,1] 1i64 }
-- output { 3 }
-- input { [4,3,2,1] 5i64 }
-- error: Error*

let main (a: []i32) (i: i64): i32 =
  a[i]
";

#[test]
fn the_documented_example() {
    let bs = blocks(DOC_EXAMPLE);
    assert_eq!(bs.len(), 1);
    let b = &bs[0];
    assert_eq!(b.line, 2);
    assert_eq!(b.description, "Test simple indexing of an array.");
    assert_eq!(b.tags, vec!["firsttag", "secondtag"]);
    assert_eq!(b.cases.len(), 2);
    let c0 = &b.cases[0];
    assert_eq!((c0.index, c0.line), (0, 4));
    assert_eq!(c0.entries, vec!["main"]);
    assert_eq!(input_values(c0).len(), 2);
    assert_eq!(input_values(c0)[1], Value::Prim(PrimValue::I64(1)));
    assert!(
        matches!(run_kind(c0).1, Expected::Values(v) if v == &vec![Value::Prim(PrimValue::I32(3))])
    );
    assert_eq!(&DOC_EXAMPLE[c0.span.range()], "input { [4,3,2,1] 1i64 }\n-- output { 3 }");
    let c1 = &b.cases[1];
    assert_eq!((c1.index, c1.line), (1, 6));
    match run_kind(c1).1 {
        Expected::Error(e) => {
            assert_eq!(e.pattern, "Error*");
            assert!(e.matches("Error: index out of bounds"));
            assert!(!e.matches("runtime error"));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn several_blocks_with_entries() {
    let src = "\
let add (x: i32) (y: i32): i32 = x + y

-- Test the add1 function.
-- ==
-- entry: add1
-- input { 1 } output { 2 }

entry add1 (x: i32): i32 = add x 1

-- ==
-- entry: sub1 sub1_again
-- input { 1 }
-- output { 0 }
-- input {
--   [1, 2,
--    3]
-- }
-- output {
--   [0, 1, 2]
-- }

entry sub1 (x: i32): i32 = add x (-1)
";
    let bs = blocks(src);
    assert_eq!(bs.len(), 2);
    assert_eq!(bs[0].cases[0].entries, vec!["add1"]);
    assert_eq!(bs[0].line, 4);
    assert_eq!(bs[1].description, "");
    assert_eq!(bs[1].cases.len(), 2);
    assert_eq!(bs[1].cases[1].entries, vec!["sub1", "sub1_again"]);
    assert_eq!(input_values(&bs[1].cases[1])[0].type_string(), "[3]i32");
    assert_eq!(bs[1].cases[1].line, 14);
    assert!(
        matches!(run_kind(&bs[1].cases[1]).1, Expected::Values(v) if v[0].type_string() == "[3]i32")
    );
}

#[test]
fn compile_error_blocks() {
    let src = "-- ==\n-- error: type mismatch.*`i32`\ndef main = 1 + true\n";
    let bs = blocks(src);
    let c = &bs[0].cases[0];
    assert!(c.entries.is_empty());
    match &c.kind {
        CaseKind::CompileError(e) => {
            assert_eq!(e.pattern, "type mismatch.*`i32`");
            assert!(e.matches("type error: type mismatch: expected `i32`, found `bool`"));
            assert!(!e.matches("parse error"));
        }
        k => panic!("{k:?}"),
    }
    // An empty regex accepts any error.
    let bs = blocks("-- ==\n-- error:\n");
    assert!(
        matches!(&bs[0].cases[0].kind, CaseKind::CompileError(e) if e.is_any() && e.matches("x"))
    );
}

#[test]
fn regex_dot_matches_newlines() {
    let bs = blocks("-- ==\n-- input { 1 } error: first.*second\n");
    match run_kind(&bs[0].cases[0]).1 {
        Expected::Error(e) => assert!(e.matches("first line\nsecond line")),
        e => panic!("{e:?}"),
    }
}

#[test]
fn compiled_random_auto_and_names() {
    let src = "\
-- ==
-- compiled input { 1f32 } output { 2f32 }
-- random input { [100]f32 [10][10]i32 } auto output
-- random input { [3]f64 }
-- \"small\" nobench random input { 10i64 [2]bool } output { true }
-- input { 1 }
";
    let bs = blocks(src);
    let cs = &bs[0].cases;
    assert_eq!(cs.len(), 5);
    assert_eq!(cs[0].tags, vec!["compiled"]);
    assert!(matches!(run_kind(&cs[0]).1, Expected::Values(_)));
    match run_kind(&cs[1]) {
        (Input::Random(spec), Expected::Succeeds) => assert_eq!(
            spec,
            &vec![
                RandomValue::Random { shape: vec![100], elem: PrimType::F32 },
                RandomValue::Random { shape: vec![10, 10], elem: PrimType::I32 },
            ]
        ),
        k => panic!("{k:?}"),
    }
    assert!(matches!(run_kind(&cs[2]), (Input::Random(_), Expected::Succeeds)));
    assert_eq!(cs[3].name.as_deref(), Some("small"));
    assert_eq!(cs[3].tags, vec!["nobench", "random"]);
    assert!(
        matches!(run_kind(&cs[3]), (Input::Random(s), Expected::Values(_)) if s[0] == RandomValue::Fixed(PrimValue::I64(10)))
    );
    assert!(matches!(run_kind(&cs[4]), (Input::Values(_), Expected::Succeeds)));
    assert_eq!(cs[4].line, 6);
}

#[test]
fn unsupported_forms_are_cases_that_say_why() {
    let src = "\
-- ==
-- input @ data/big.in
-- output @ data/big.out
-- script input { mk_input 10i64 } output { 1 }
-- structure { Screma 1 }
-- structure gpu-mem { Alloc 0 }
-- warning: unused
";
    let bs = blocks(src);
    let reasons: Vec<String> = bs[0]
        .cases
        .iter()
        .map(|c| match &c.kind {
            CaseKind::Unsupported(r) => r.clone(),
            k => panic!("{k:?}"),
        })
        .collect();
    expect_test::expect![[r#"
        [
            "input from a file (`input @ data/big.in`) is not supported",
            "FutharkScript inputs (`script input`) are not supported",
            "structure tests (`structure`) are not supported",
            "structure tests (`structure`) are not supported",
            "warning tests (`warning:`) are not supported",
        ]
    "#]]
    .assert_debug_eq(&reasons);
    let bs = blocks("-- ==\n-- property: prop_a prop_b\n");
    assert!(
        matches!(&bs[0].cases[0].kind, CaseKind::Unsupported(r) if r.starts_with("property-based"))
    );
}

#[test]
fn output_at_file_is_unsupported() {
    let bs = blocks("-- ==\n-- input { 1 } output @ x.out\n");
    assert!(matches!(&bs[0].cases[0].kind,
        CaseKind::Unsupported(r) if r == "output from a file (`output @ x.out`) is not supported"));
}

#[test]
fn ordinary_comments_are_not_blocks() {
    let src = "-- | A doc comment.\n-- More text == not a separator\ndef main = 1\n  -- ==\n";
    assert!(blocks(src).is_empty());
    assert!(blocks("").is_empty());
    assert!(blocks("-- ==").iter().all(|b| b.cases.is_empty()));
}

#[test]
fn a_block_ends_at_the_first_non_comment_line() {
    let src = "-- ==\n-- input { 1 }\ndef main (x: i32) = x\n-- input { 2 }\n";
    let bs = blocks(src);
    assert_eq!(bs.len(), 1);
    assert_eq!(bs[0].cases.len(), 1);
}

#[test]
fn crlf_line_endings() {
    let bs = blocks("-- ==\r\n-- input { 1 }\r\n-- output { 1 }\r\n");
    assert_eq!(bs[0].cases.len(), 1);
}

#[test]
fn value_errors_point_into_the_file() {
    let src = "-- ==\n-- input { [1, 2], [3] }\n";
    let d = error(src);
    assert_eq!(d.message, "expected a value, found `,`");
    assert_eq!(&src[d.span.range()], ",");
    let src = "-- ==\n-- input {\n--   [[1, 2],\n--    [3]] }\n";
    let d = error(src);
    assert_eq!(d.message, "irregular array: rows of lengths 2 and 1");
    assert_eq!(&src[d.span.range()], "[3]");
    assert_eq!(d.span.line_col(src), (4, 7));
    assert_eq!(&src[d.secondary[0].span.range()], "[1, 2]");
}

#[test]
fn spec_errors() {
    assert_eq!(
        error("-- ==\n-- input 1\n").message,
        "expected `{` or `@` after `input`, found `1`"
    );
    assert_eq!(error("-- ==\n-- outputs { 1 }\n").message, "expected `input`, found `{`");
    assert_eq!(error("-- ==\n-- input { 1 } output 1\n").message, "expected `{`, found `1`");
    assert_eq!(error("-- ==\n-- input { 1 \n").message, "unclosed `{` in test block");
    assert_eq!(
        error("-- ==\n-- input { 1 } auto\n").message,
        "expected `output` after `auto`, found the end of the test block"
    );
    assert_eq!(
        error("-- ==\n-- entry:\n-- input { 1 }\n").message,
        "expected entry point names after `entry:`"
    );
    assert!(error("-- ==\n-- input { 1 } error: (unclosed\n")
        .message
        .starts_with("invalid regular expression in `error:`"));
    assert_eq!(error("-- ==\n-- tags { a! }\n").message, "invalid tag `a!`");
    assert_eq!(error("-- ==\n-- \"name input { 1 }\n").message, "unterminated dataset name");
    assert_eq!(
        error("-- ==\n-- random input { [10]q32 }\n").message,
        "expected a primitive type such as `f32`, found `q32`"
    );
    let src = "-- ==\n-- random input { [10]q32 }\n";
    assert_eq!(&src[error(src).span.range()], "q32");
    // Every erroneous block is reported.
    assert_eq!(parse_tests("-- ==\n-- input 1\n\n-- ==\n-- input 2\n").unwrap_err().len(), 2);
}

#[test]
fn odd_input_never_panics() {
    for src in [
        "-- ==\n-- {",
        "-- ==\n-- }",
        "-- ==\n-- input {",
        "-- ==\n-- input { } output {",
        "-- ==\n-- tags",
        "-- ==\n-- tags {",
        "-- ==\n-- structure",
        "-- ==\n-- \"",
        "-- ==\n-- input @",
        "-- ==\n-- é input { 1 }",
        "-- ==\n-- input { \"é\" }",
        "-- ==\n--input{1}output{1}",
    ] {
        let _ = parse_tests(src);
    }
    assert_eq!(blocks("-- ==\n--input{1}output{1}")[0].cases.len(), 1);
}
