//! Inference: the types of well-typed programs.

use super::{check_src, type_of, types};
use crate::types::{Size, Type};

#[test]
fn prelude_checks() {
    assert_eq!(types(""), "");
}

#[test]
fn literals_and_defaulting() {
    assert_eq!(type_of("def x = 1", "x"), "i32");
    assert_eq!(type_of("def x = 1.5", "x"), "f64");
    assert_eq!(type_of("def x = 1u8", "x"), "u8");
    assert_eq!(type_of("def x = 2.0f32", "x"), "f32");
    assert_eq!(type_of("def x = true", "x"), "bool");
    // Context decides before defaulting does.
    assert_eq!(type_of("def x = 1 + 2i64", "x"), "i64");
    assert_eq!(type_of("def x = (1 / 2) : f32", "x"), "f32");
    assert_eq!(type_of("def f (y: f32) = y * 2", "f"), "f32 -> f32");
    // Overloaded operators with nothing else known default like literals.
    assert_eq!(type_of("def f x y = x + y", "f"), "i32 -> i32 -> i32");
    assert_eq!(type_of("def f x = x < 1.0", "f"), "f64 -> bool");
    assert_eq!(type_of("def f x = x & 1", "f"), "i32 -> i32");
}

#[test]
fn tuples_arrays_and_functions() {
    assert_eq!(type_of("def t = (1, 2.0, true)", "t"), "(i32, f64, bool)");
    assert_eq!(type_of("def a = [[1, 2], [3, 4]]", "a"), "[2][2]i32");
    assert_eq!(type_of("def a = [(1, true)]", "a"), "[1](i32, bool)");
    assert_eq!(type_of("def f (x: i32) (y: i32) = (y, x)", "f"), "i32 -> i32 -> (i32, i32)");
    assert_eq!(type_of("def g = \\(x: i32) -> x + 1", "g"), "i32 -> i32");
    assert_eq!(type_of("def u = ()", "u"), "()");
}

#[test]
fn let_if_and_operators() {
    let src = "
def f (x: i32) (b: bool) =
  let y = x * 2
  let z = if b && y > 3 then y else -y
  in (z == 1, !b, z % 3, z ** 2, z << 1)
";
    assert_eq!(type_of(src, "f"), "i32 -> bool -> (bool, bool, i32, i32, i32)");
}

#[test]
fn generalisation_and_instantiation() {
    let src = "
def ident x = x
def pair x y = (x, y)
def apply f x = f x
def compose f g x = g (f x)
def use = (ident 1, ident true, pair 1.0f32 (ident 2u8), apply (\\x -> x + 1) 2i64)
";
    assert_eq!(type_of(src, "ident"), "a -> a");
    assert_eq!(type_of(src, "pair"), "a -> b -> (a, b)");
    assert_eq!(type_of(src, "apply"), "(a -> b) -> a -> b");
    assert_eq!(type_of(src, "compose"), "(a -> b) -> (b -> c) -> a -> c");
    assert_eq!(type_of(src, "use"), "(i32, bool, (f32, u8), i64)");
}

#[test]
fn explicit_type_parameters() {
    let src = "def swap 'a 'b ((x, y): (a, b)) : (b, a) = (y, x)";
    assert_eq!(type_of(src, "swap"), "(a, b) -> (b, a)");
}

#[test]
fn intrinsics_and_prelude() {
    let src = "
def s (xs: []f32) = reduce (+) 0 xs
def m [n] (xs: [n]i32) = map (\\x -> f32.i32 x) xs
def z [n] (xs: [n]i32) (ys: [n]f64) = unzip (zip xs ys)
def i (n: i64) = iota n
def r (k: i64) = replicate k true
def t [n][m] (a: [n][m]f32) = transpose a
def h [n] (xs: [n]bool) = (and xs, length xs, head xs, indices xs)
def q = f32.sqrt 2 + f32.pi
";
    assert_eq!(type_of(src, "s"), "[n₁]f32 -> f32");
    assert_eq!(type_of(src, "m"), "[n]i32 -> *[n]f32");
    assert_eq!(type_of(src, "z"), "[n]i32 -> [n]f64 -> (*[n]i32, *[n]f64)");
    assert_eq!(type_of(src, "i"), "(n: i64) -> *[n]i64");
    assert_eq!(type_of(src, "r"), "(k: i64) -> *[k]bool");
    assert_eq!(type_of(src, "t"), "[n][m]f32 -> *[m][n]f32");
    assert_eq!(type_of(src, "h"), "[n]bool -> (bool, i64, bool, *[n]i64)");
    assert_eq!(type_of(src, "q"), "f32");
}

