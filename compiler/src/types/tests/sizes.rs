//! Size-dependent types: size parameters, dependent application, existentials, size errors.

use super::{error, text, type_of};
use crate::diag::Phase;

#[test]
fn size_parameters_are_rigid_and_instantiated_per_use() {
    let src = "
def dot [n] (xs: [n]f32) (ys: [n]f32) = reduce (+) 0 (map2 (*) xs ys)
def two [n][m] (xs: [n]f32) (ys: [m]f32) = dot xs xs + dot ys ys
";
    assert_eq!(type_of(src, "dot"), "[n]f32 -> [n]f32 -> f32");
    assert_eq!(type_of(src, "two"), "[n]f32 -> [m]f32 -> f32");
}

#[test]
fn inferred_size_parameters() {
    let src = "def g xs = map (+ 1i32) xs";
    assert_eq!(type_of(src, "g"), "[n₁]i32 -> *[n₁]i32");
    let src = "def h xs ys = zip xs (map (+ 1i32) ys)";
    assert_eq!(type_of(src, "h"), "[n₁]a -> [n₁]i32 -> *[n₁](a, i32)");
}

#[test]
fn anonymous_sizes_in_parameters_are_inferred() {
    let src = "def f (xs: []i32) (ys: []i32) = xs";
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> [n₂]i32 -> [n₁]i32");
    // Futhark would reject this (each `[]` is a distinct size parameter); we infer equal sizes.
    let src = "def f (xs: []i32) (ys: []i32) = zip xs ys";
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> [n₁]i32 -> *[n₁](i32, i32)");
    // A parameter's size cannot be a variable of the body.
    let src = "def g (xs: []i32) = let n = length xs in xs : [n]i32";
    let e = error(src, "size mismatch: a parameter's size would be `n`, which is only in scope inside the function");
    assert_eq!(text(src, e.span), "g");
}

#[test]
fn literal_and_variable_arguments_give_sizes() {
    let src = "
def a (x: f32) = replicate 3 x
def b (k: i64) = (iota k, tabulate k (\\i -> i * 2))
def c (k: i64) = replicate (k + 1) 0i32
def d = let n = 4 in iota n
";
    assert_eq!(type_of(src, "a"), "f32 -> *[3]f32");
    assert_eq!(type_of(src, "b"), "(k: i64) -> (*[k]i64, *[k]i64)");
    assert_eq!(type_of(src, "c"), "(k: i64) -> *[k + 1]i32");
    // `n` goes out of scope: the size becomes existential.
    assert_eq!(type_of(src, "d"), "*[]i64");
}

#[test]
fn let_bound_sizes_in_annotations() {
    let src = "
def f (xs: []i32) =
  let n = length xs
  let ys = xs :> [n]i32
  let zs = map (* 2) ys : [n]i32
  in zip zs (iota n)
";
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> *[](i32, i64)");
    // A parameter's size is not a local variable's.
    let src = "def g [m] (xs: [m]i32) = let n = length xs in xs : [n]i32";
    error(src, "size mismatch: expected size `n`, found size `m`");
}

#[test]
fn existentials_from_filter_and_branches_computed_sizes_from_concat_and_flatten() {
    let src = "
def f [n] (xs: [n]i32) = filter (> 0) xs
def g [n][m] (xs: [n]i32) (ys: [m]i32) = xs ++ ys
def h [n][m] (b: bool) (xs: [n]i32) (ys: [m]i32) = if b then xs else ys
def k [n] (b: bool) (xs: [n]i32) = if b then xs else map (+ 1) xs
def p [n] (xs: [n]i32) = partition (> 0) xs
def q [n][m] (xss: [n][m]i32) = flatten xss
def r [n] (xs: [n]i32) = (tail xs, init xs, drop 1 xs, take 2 xs)
";
    assert_eq!(type_of(src, "f"), "[n]i32 -> *[]i32");
    assert_eq!(type_of(src, "g"), "[n]i32 -> [m]i32 -> *[m + n]i32");
    assert_eq!(type_of(src, "h"), "bool -> [n]i32 -> [m]i32 -> []i32");
    assert_eq!(type_of(src, "k"), "bool -> [n]i32 -> [n]i32");
    assert_eq!(type_of(src, "p"), "[n]i32 -> ([]i32, []i32)");
    assert_eq!(type_of(src, "q"), "[n][m]i32 -> [m*n]i32");
    assert_eq!(type_of(src, "r"), "[n]i32 -> ([n - 1]i32, [n - 1]i32, [n - 1]i32, [2]i32)");
}

