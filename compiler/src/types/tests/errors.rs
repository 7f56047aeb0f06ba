//! Error messages: phrasing, spans and labels.

use super::{error, errors, text};

#[test]
fn unknown_variable_suggests_a_close_name() {
    let src = "def f (count: i32) = cuont + 1";
    let e = error(src, "unknown variable `cuont`");
    assert_eq!(text(src, e.span), "cuont");
    assert_eq!(e.hints, vec!["did you mean `count`?".to_string()]);
}

#[test]
fn recursion_is_reported_as_unknown_with_a_hint() {
    let src = "def fact (n: i32) : i32 = if n == 0 then 1 else n * fact (n - 1)";
    let e = error(src, "unknown variable `fact`");
    assert!(e.hints[0].contains("recursive functions are not supported"), "{:?}", e.hints);
}

#[test]
fn wrong_argument_names_both_types_and_the_function() {
    let src = "def f [n] (xs: [n]f32) = xs\ndef g = f 1.0f64";
    let e = error(src, "type mismatch: expected `[n]f32`, found `f64`");
    assert_eq!(text(src, e.span), "1.0f64");
    assert_eq!(text(src, e.secondary[0].span), "f");
    assert!(
        e.secondary[0].message.contains("`f` takes an argument of type `[n]f32`"),
        "{:?}",
        e.secondary
    );
}

#[test]
fn operands_must_agree() {
    let src = "def f (x: i32) = x + 1.5f32";
    let e = error(src, "type mismatch: expected `i32`, found `f32`");
    assert_eq!(text(src, e.span), "1.5f32");
    assert_eq!(text(src, e.secondary[0].span), "x");
}

#[test]
fn if_condition_must_be_bool() {
    let src = "def f (x: i32) = if x then 1 else 2";
    let e = error(src, "type mismatch: expected `bool`, found `i32`");
    assert_eq!(text(src, e.span), "x");
}

#[test]
fn size_mismatch_between_arguments_names_both() {
    let src = "
def dotprod [n] (xs: [n]f32) (ys: [n]f32) = reduce (+) 0 (map2 (*) xs ys)
def main [n][m] (xs: [n]f32) (ys: [m]f32) = dotprod xs ys
";
    let e = error(
        src,
        "size mismatch: `dotprod` expects arguments of the same length, but `xs` has size `n` and `ys` has size `m`",
    );
    assert_eq!(e.phase, crate::diag::Phase::Size);
    assert_eq!(text(src, e.span), "ys");
    assert_eq!(text(src, e.secondary[0].span), "xs");
}

#[test]
fn several_errors_are_reported() {
    let src = "def a = x\ndef b = 1 + true\ndef c = y";
    assert_eq!(errors(src).len(), 3);
}
