//! The prelude type-checks, and its types are what Futhark's documentation says (modulo size
//! arithmetic, for which the prelude returns existential sizes).

use expect_test::expect;

use super::check_src;
use crate::types::print;

#[test]
fn prelude_types() {
    let cp = check_src("").unwrap_or_else(|es| panic!("{}", super::render(&es, "")));
    assert_eq!(cp.prelude_decs, cp.program.decs.len());
    expect![[r#"
        id : a -> a
        const : a -> b -> a
        flip : (a -> b -> c) -> b -> a -> c
        curry : ((a, b) -> c) -> a -> b -> c
        uncurry : (a -> b -> c) -> (a, b) -> c
        iterate : i32 -> (a -> a) -> a -> a
        iterate_until : (a -> bool) -> (a -> a) -> a -> a
        iterate_while : (a -> bool) -> (a -> a) -> a -> a
        zip2 : [n]a -> [n]b -> *[n](a, b)
        unzip2 : [n](a, b) -> ([n]a, [n]b)
        map1 : (a -> x) -> [n]a -> *[n]x
        map2 : (a -> b -> x) -> [n]a -> [n]b -> *[n]x
        map3 : (a -> b -> c -> x) -> [n]a -> [n]b -> [n]c -> *[n]x
        map4 : (a -> b -> c -> d -> x) -> [n]a -> [n]b -> [n]c -> [n]d -> *[n]x
        map5 : (a -> b -> c -> d -> e -> x) -> [n]a -> [n]b -> [n]c -> [n]d -> [n]e -> *[n]x
        length : [n]t -> i64
        null : [n]t -> bool
        sized : (n: i64) -> [m]t -> [n]t
        manifest : t -> t
        opaque : t -> t
        flatten_3d : [n][m][l]t -> [l*m*n]t
        flatten_4d : [n][m][l][k]t -> [k*l*m*n]t
        head : [n]t -> t
        last : [n]t -> t
        tail : [n]t -> [n - 1]t
        init : [n]t -> [n - 1]t
        take : (i: i64) -> [n]t -> [i]t
        drop : (i: i64) -> [n]t -> [n - i]t
        split : (i: i64) -> [n]t -> ([i]t, [n - i]t)
        reverse : [n]t -> [n]t
        rotate : i64 -> [n]t -> [n]t
        indices : [n]t -> *[n]i64
        exscan : (a -> a -> a) -> a -> [n]a -> *[n]a
        foldl : (a -> b -> a) -> a -> [n]b -> a
        foldr : (b -> a -> a) -> a -> [n]b -> a
        tabulate : (n: i64) -> (i64 -> a) -> *[n]a
        tabulate_2d : (n: i64) -> (m: i64) -> (i64 -> i64 -> a) -> *[n][m]a
        tabulate_3d : (n: i64) -> (m: i64) -> (o: i64) -> (i64 -> i64 -> i64 -> a) -> *[n][m][o]a
        all : (a -> bool) -> [n]a -> bool
        any : (a -> bool) -> [n]a -> bool
        and : [n]bool -> bool
        or : [n]bool -> bool
        partition2 : (a -> bool) -> (a -> bool) -> [n]a -> ([]a, []a, []a)
        spread : (k: i64) -> t -> [n]i64 -> [n]t -> *[k]t
        map_stream : ((k: i64) -> [k]a -> [k]b) -> [n]a -> *[n]b
        map_stream_per : ((k: i64) -> [k]a -> [k]b) -> [n]a -> *[n]b
        reduce_stream : (b -> b -> b) -> ((k: i64) -> [k]a -> b) -> [n]a -> b
        reduce_stream_per : (b -> b -> b) -> ((k: i64) -> [k]a -> b) -> [n]a -> b
        reduce_by_index_2d : *[k][m]a -> (a -> a -> a) -> a -> [n](i64, i64) -> [n]a -> *[k][m]a
        reduce_by_index_3d : *[k][m][l]a -> (a -> a -> a) -> a -> [n](i64, i64, i64) -> [n]a -> *[k][m][l]a
    "#]]
    .assert_eq(&print::print_prelude(&cp));
}

#[test]
fn prelude_nodes_are_numbered_after_the_users() {
    let src = "def f (x: i32) = x + 1";
    let user = crate::syntax::parse(src).unwrap();
    let cp = check_src(src).unwrap();
    assert!(cp.program.next_id >= user.next_id);
    // Every prelude expression has a type, under an id of its own.
    let max_user = user.next_id;
    assert!(cp.expr_types.keys().any(|id| id.0 >= max_user));
    assert!(cp.expr_types.keys().all(|id| id.0 < cp.program.next_id));
}

#[test]
fn every_intrinsic_signature_converts() {
    let g = crate::types::env::Globals::new(crate::types::prelude::parse_sig);
    for i in crate::intrinsics::all() {
        assert!(g.lookup(&i.name).is_some(), "{}: {:?}", i.name, g.sig_errors.borrow());
    }
    assert!(g.sig_errors.borrow().is_empty());
}

#[test]
fn deep_nesting_fits_a_small_stack() {
    // Near the deepest trees the parser accepts (`syntax::MAX_DEPTH`), checked on a wasm-sized
    // stack (the parse itself runs on a large one).
    let rep = |s: &str, n: usize| s.repeat(n);
    let programs = [
        format!("def f (x: i32) = {}x{}", rep("(x + ", 126), rep(")", 126)),
        format!("def g (x: i32) = {}x", rep("let x = x + 1 in ", 250)),
        format!("def h = {}1i32", rep("\\(x: i32) -> ", 120)),
        format!("def k = {}1{}", rep("[", 126), rep("]", 126)),
        format!("def l (b: bool) = {}1{}", rep("if b then 0 else (", 60), rep(")", 60)),
    ];
    for src in programs {
        let p = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || crate::syntax::parse(&src))
            .unwrap()
            .join()
            .unwrap()
            .unwrap_or_else(|e| panic!("{:?}", e[0].message));
        let h = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || crate::types::check(&p).map(|_| ()).map_err(|e| format!("{e:?}")))
            .unwrap();
        h.join().expect("stack overflow or panic").unwrap();
    }
}

#[test]
fn print_checked_shows_user_definitions() {
    let src = "
type point = {x: f32, y: f32}
def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)
def norm (p: point) = f32.sqrt (p.x * p.x + p.y * p.y)
def positives (xs: []i32) = filter (> 0) xs
def pair x y = (x, y)
entry main [n] (xs: [n]f32) : f32 = dotprod xs xs
";
    let cp = check_src(src).unwrap();
    expect![[r#"
        dotprod : [n]f32 -> [n]f32 -> f32
        norm : {x: f32, y: f32} -> f32
        positives : [n₁]i32 -> *[]i32
        pair : a -> b -> (a, b)
        entry main : [n]f32 -> f32
    "#]]
    .assert_eq(&print::print_checked(&cp));
}