#[test]
fn matmul_with_size_parameters() {
    let src = "
def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
def matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> dotprod row col) (transpose b)) a
entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) = matmul a b
";
    assert_eq!(type_of(src, "dotprod"), "[n]f32 -> [n]f32 -> f32");
    assert_eq!(type_of(src, "matmul"), "[n][m]f32 -> [m][p]f32 -> [n][p]f32");
    assert_eq!(type_of(src, "main"), "[n][m]f32 -> [m][p]f32 -> [n][p]f32");
}

#[test]
fn use_sites_are_instantiated() {
    let src = "def f (xs: [3]i32) = map (\\x -> x + 1) xs";
    let cp = check_src(src).unwrap();
    let d = cp.program.decs.last().unwrap();
    let crate::syntax::ast::Dec::Val(v) = d else { panic!() };
    // The body is `map (...) xs`; its function is the Var node `map`.
    let crate::syntax::ast::ExprKind::Apply(f, _) = &v.body.kind else { panic!() };
    let crate::syntax::ast::ExprKind::Apply(map, _) = &f.kind else { panic!() };
    let t = &cp.expr_types[&map.id];
    let expected = "(i32 -> i32) -> [3]i32 -> *[3]i32";
    assert_eq!(crate::types::print::show_type(t, &[]), expected);
}

#[test]
fn size_parameters_are_i64_values() {
    let src = "def len [n] 't (_: [n]t) = n";
    assert_eq!(type_of(src, "len"), "[n]t -> i64");
    let cp = check_src(src).unwrap();
    let crate::syntax::ast::Dec::Val(v) = cp.program.decs.last().unwrap() else { panic!() };
    assert_eq!(cp.expr_types[&v.body.id], Type::Prim(crate::prim::PrimType::I64));
    assert_eq!(cp.schemes.last().unwrap().as_ref().unwrap().size_params, vec!["n".to_string()]);
}

#[test]
fn existential_sizes() {
    let src = "
def pos (xs: []i32) = filter (> 0) xs
def both [n] (xs: [n]i32) = (filter (> 0) xs, filter (< 0) xs)
def cat [n][m] (xs: [n]i32) (ys: [m]i32) = xs ++ ys
def pick [n][m] (b: bool) (xs: [n]i32) (ys: [m]i32) = if b then xs else ys
def same [n] (b: bool) (xs: [n]i32) (ys: [n]i32) = if b then xs else ys
";
    let cp = check_src(src).unwrap();
    let ty = |name: &str| {
        let i = cp
            .program
            .decs
            .iter()
            .rposition(|d| matches!(d, crate::syntax::ast::Dec::Val(v) if v.name == name))
            .unwrap();
        cp.schemes[i].clone().unwrap().ty
    };
    let result = |t: Type| {
        let mut t = t;
        while let Type::Arrow { to, .. } = t {
            t = *to;
        }
        t
    };
    let outer = |t: &Type| match t {
        Type::Array { shape, .. } => shape[0].clone(),
        _ => panic!("not an array: {t}"),
    };
    // Each application of filter has its own unknown size.
    let Type::Tuple(ts) = result(ty("both")) else { panic!() };
    let (a, b) = (outer(&ts[0]), outer(&ts[1]));
    assert!(matches!(&a, Size::Var(n) if crate::types::is_invented(n)), "{a}");
    assert_ne!(a, b);
    // A concatenation's size is the sum of its operands'.
    assert_eq!(outer(&result(ty("cat"))).to_string(), "m + n");
    assert!(matches!(outer(&result(ty("pick"))), Size::Var(n) if crate::types::is_invented(&n)));
    assert_eq!(outer(&result(ty("same"))), Size::Var("n".into()));
}

#[test]
fn dependent_application_sizes() {
    let src = "
def a (n: i64) (x: f32) = replicate n x
def b (x: f32) = replicate 3 x
def c (n: i64) = iota (n + 1)
def d [n] (xs: [n]i32) = zip (iota n) xs
def e (n: i64) = 0..<n
def f (xs: []i32) (k: i64) = xs[:k]
def g (xs: []i32) = xs[0:2]
";
    assert_eq!(type_of(src, "a"), "(n: i64) -> f32 -> *[n]f32");
    assert_eq!(type_of(src, "b"), "f32 -> *[3]f32");
    assert_eq!(type_of(src, "c"), "(n: i64) -> *[n + 1]i64");
    assert_eq!(type_of(src, "d"), "[n]i32 -> *[n](i64, i32)");
    assert_eq!(type_of(src, "e"), "(n: i64) -> *[n]i64");
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> (k: i64) -> [k]i32");
    assert_eq!(type_of(src, "g"), "[n₁]i32 -> [2]i32");
}