#[test]
fn two_filters_have_different_sizes() {
    let src = "def f [n] (xs: [n]i32) = zip (filter (> 0) xs) (filter (< 0) xs)";
    let e = error(src, "size mismatch");
    assert_eq!(e.phase, Phase::Size);
    assert!(
        e.hints.iter().any(|h| h.contains("the size of the result of `filter`")),
        "{:?}",
        e.hints
    );
    assert!(e.hints.iter().any(|h| h.contains(":>")), "{:?}", e.hints);
}

#[test]
fn coercions_change_sizes() {
    let src = "
def f [n] (xs: [n]i32) = filter (> 0) xs :> [n]i32
def g [n] (xs: [n]i32) = zip xs (filter (> 0) xs :> [n]i32)
";
    assert_eq!(type_of(src, "f"), "[n]i32 -> *[n]i32");
    assert_eq!(type_of(src, "g"), "[n]i32 -> *[n](i32, i32)");
}

#[test]
fn slices_and_ranges() {
    let src = "
def s [n] (xs: [n]f32) (k: i64) = (xs[:k], xs[0:k], xs[:], xs[1:], xs[::2], xs[:3])
def r (n: i64) = (0..<n, 0..<5, 1..3, 0..2..<10, 1..<n)
def r32 (n: i32) = 0..<n
";
    assert_eq!(
        type_of(src, "s"),
        "[n]f32 -> (k: i64) -> ([k]f32, [k]f32, [n]f32, [n - 1]f32, []f32, [3]f32)"
    );
    assert_eq!(type_of(src, "r"), "(n: i64) -> (*[n]i64, *[5]i32, *[3]i32, *[]i32, *[]i64)");
    // A range of `i32` has no `i64` size: existential.
    assert_eq!(type_of(src, "r32"), "i32 -> *[]i32");
}

#[test]
fn loops_with_changing_sizes() {
    let src = "
def grow (n: i64) = loop acc = [0] for i < n do acc ++ [i]
def same [n] (xs: [n]i32) = loop ys = xs for i < 3 do map (+ 1) ys
def shrink [n] (xs: [n]i32) = loop ys = xs while length ys > 1 do ys[1:]
";
    assert_eq!(type_of(src, "grow"), "i64 -> *[]i64");
    assert_eq!(type_of(src, "same"), "[n]i32 -> [n]i32");
    assert_eq!(type_of(src, "shrink"), "[n]i32 -> []i32");
}

#[test]
fn loops_whose_branches_change_sizes() {
    // A branch that keeps the loop parameter and one that grows it: the size changes.
    let src = r"
def grow (xs: []i32) = loop acc = [] for x in xs do if x < 0 then acc else acc ++ [x]
def nested (xs: []i32) =
  loop (acc, k) = ([], 0) for x in xs do
    if x == 0 then (acc, k) else if x < 0 then (acc, k + 1) else (acc ++ [x], k)
def inner (n: i64) =
  loop b = iota 10 for i < n do
    let m = i * 3 in if m < length b then b else map (\j -> j + b[j % length b]) (iota m)
def keep [n] (xs: [n]i32) =
  loop acc = replicate n 0 for i < 3 do if i == 0 then replicate n 1 else map (+ 1) acc
def keep_nested [n] (xs: [n]i32) =
  loop acc = xs for i < 3 do if i == 1 then acc else if i == 2 then map (* 2) acc else xs
";
    assert_eq!(type_of(src, "grow"), "[n₁]i32 -> *[]i32");
    assert_eq!(type_of(src, "nested"), "[n₁]i32 -> (*[]i32, i32)");
    assert_eq!(type_of(src, "inner"), "i64 -> *[]i64");
    // Every branch is the parameter or the initial size: the size stays.
    assert_eq!(type_of(src, "keep"), "[n]i32 -> *[n]i32");
    assert_eq!(type_of(src, "keep_nested"), "[n]i32 -> [n]i32");
}

#[test]
fn a_coercion_gives_the_sizes_its_expression_leaves_unknown() {
    let src = "
def f (row: [4]i64) = unflatten (row :> [2 * 2]i64) :> [2][2]i64
def g (xs: []i32) = xs :> [3]i32
def h [n] (xs: [n]i32) = (filter (> 0) xs :> [n]i32)
";
    assert_eq!(type_of(src, "f"), "[4]i64 -> [2][2]i64");
    // A parameter's size is the argument's: the coercion checks it at run time.
    assert_eq!(type_of(src, "g"), "[n₁]i32 -> [3]i32");
    assert_eq!(type_of(src, "h"), "[n]i32 -> *[n]i32");
}

