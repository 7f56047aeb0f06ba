//! Uniqueness: in-place updates consume their array, which may then not be used; only arrays that
//! nothing else needs may be consumed.

use super::{error, text, type_of, types};

#[test]
fn updates_of_fresh_and_unique_arrays() {
    let src = "
def a (xs: *[]i32) = xs with [0] = 1
def b (n: i64) = let xs = iota n in let xs[0] = 5 in xs
def c (xs: []i32) = let ys = copy xs in ys with [0] = 1
def d (xs: *[]i32) = let ys = xs in ys with [1] = 2
def e [n] (xs: *[n]i32) : *[n]i32 = scatter xs [0] [1]
def f (n: i64) = loop acc = replicate n 0 for i < n do acc with [i] = i32.i64 i
def g (xs: *[]i32) = let xs = xs with [0] = 1 in xs[0]
def h (m: i64) = let a = replicate m (replicate m 0f32) in a with [0, 0] = 1
def k (xs: *[](i32, f32)) = xs with [0] = (1, 2)
def l (xs: *[]i32) = xs with [0:2] = [7, 8]
";
    types(src);
    assert_eq!(type_of(src, "a"), "*[n₁]i32 -> *[n₁]i32");
    assert_eq!(type_of(src, "e"), "*[n]i32 -> *[n]i32");
}

#[test]
fn copies_of_lambda_parameters_leave_them_usable() {
    // `copy`'s result is unique; the parameter's inferred type must not become unique with it.
    let src = "def f [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\r -> scatter (copy r) (iota m) r) xss
def g [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\\r -> let c = copy r in let c[0] = 5 in map2 (+) c r) xss";
    types(src);
}

#[test]
fn use_after_consumption() {
    let src = "def f (xs: *[]i32) : i32 =\n  let ys = xs with [0] = 1\n  in xs[0] + ys[0]";
    let e = error(src, "`xs` is used after being consumed by an in-place update");
    assert_eq!(text(src, e.span), "xs");
    assert_eq!(e.span.start as usize, src.find("xs[0]").unwrap());
    assert_eq!(e.secondary[0].message, "consumed here");
    assert_eq!(e.secondary[0].span.start as usize, src.find("xs with").unwrap());
}

#[test]
fn use_through_an_alias_after_consumption() {
    let src =
        "def f (n: i64) = let a = iota n in let b = a in let c = b with [0] = 1 in a[0] + c[0]";
    let e = error(src, "`a` is used after being consumed");
    assert_eq!(text(src, e.span), "a");
}

#[test]
fn let_with_consumes() {
    let src = "def f (n: i64) = let a = iota n in let b = a in let a[0] = 1 in b[0]";
    error(src, "`b` is used after being consumed by an in-place update");
}

#[test]
fn consuming_a_nonunique_parameter() {
    let src = "def f (xs: []i32) = xs with [0] = 1";
    let e = error(src, "cannot consume `xs`: `xs` is a parameter that is not unique");
    assert_eq!(text(src, e.span), "xs");
    assert!(e.hints[0].contains("*[]i32"), "{:?}", e.hints);
    let src = "def f (xs: []i32) = let ys = xs in ys with [0] = 1";
    error(src, "cannot consume `ys`: `ys` aliases the parameter `xs`, which is not unique");
}

#[test]
fn passing_to_a_unique_parameter_consumes() {
    let src = "def f [n] (xs: *[n]i32) = let ys = scatter xs [0] [1] in (xs[0], ys)";
    error(src, "`xs` is used after being consumed by passing it to `scatter`");
    let src = "def f [n] (xs: [n]i32) = scatter xs [0] [1]";
    error(src, "cannot consume `xs`");
}

#[test]
fn consuming_free_variables_in_functions_and_loops() {
    let src = "def f (xs: *[]i32) = map (\\i -> (xs with [i] = 0)[0]) (iota 3)";
    error(src, "cannot consume `xs` inside a function: it is bound outside it");
    let src = "def f (xs: *[]i32) = loop s = 0 for i < 3 do let ys = xs with [i] = 1 in s + ys[0]";
    error(src, "cannot consume `xs` in a loop body: it is bound outside the loop");
}