#[test]
fn records() {
    let src = "
type point = {x: f32, y: f32}
def mk (a: f32) (b: f32) : point = {y = b, x = a}
def norm (p: point) = f32.sqrt (p.x * p.x + p.y * p.y)
def move (p: point) = p with x = p.x + 1
def swap ({x, y}: point) : point = {x = y, y = x}
def short (x: i32) (y: bool) = {x, y}
def nested = let r = {a = {b = 1i8}} in (r.a.b, r with a.b = 2)
def field_later = (\\r -> r.x) {x = 1u16}
def tuple_fields (t: (i32, f64)) = (t.0, t.1)
";
    assert_eq!(type_of(src, "mk"), "f32 -> f32 -> {x: f32, y: f32}");
    assert_eq!(type_of(src, "norm"), "{x: f32, y: f32} -> f32");
    assert_eq!(type_of(src, "move"), "{x: f32, y: f32} -> {x: f32, y: f32}");
    assert_eq!(type_of(src, "swap"), "{x: f32, y: f32} -> {x: f32, y: f32}");
    assert_eq!(type_of(src, "short"), "i32 -> bool -> {x: i32, y: bool}");
    assert_eq!(type_of(src, "nested"), "(i8, {a: {b: i8}})");
    assert_eq!(type_of(src, "field_later"), "u16");
    assert_eq!(type_of(src, "tuple_fields"), "(i32, f64) -> (i32, f64)");
}

#[test]
fn arrays_of_records_and_tuples() {
    let src = "
def xs (ps: []{x: f32, y: f32}) = map (.x) ps
def firsts (ps: [](i32, bool)) = map (.0) ps
def build (n: i64) = map (\\i -> {i, sq = i * i}) (iota n)
";
    assert_eq!(type_of(src, "xs"), "[n₁]{x: f32, y: f32} -> *[n₁]f32");
    assert_eq!(type_of(src, "firsts"), "[n₁](i32, bool) -> *[n₁]i32");
    assert_eq!(type_of(src, "build"), "(n: i64) -> *[n]{i: i64, sq: i64}");
}

#[test]
fn type_abbreviations() {
    let src = "
type vec [n] = [n]f32
type pair 'a 'b = (a, b)
type mat [n][m] = [n](vec [m])
def add [n] (a: vec [n]) (b: vec [n]) : vec [n] = map2 (+) a b
def fst 'a 'b (p: pair a b) : a = p.0
def row [n][m] (a: mat [n][m]) (i: i64) : vec [m] = a[i]
";
    assert_eq!(type_of(src, "add"), "[n]f32 -> [n]f32 -> [n]f32");
    assert_eq!(type_of(src, "fst"), "(a, b) -> a");
    assert_eq!(type_of(src, "row"), "[n][m]f32 -> i64 -> [m]f32");
}

#[test]
fn sections() {
    let src = "
def a = (+) 1 2
def b = map (2 *) [1, 2, 3]
def c = map (/ 2.0) [1.0, 2.0]
def d = (|>) 1i64 (+ 1)
def e (x: i32) = (x -) 3
def f (x: i32) = (`i32.max` x)
def g = (.a.b) {a = {b = true}}
def h = (<) 1u8
def k (x: i32) (y: i32) = x `i32.max` y
def l = (++) [1] [2]
";
    assert_eq!(type_of(src, "a"), "i32");
    assert_eq!(type_of(src, "b"), "*[3]i32");
    assert_eq!(type_of(src, "c"), "*[2]f64");
    assert_eq!(type_of(src, "d"), "i64");
    assert_eq!(type_of(src, "e"), "i32 -> i32");
    assert_eq!(type_of(src, "f"), "i32 -> i32 -> i32");
    assert_eq!(type_of(src, "g"), "bool");
    assert_eq!(type_of(src, "h"), "u8 -> bool");
    assert_eq!(type_of(src, "k"), "i32 -> i32 -> i32");
    assert_eq!(type_of(src, "l"), "*[]i32");
}

