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
    assert!(matches!(outer(&result(ty("cat"))), Size::Var(n) if crate::types::is_invented(&n)));
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
    assert_eq!(type_of(src, "c"), "i64 -> *[]i64");
    assert_eq!(type_of(src, "d"), "[n]i32 -> *[n](i64, i32)");
    assert_eq!(type_of(src, "e"), "(n: i64) -> *[n]i64");
    assert_eq!(type_of(src, "f"), "[n₁]i32 -> (k: i64) -> [k]i32");
    assert_eq!(type_of(src, "g"), "[n₁]i32 -> [2]i32");
}
