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

#[test]
fn not_a_function() {
    let src = "def f (x: i32) = x 1";
    let e = error(src, "type mismatch: expected a function, found `i32`");
    assert_eq!(text(src, e.span), "x");
    assert_eq!(e.label, "`x` is not a function");
    assert_eq!(text(src, e.secondary[0].span), "1");
    let src = "def g (x: i32) = x\ndef f = g 1 2";
    let e = error(src, "type mismatch: expected a function, found `i32`");
    assert_eq!(e.label, "`g` is applied to too many arguments");
    let src = "def f (x: i32) = let y = 5 in y x";
    error(src, "type mismatch: expected a function, found a numeric type");
}

#[test]
fn unflatten_with_sizes_as_arguments_shows_the_current_form() {
    let src = "def f (xs: []i32) : [2][2]i32 = unflatten 2 2 xs";
    let e = error(src, "type mismatch: expected a function, found `[n][m]t`");
    assert_eq!(e.label, "`unflatten` is applied to too many arguments");
    assert!(e.hints.iter().any(|h| h.contains("`unflatten xs : [n][m]t`")), "{:?}", e.hints);
    let src = "def f (xs: []i32) : [2][2][2]i32 = unflatten_3d 2 2 2 xs";
    let e = error(src, "type mismatch: expected a function, found `[n][m][l]t`");
    assert!(e.hints.iter().any(|h| h.contains("`unflatten_3d xs : [n][m][l]t`")), "{:?}", e.hints);
}

#[test]
fn array_elements_must_agree() {
    let src = "def a = [1i32, 2, 3.0f32]";
    let e = error(src, "type mismatch: expected `i32`, found `f32`");
    assert_eq!(text(src, e.span), "3.0f32");
    assert_eq!(e.secondary[0].message, "the first element has type `i32`");
    assert_eq!(text(src, e.secondary[0].span), "1i32");
}

#[test]
fn branches_must_agree() {
    let src = "def f (b: bool) = if b then 1i32 else 2.0f32";
    let e = error(src, "type mismatch: expected `i32`, found `f32`");
    assert_eq!(text(src, e.span), "2.0f32");
    assert_eq!(e.secondary[0].message, "the `then` branch has type `i32`");
}

#[test]
fn classes_name_what_is_required() {
    let e = error("def f = -true", "type mismatch: expected a numeric type, found `bool`");
    assert!(e.hints[0].contains("`-` requires a numeric type"), "{:?}", e.hints);
    error(
        "def f = 1.0 & 2.0",
        "type mismatch: expected an integer type, found a floating-point type",
    );
    error(
        "def f (a: {x: i32}) = a < a",
        "type mismatch: expected a primitive type, found `{x: i32}`",
    );
    error("def f 'a (x: a) = x + x", "type mismatch: expected a numeric type, found `a`");
    error("def f = true && 1i32", "type mismatch: expected `bool`, found `i32`");
}

#[test]
fn functions_where_values_are_required() {
    let src = "def f (x: i32) = let fs = [(+ 1), (* 2)] in fs[0] x";
    let e = error(src, "arrays cannot contain functions; found `i32 -> i32`");
    assert_eq!(text(src, e.span), "[(+ 1), (* 2)]");
    let src = "def f (b: bool) (x: i32) = let g = if b then (+ 1) else (* 2) in g x";
    let e =
        error(src, "functions cannot be returned from `if`; the branches have type `i32 -> i32`");
    assert!(text(src, e.span).starts_with("if b"));
    let src = "def f (n: i32) (x: i32) = let g = loop g = (+ 1) for _i < n do (g >-> (* 2)) in g x";
    let e = error(src, "a loop cannot carry a function; the loop parameter has type `i32 -> i32`");
    assert_eq!(text(src, e.span), "g");
    error(
        "def f = map (\\x -> \\y -> x + y) [1, 2]",
        "type mismatch: expected a type without functions, found",
    );
    error("def f = (\\x -> x) == (\\x -> x)", "functions cannot be compared");
    let src = "def f (b: bool) = match b case true -> (+ 1i32) case false -> (* 2)";
    error(src, "functions cannot be returned from `match`");
}

#[test]
fn fields() {
    let src = "def f (p: {x: i32}) = p.y";
    let e = error(src, "the type `{x: i32}` has no field `y`");
    assert_eq!(text(src, e.span), "p.y");
    error(
        "def f (x: i32) = x.foo",
        "type mismatch: expected a record with a field `foo`, found `i32`",
    );
    error(
        "def f p = p.x",
        "ambiguous type: the type of this value must be known to access its field `x`",
    );
    error("def f (t: (i32, i32)) = t.2", "the type `(i32, i32)` has no field `2`");
    error("def f (r: {a: i32}) = r with b = 1", "the type `{a: i32}` has no field `b`");
    error("def r = {a = 1, a = 2}", "field `a` is given twice");
}