#[test]
fn higher_order_functions_and_pipes() {
    let src = "
def twice 'a (f: a -> a) (x: a) = f (f x)
def sum (xs: []f64) = xs |> map (* 2) |> reduce (+) 0
def comp = (f32.sqrt >-> f32.abs) 4
def comp2 = (f32.sqrt <-< f32.abs) 4
def back (xs: []i32) = length <| filter (> 0) xs
def flipped = flip (-) 1 10
def folded (xs: []i32) = (foldl (+) 0 xs, foldr (\\x acc -> acc * 2 + x) 0 xs)
def curried = (curry (\\(a, b) -> a + b) 1 2, uncurry (+) (3, 4))
def consts = map (const 1) [true, false]
def tab = tabulate_2d 2 3 (\\i j -> f64.i64 (i * j))
def anyall (xs: []i32) = (any (> 0) xs, all (> 0) xs, or (map (> 1) xs))
";
    assert_eq!(type_of(src, "twice"), "(a -> a) -> a -> a");
    assert_eq!(type_of(src, "sum"), "[n₁]f64 -> f64");
    assert_eq!(type_of(src, "comp"), "f32");
    assert_eq!(type_of(src, "comp2"), "f32");
    assert_eq!(type_of(src, "back"), "[n₁]i32 -> i64");
    assert_eq!(type_of(src, "flipped"), "i32");
    assert_eq!(type_of(src, "folded"), "[n₁]i32 -> (i32, i32)");
    assert_eq!(type_of(src, "curried"), "(i32, i32)");
    assert_eq!(type_of(src, "consts"), "*[2]i32");
    assert_eq!(type_of(src, "tab"), "*[2][3]f64");
    assert_eq!(type_of(src, "anyall"), "[n₁]i32 -> (bool, bool, bool)");
}

#[test]
fn loops() {
    let src = "
def fact (n: i32) = loop acc = 1 for i < n do acc * (i + 1)
def sum (xs: []f32) = loop s = 0 for x in xs do s + x
def collatz (n: i64) = loop (n, steps) = (n, 0i32) while n != 1 do (if n % 2 == 0 then n / 2 else 3 * n + 1, steps + 1)
def from_scope (x: i32) = let y = x in loop y for i < 3 do y * 2
def pairs (xs: [](i32, i32)) = loop acc = 0 for (a, b) in xs do acc + a * b
def small (n: i8) = loop i = 0 for j < n do i + j
";
    assert_eq!(type_of(src, "fact"), "i32 -> i32");
    assert_eq!(type_of(src, "sum"), "[n₁]f32 -> f32");
    assert_eq!(type_of(src, "collatz"), "i64 -> (i64, i32)");
    assert_eq!(type_of(src, "from_scope"), "i32 -> i32");
    assert_eq!(type_of(src, "pairs"), "[n₁](i32, i32) -> i32");
    assert_eq!(type_of(src, "small"), "i8 -> i8");
}

#[test]
fn match_and_constructors() {
    let src = "
type shape = #circle f32 | #rect f32 f32
def area (s: shape) = match s case #circle r -> 3.14 * r * r case #rect w h -> w * h
def mk (b: bool) : shape = if b then #circle 1 else #rect 1 2
def lit (x: i32) = match x case 0 -> 10 case 1 -> 20 case _ -> 30
def tup (p: (i32, bool)) = match p case (0, _) -> 1 case (x, true) -> x case (_, false) -> 3
def inferred (x: i32) = match (if x > 0 then #some x else #none) case #some y -> y case #none -> 0
";
    assert_eq!(type_of(src, "area"), "(#circle f32 | #rect f32 f32) -> f32");
    assert_eq!(type_of(src, "mk"), "bool -> #circle f32 | #rect f32 f32");
    assert_eq!(type_of(src, "lit"), "i32 -> i32");
    assert_eq!(type_of(src, "tup"), "(i32, bool) -> i32");
    assert_eq!(type_of(src, "inferred"), "i32 -> i32");
}

#[test]
fn local_functions() {
    let src = "
def f (x: i32) =
  let sq (y: i32) = y * y
  let add a b = a + b
  in add (sq x) 1
def g (xs: []f32) =
  let scale (k: f32) = map (* k) xs
  in (scale 2, scale 3)
";
    assert_eq!(type_of(src, "f"), "i32 -> i32");
    assert_eq!(type_of(src, "g"), "[n₁]f32 -> (*[n₁]f32, *[n₁]f32)");
}

#[test]
fn shadowing() {
    let src = "
def x : i32 = 100
def f (y: f32) : f32 = y + 2
def length [n] 't (_: [n]t) : i32 = 3
def main (x: f64) = (x, f 1, length [1, 2])
";
    assert_eq!(type_of(src, "main"), "f64 -> (f64, f32, i32)");
}

#[test]
fn assertions_and_ascriptions() {
    let src = "def f (x: i32) = assert (x > 0) (x : i32)";
    assert_eq!(type_of(src, "f"), "i32 -> i32");
}

#[test]
fn constraints_can_be_printed() {
    let p = crate::syntax::parse("def f (x: i32) = x + 1").unwrap();
    let text = crate::types::print_constraints(&p);
    assert!(text.starts_with("f:\n"), "{text}");
    assert!(text.contains("in a numeric type"), "{text}");
}