#[test]
fn loops_consume_their_initial_value_when_updating_it() {
    let src = "def f (xs: []i32) = loop ys = xs for i < 2 do ys with [i] = 0";
    error(src, "cannot consume `xs`");
    let src = "def f (xs: *[]i32) = let ys = loop ys = xs for i < 2 do ys with [i] = 0 in (ys, xs)";
    error(src, "`xs` is used after being consumed by the loop");
    let src = "def f (xs: *[]i32) = let r = loop ys = xs for i < 2 do ys with [i] = 0 in r[0]";
    types(src);
}

#[test]
fn branches_consume_independently() {
    let src = "def f (b: bool) (xs: *[]i32) = if b then xs with [0] = 1 else xs";
    types(src);
    let src =
        "def f (b: bool) (xs: *[]i32) = let ys = if b then xs with [0] = 1 else copy xs in xs";
    error(src, "`xs` is used after being consumed");
}

#[test]
fn global_arrays_cannot_be_consumed() {
    let src = "def g = [1, 2, 3]\ndef f = g with [0] = 5";
    error(src, "cannot consume the top-level definition `g`");
}

#[test]
fn unique_results_must_not_alias_parameters() {
    let src = "def f (xs: []i32) : *[]i32 = xs";
    error(src, "the result of `f` is declared unique, but it may alias the parameter `xs`");
    types("def f (xs: *[]i32) : *[]i32 = xs");
    types("def f (xs: []i32) : *[]i32 = copy xs");
    // `*` on a sum type makes its payloads' arrays unique.
    let sum = "type^ sum = #foo ([]i32) | #bar ([]i32)\n";
    types(&format!("{sum}def get (v: *sum) : *[]i32 = match v case #foo a -> a case #bar a -> a"));
    error(
        &format!("{sum}def get (v: sum) : *[]i32 = match v case #foo a -> a case #bar a -> a"),
        "the result of `get` is declared unique, but it may alias the parameter `v`",
    );
}

#[test]
fn closures_alias_what_they_capture() {
    let src = "def f (n: i64) = let a = iota n in let g = \\(i: i64) -> a[i] in let b = a with [0] = 1 in g 0 + b[0]";
    error(src, "`g` is used after being consumed");
}

#[test]
fn tuple_parameters_consume_their_unique_components() {
    types("def f ((a, b): (*[]i32, []i32)) = (a with [0] = 1, b[0])");
    let src = "def g ((a, b): (*[]i32, []i32)) = a\ndef h (xs: *[]i32) (ys: []i32) = let r = g (xs, copy ys) in (r, xs)";
    error(src, "`xs` is used after being consumed by passing it to `g`");
    // A tuple written out as the argument is consumed by component, as in Futhark.
    types("def g ((a, b): (*[]i32, []i32)) = a\ndef h (xs: *[]i32) (ys: []i32) = (g (xs, ys), ys)");
    let src = "def g ((a, b): (*[]i32, []i32)) = a\ndef h (xs: *[]i32) (ys: []i32) = g (ys, xs)";
    error(src, "cannot consume `ys`: `ys` is a parameter that is not unique");
    // A tuple passed whole is consumed whole.
    let src = "def g ((a, b): (*[]i32, []i32)) = a\ndef h (xs: *[]i32) (ys: []i32) = let p = (xs, ys) in g p";
    error(src, "cannot consume `p`: `p` aliases the parameter `ys`, which is not unique");
}

#[test]
fn update_values_must_not_alias_the_array() {
    let src = "def f (xss: *[][]i32) = xss with [0] = xss[1]";
    let e = error(src, "the value written by an in-place update may alias the array it updates");
    assert_eq!(text(src, e.span), "xss[1]");
    types("def f (xss: *[][]i32) = xss with [0] = copy xss[1]");
    types("def f (xs: *[]i32) = xs with [0] = xs[1]");
}