#[test]
fn loop_parameter_annotations_fix_sizes() {
    let src = "def f [n] (xs: [n]i32) = loop (ys: [n]i32) = xs for i < 3 do filter (> 0) ys";
    let e = error(src, "size mismatch: expected size `n`, found size `k");
    assert_eq!(text(src, e.span), "filter (> 0) ys");
}

#[test]
fn size_binders_in_let() {
    let src = "def f (xs: []i32) = let [m] (ys: [m]i32) = filter (> 0) xs in (m, ys)";
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> (i64, *[]i32)");
    let src = "def g (xs: []i32) = let [m] (ys: [m]i32) = filter (> 0) xs in zip ys (iota m)";
    assert_eq!(type_of(src, "g"), "[n₁]i32 -> *[](i32, i64)");
}

#[test]
fn dependent_functions_as_values() {
    let src = "
def mk = \\(n: i64) -> replicate n 0f32
def use (k: i64) = mk k
def irregular = map (\\n -> iota n) [1, 2]
";
    assert_eq!(type_of(src, "mk"), "(n: i64) -> *[n]f32");
    assert_eq!(type_of(src, "use"), "(k: i64) -> *[k]f32");
    assert_eq!(type_of(src, "irregular"), "*[2][]i64");
}

#[test]
fn local_functions_with_size_parameters() {
    let src = "
def f [n][m] (xs: [n]i32) (ys: [m]i32) =
  let dot [k] (a: [k]i32) (b: [k]i32) = reduce (+) 0 (map2 (*) a b)
  in dot xs xs + dot ys ys
";
    assert_eq!(type_of(src, "f"), "[n]i32 -> [m]i32 -> i32");
}

#[test]
fn return_existentials_hide_sizes() {
    let src = "
def f [n] (xs: [n]i32) : []i32 = xs
def g [n] (xs: [n]i32) : ?[k].[k]i32 = xs
";
    assert_eq!(type_of(src, "f"), "[n]i32 -> []i32");
    assert_eq!(type_of(src, "g"), "[n]i32 -> []i32");
    let src = format!("{src}\ndef h [n] (xs: [n]i32) = zip (f xs) (f xs)");
    let e = error(
        &src,
        "size mismatch: `zip` expects arguments of the same length, but argument 1 has size `k",
    );
    assert_eq!(e.phase, Phase::Size);
}

#[test]
fn mismatched_size_parameters() {
    let src = "def f [n][m] (xs: [n]i32) (ys: [m]i32) = map2 (+) xs ys";
    let e = error(src, "size mismatch: `map2` expects arguments of the same length, but `xs` has size `n` and `ys` has size `m`");
    assert_eq!(text(src, e.span), "ys");
    assert_eq!(text(src, e.secondary[0].span), "xs");
    assert_eq!(e.secondary[0].message, "`xs` has size `n`");
}

#[test]
fn mismatched_constant_sizes() {
    let src = "def f = map2 (+) [1, 2, 3] [4, 5]";
    let e = error(src, "size mismatch");
    assert!(e.message.contains("has size 3") && e.message.contains("has size 2"), "{}", e.message);
    assert_eq!(text(src, e.span), "[4, 5]");
}

#[test]
fn inner_dimensions_must_match() {
    let src = "
def matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\r -> map (\\c -> reduce (+) 0 (map2 (*) r c)) (transpose b)) a
def bad [n][m] (a: [n][m]f32) (b: [n][m]f32) = matmul a b
";
    let e = error(src, "size mismatch: `matmul` expects arguments of matching sizes, but `a` has size `m` and `b` has size `n`");
    assert_eq!(text(src, e.span), "b");
}

#[test]
fn return_type_sizes() {
    let src = "def f [n][m] (xs: [n]i32) (ys: [m]i32) : [n]i32 = map (+ 1) ys";
    let e = error(src, "size mismatch: expected size `n`, found size `m`");
    assert_eq!(text(src, e.span), "map (+ 1) ys");
    assert_eq!(e.secondary[0].message, "the return type is declared `[n]i32`");
}

#[test]
fn ascription_sizes() {
    let src = "def f [n] (xs: [n]i32) = xs : [3]i32";
    let e = error(src, "size mismatch: expected size 3, found size `n`");
    assert_eq!(text(src, e.span), "xs");
    assert_eq!(text(src, e.secondary[0].span), "[3]i32");
}

#[test]
fn size_parameters_must_be_used() {
    let src = "def f [n] (x: i32) = x";
    let e = error(src, "the size parameter `n` is not the size of any parameter");
    assert_eq!(text(src, e.span), "[n]");
}