#[test]
fn indexing() {
    let src = "def f (x: i32) = x[0]";
    let e = error(src, "type mismatch: expected an array, found `i32`");
    assert_eq!(e.label, "indexed with 1 index");
    error(
        "def f (xs: []i32) = xs[0, 1]",
        "type mismatch: expected an array of at least 2 dimensions, found `[]i32`",
    );
    // A point index is any signed integer (as in Futhark); slice bounds are `i64`.
    assert!(
        super::check_src("def f (xs: []i32) (i: i32) (j: i8) = xs[i] + xs[j] + xs[1i16]").is_ok()
    );
    let src = "def f (xs: []i32) = xs[1u32]";
    let e = error(src, "type mismatch: expected a signed integer type, found `u32`");
    assert_eq!(text(src, e.span), "1u32");
    assert_eq!(e.hints, vec!["an index is a signed integer (`i64` in a slice)".to_string()]);
    let src = "def f (xs: []i32) = xs[1i32:]";
    let e = error(src, "type mismatch: expected `i64`, found `i32`");
    assert_eq!(text(src, e.span), "1i32");
    error("def f (xs: *[]i32) = xs with [0] = true", "type mismatch: expected `i32`, found `bool`");
}

#[test]
fn ambiguous_types() {
    let src = "def main (x: i32) : i64 = length []";
    let e = error(src, "ambiguous type");
    assert_eq!(text(src, e.span), "[]");
    assert_eq!(e.hints, vec!["add a type annotation".to_string()]);
}

#[test]
fn unknown_types_and_sizes() {
    let src = "def main (v: vec3) : f32 = 1";
    let e = error(src, "unknown type `vec3`");
    assert_eq!(text(src, e.span), "vec3");
    let e = error("type vector = [3]f32\ndef f (v: vectr) = v", "unknown type `vectr`");
    assert_eq!(e.hints, vec!["did you mean `vector`?".to_string()]);
    let es = errors("type t = vecc\ndef x : t = 1");
    assert_eq!(es.len(), 1, "{es:?}");
    error(
        "type t 'a = (a, a)\ndef x : t i32 f32 = (1, 2)",
        "the type `t` takes 1 argument, but is given 2",
    );
}

#[test]
fn patterns() {
    let src = "def main (x: i32) = let (a, b) = (x, x + 1, x + 2) in a + b";
    let e = error(src, "type mismatch: expected `(");
    assert_eq!(text(src, e.span), "(x, x + 1, x + 2)");
    error("def f (x: i32) (x: i32) = x", "`x` is bound twice in the parameters");
    error("def f ((x, x): (i32, i32)) = x", "`x` is bound twice in this pattern");
    let src = "def f (x: i32) = let (y: bool) = x in y";
    let e = error(src, "type mismatch: expected `bool`, found `i32`");
    assert_eq!(e.secondary[0].message, "the annotation requires `bool`");
}

#[test]
fn return_types() {
    let src = "def f 'a (x: a) : i32 = x";
    let e = error(src, "type mismatch: expected `i32`, found `a`");
    assert_eq!(text(src, e.span), "x");
    assert_eq!(e.secondary[0].message, "the return type is declared `i32`");
    assert_eq!(text(src, e.secondary[0].span), "i32");
}

#[test]
fn infinite_types() {
    let e = error("def f x = x x", "type mismatch");
    assert!(e.hints.iter().any(|h| h.contains("infinite type")), "{:?}", e.hints);
}

#[test]
fn loop_bodies() {
    let src = "def f = loop x = 0 for i < 10 do true";
    let e = error(src, "type mismatch: expected a numeric type, found `bool`");
    assert_eq!(text(src, e.span), "true");
    assert_eq!(e.secondary[0].message, "the loop parameter has a numeric type");
    error(
        "def f (x: i32) = loop y = x while y do y + 1",
        "type mismatch: expected `bool`, found `i32`",
    );
}