#[test]
fn sizes_must_be_known_names() {
    let src = "def f (xs: [n]i32) = xs";
    let e = error(src, "unknown size `n`");
    assert_eq!(text(src, e.span), "[n]");
    let src = "def f (x: f32) (xs: [x]i32) = xs";
    error(src, "type mismatch: expected `i64`, found `f32`");
}

#[test]
fn computed_sizes_are_equal_as_polynomials() {
    let src = "
def pad [n] (xs: [n]i32) : [n+2]i32 = [0] ++ xs ++ [0]
def grid [n][m] (xs: [n][m]i32) : [n*m+n]i32 = flatten (map (\\r -> r ++ [0]) xs)
def twice [n] (xs: [n]i32) : [2*n]i32 = xs ++ xs
def drop_one [n] (xs: [n+1]i32) (ys: [n]i32) : [n]i32 = map2 (+) (tail xs) ys
def use_drop [m] (a: [m]i32) = drop_one (a ++ [1]) a
";
    assert_eq!(type_of(src, "pad"), "[n]i32 -> [n + 2]i32");
    assert_eq!(type_of(src, "grid"), "[n][m]i32 -> [m*n + n]i32");
    assert_eq!(type_of(src, "twice"), "[n]i32 -> [2*n]i32");
    // `drop_one`'s `n` is solved from `xs` first (`n + 1 = m + 1`), then checked against `ys`.
    assert_eq!(type_of(src, "use_drop"), "[m]i32 -> [m]i32");
    // Unknown sizes that would cancel are not solved for (`n₂ = 0` here would be an accident).
    error("def g xs ys = zip (xs ++ ys) (xs : []i32)", "size mismatch");
    let e = error("def f [n] (xs: [n]i32) : [n+1]i32 = xs ++ xs", "size mismatch");
    assert!(e.message.contains("`n + 1`") && e.message.contains("`2*n`"), "{}", e.message);
}

#[test]
fn computed_sizes_of_rebound_names_are_not_computed() {
    // The two `i`s would print alike, so the slices' sizes are not `n - i`.
    let src = "def f [n] (xs: [n]f32) (i: i64) = let a = xs[i:] let i = i + 1 in (a, xs[i:])";
    assert_eq!(type_of(src, "f"), "[n]f32 -> i64 -> ([]f32, []f32)");
    let src = "def g [n] (xs: [n]f32) (i: i64) = xs[i:]";
    assert_eq!(type_of(src, "g"), "[n]f32 -> (i: i64) -> [n - i]f32");
    // The parameters of sibling lambdas never meet: each `iota k` has the size `k`.
    let src = "def h (xs: []i64) =
      (map (\\k -> i64.sum (map2 (*) (iota k) (replicate k 2))) xs,
       map (\\k -> i64.sum (zip (iota (k+1)) (iota k ++ [0]) |> map (.0))) xs)";
    assert_eq!(type_of(src, "h"), "[n₁]i64 -> (*[n₁]i64, *[n₁]i64)");
}

#[test]
fn sizes_built_by_repeated_application_stay_small() {
    // Squaring a size doubles it at every step; past a bound the size is existential, and
    // checking stays fast.
    let mut src = String::from(
        "def sq [n] (xs: [n]i32) : [n*n]i32 = flatten (map (\\_ -> xs) xs)\n\
         def inc [n] (xs: [n]i32) : [n+1]i32 = xs ++ [0]\n\
         def main [n] (xs: [n]i32) =\n  let a0 = xs\n",
    );
    for i in 1..200 {
        let f = if i % 2 == 1 { "sq" } else { "inc" };
        src.push_str(&format!("  let a{i} = {f} a{}\n", i - 1));
    }
    src.push_str("  in a199\n");
    let t = type_of(&src, "main");
    assert!(t.starts_with("[n]i32 -> ") && t.len() < 1000, "{t}");
}

#[test]
fn existential_results_are_quantified_where_they_repeat() {
    let src = "
def two (xs: []i32) = let ys = filter (> 0) xs in (ys, ys)
def one (xs: []i32) = filter (> 0) xs
def evens [n] (xs: [n]i32) : ?[k].[k*2]i32 = let k = n / 2 in xs[0:k*2]
";
    let t = type_of(src, "two");
    assert!(t.starts_with("[n₁]i32 -> ?[k"), "{t}");
    assert_eq!(type_of(src, "one"), "[n₁]i32 -> *[]i32");
    let t = type_of(src, "evens");
    assert!(t.starts_with("[n]i32 -> ?[k") && t.contains("].[2*k"), "{t}");
}