#[test]
fn entry_points() {
    let src = "type^ t = #a (i32 -> i32) | #b\nentry main (p: (i32, t)) = p.0";
    let e = error(
        src,
        "entry point parameters must be primitive values, or arrays, tuples, records and sum types of them; found `(i32, #a (i32 -> i32) | #b)`",
    );
    assert_eq!(text(src, e.span), "(p: (i32, t))");
    // Sum types are passed as their constructor's index and payloads.
    super::types("type t = #a | #b i32\nentry main (p: (i32, t)) : []t = [p.1]");
    // Tuples, records and arrays of them are passed as their components.
    super::types("entry main (p: (i32, f32)) (r: {a: [](i32, bool)}) = (p.0, r)");
    // A function result takes further arguments; a function argument cannot be one.
    super::types("entry main (x: i32) : i32 -> i32 = (+ x)");
    let src = "entry main (x: i32) : (i32 -> i32) -> i32 = \\g -> g x";
    let e = error(src, "entry point results must be primitive values, or arrays, tuples, records and sum types of them; found `(i32 -> i32) -> i32`");
    assert_eq!(text(src, e.span), "(i32 -> i32) -> i32");
    error("entry f 'a (x: a) = x", "entry points cannot have type parameters");
    error("type^ t = #a (i32 -> i32) | #b\nentry f (x: i32) : t = #b", "entry point results");
    // Tuples of arrays and primitives are fine.
    super::types("entry f [n] (xs: [n]i32) (k: f32) = (xs, k, [[1]])");
}

#[test]
fn match_must_be_exhaustive() {
    let src = "def f (x: i32) = match x case 0 -> 1 case 1 -> 2";
    let e = error(src, "unmatched cases in `match`: `_` is not covered");
    assert!(text(src, e.span).starts_with("match x"));
    error(
        "type s = #a | #b | #c\ndef f (x: s) = match x case #a -> 1 case #b -> 2",
        "`#c` is not covered",
    );
    error(
        "def f (x: (bool, bool)) = match x case (true, _) -> 1 case (false, true) -> 2",
        "`(false, false)` is not covered",
    );
    error(
        "type o = #some i32 | #none\ndef f (x: o) = match x case #some 0 -> 1 case #none -> 2",
        "`(#some _)` is not covered",
    );
}

#[test]
fn constructors() {
    error("type s = #a | #b\ndef f : s = #c", "the type `#a | #b` has no constructor `#c`");
    error("type s = #a i32\ndef f : s = #a", "the constructor `#a` takes 1 values, but is given 0");
    error(
        "def f (x: i32) = match x case #a -> 1 case _ -> 2",
        "type mismatch: expected a sum type with a constructor `#a`, found `i32`",
    );
}

#[test]
fn erroneous_definitions_do_not_cascade() {
    let src = "def a = 1 + true\ndef b = a + 1\ndef c = b + undefined_thing";
    let es = errors(src);
    assert_eq!(es.len(), 2, "{es:?}");
    assert!(es[1].message.contains("unknown variable `undefined_thing`"));
}

#[test]
fn errors_point_at_user_code_not_the_prelude() {
    for src in [
        "def f = map1 (\\x -> x + 1) [true]",
        "def f = foldl (+) 0 [true]",
        "def f = tabulate 3 (\\i -> i) : [4]i64",
        "def f (xs: [3]i32) (ys: [4]i32) = map2 (+) xs ys",
        "def f = head 1",
        "def f = zip3 [1] [2] [3, 4]",
    ] {
        for e in errors(src) {
            assert!(e.span.start < crate::syntax::PRELUDE_BASE, "{src}: {e:?}");
            for l in &e.secondary {
                assert!(l.span.start < crate::syntax::PRELUDE_BASE, "{src}: {e:?}");
            }
        }
    }
}

#[test]
fn literals_must_fit_their_type() {
    let src = "def f (x: u8) = x + 300";
    let e = error(src, "literal `300` is out of range for `u8`");
    assert_eq!(text(src, e.span), "300");
    super::types("def f (x: i8) = x + (-128) + 127\ndef g (x: u8) = x + 255");
}

#[test]
fn a_definition_that_does_not_check_is_reported_once() {
    // `main`'s match on `f b` would otherwise be reported too, as matching a value of no type.
    let src = "type opt = #some i32 | #none
def f (b: bool) : opt = if b then #some true else #none
def main b = match f b case #some x -> x case #none -> 0";
    let es = errors(src);
    assert_eq!(es.len(), 1, "{es:?}");
    assert!(es[0].message.contains("expected `i32`, found `bool`"), "{}", es[0].message);
}

#[test]
fn a_type_parameter_outside_a_class_is_reported_once() {
    // Both operands of `+` have type `t`; one message says that `t` is not numeric.
    let es = errors("def f 't (y: t) = y + 1");
    assert_eq!(es.len(), 1, "{es:?}");
    assert!(es[0].message.contains("expected a numeric type, found `t`"), "{}", es[0].message);
    // Different classes are different mistakes.
    assert_eq!(errors("def g 't (y: t) = (y + y, y & y)").len(), 2);
}
