use super::*;
use crate::syntax::tests::CORPUS;
use crate::syntax::{parse, parse_expr, strip};
use expect_test::{expect, expect_file, Expect};

/// The printed form of every fixture, checked in under `testdata/printed/` (update with
/// `UPDATE_EXPECT=1 cargo test`).
#[test]
fn corpus_snapshots() {
    for (name, src) in CORPUS {
        let p = parse(src).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        expect_file![format!("../testdata/printed/{name}")].assert_eq(&print_program(&p));
    }
}

#[track_caller]
fn check(src: &str, expected: Expect) {
    let e = parse_expr(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    let out = print_expr(&e);
    expected.assert_eq(&out);
    let again = parse_expr(&out).unwrap_or_else(|d| panic!("{out}: {d:?}"));
    assert!(strip::same_expr(&e, &again), "{out}");
}

/// Canonical text prints as itself: no parenthesis is added or lost.
#[track_caller]
fn same(src: &str) -> Option<String> {
    let e = parse_expr(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    let out = print_expr(&e);
    (out != src).then(|| format!("{src}  printed as  {out}"))
}

#[test]
fn minimal_parentheses() {
    let bad = [
        "a - b - c",
        "a - (b - c)",
        "(a + b) * c",
        "a + b * c ** d",
        "a ** (b ** c)",
        "a ** b ** c",
        "-x * y",
        "-(x * y)",
        "-x ** 2",
        "-f x",
        "!(a && b)",
        "f x y",
        "f (g x) y",
        "(f x).0",
        "x.0.1",
        "a[i].f",
        "(f x)[i]",
        "a[i:j:2, ::-1]",
        "f <| g <| x",
        "(f <| g) <| x",
        "a |> f |> g",
        "a |> (f |> g)",
        "x `max` y `max` z",
        "a + b |> f",
        "a + (b |> f)",
        "a with [i] = x + 1",
        "a with [i] = b with [j] = c",
        "a with [i] = (b with [j] = c)",
        "r with f.g = 1",
        "0..<n",
        "1..2...10",
        "(0..<n) ++ [n]",
        "f x : i32",
        "(x : i32) + 1",
        "(+)",
        "(-)",
        "(+ 1)",
        "(2 *)",
        "(.f.g)",
        "(`max` 1)",
        "f (-1)",
        "a - -1",
        "- -x",
        "! -x",
        "- !x",
        "!(a == b)",
        "#some x y",
        "f #none",
        "(#some x).0",
        "(1).0",
        "({a = 1})[0]",
        "(f32).sqrt",
        "f32.sqrt x",
        "1 + if c then a else b",
        "(if c then a else b) + 1",
        "f (\\x -> x)",
        "\\x -> \\y -> x + y",
        "(\\x -> x) >-> f",
        "f >-> \\x -> x",
        "assert c x + 1",
        "(x, y, (z,))",
        "{x = 1, y, z = (a, b)}",
        "[1, 2.5f32, 3i8, true]",
    ]
    .into_iter()
    .filter_map(same)
    .collect::<Vec<_>>();
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn layout_of_lets() {
    check(
        "let x = 1 let (a, b) = (x, 2) let f y = y + a let xs[0] = b in f x",
        expect![[r#"
            let x = 1
            let (a, b) = (x, 2)
            let f y = y + a
            let xs[0] = b
            in f x"#]],
    );
    check(
        "let x = (let y = 1 in y) in x + (let z = 2 in z)",
        expect![[r#"
            let x =
              let y = 1
              in y
            in x + let z = 2
                   in z"#]],
    );
}

#[test]
fn layout_of_ifs() {
    check("if a then b else c", expect!["if a then b else c"]);
    check(
        "if a then let x = 1 in x else if b then 2 else let y = 3 in y",
        expect![[r#"
            if a
            then let x = 1
                 in x
            else if b
            then 2
            else let y = 3
                 in y"#]],
    );
}

#[test]
fn layout_of_loops_and_matches() {
    check("loop acc = 0 for i < n do acc + i", expect!["loop acc = 0 for i < n do acc + i"]);
    check(
        "loop (x, y) = (0, 1) while x < 10 do let z = x + y in (y, z)",
        expect![[r#"
            loop (x, y) = (0, 1) while x < 10 do
              let z = x + y
              in (y, z)"#]],
    );
    check(
        "match x case #a y -> y case (1, -2) -> 0 case (z: i32) -> z",
        expect![[r#"
            match x
            case #a y -> y
            case (1, -2) -> 0
            case (z: i32) -> z"#]],
    );
    // A `match` in a case that is not the last needs parentheses.
    check(
        "match x case 1 -> (match y case 2 -> 3 case _ -> 4) case _ -> 5",
        expect![[r#"
            match x
            case 1 ->
              (match y
               case 2 -> 3
               case _ -> 4)
            case _ -> 5"#]],
    );
}

#[test]
fn layout_of_lambdas() {
    check(
        "map (\\x -> let y = x + 1 in y * y) xs",
        expect![[r#"
            map (\x ->
              let y = x + 1
              in y * y) xs"#]],
    );
}

#[test]
fn types_and_patterns() {
    let ty = |s: &str| {
        let (_, t) = crate::syntax::parse_val_spec(s, 0).unwrap_or_else(|d| panic!("{s}: {d:?}"));
        print_type_exp(&t)
    };
    for src in [
        "i32 -> i32 -> i32",
        "(i32 -> i32) -> i32",
        "(x: i64) -> [x]f32",
        "?[n][m].[n][m]f32",
        "(?[n].[n]f32) -> i32",
        "*[]i32",
        "[n](i32, f32)",
        "[n](a -> b)",
        "vec [n] f32",
        "pair i32 ([3]f32)",
        "pair (vec [n] f32) i32",
        "#a | #b i32 ([n]f32) | #c (t i32)",
        "{a: i32, b: {c: [2]u8}}",
        "()",
        "(i32,)",
        "[]t u",
    ] {
        assert_eq!(ty(src), src);
    }
    let pat = |s: &str| {
        let e = parse_expr(&format!("let {s} = x in x")).unwrap();
        let ExprKind::Let { pat, .. } = &e.kind else { panic!() };
        print_pat(pat)
    };
    for src in [
        "(a, b)",
        "{x, y = (a, _), z: i32}",
        "x: [n]i32",
        "#some (x: i32)",
        "#pair (#a x) -1",
        "((a, b), {c})",
    ] {
        assert_eq!(pat(src), src);
    }
}

#[test]
fn declarations_print_with_docs() {
    let p = parse(
        "-- The answer.\n--\n-- Documented.\nentry main [n][m] 'a '~b '^c (x: i32) : i32 = x\ntype~ t [n] 'a = ?[k].[k]a",
    )
    .unwrap();
    expect![[r#"
        -- The answer.
        --
        -- Documented.
        entry main [n][m] 'a '~b '^c (x: i32) : i32 = x

        type~ t [n] 'a = ?[k].[k]a
    "#]]
    .assert_eq(&print_program(&p));
}

#[test]
fn literals() {
    for (src, out) in [
        ("1e-7", "1e-7"),
        ("1e100", "1e100"),
        ("0.1f32", "0.1f32"),
        ("3f64", "3.0f64"),
        ("0xffu8", "255u8"),
        ("1_000i64", "1000i64"),
    ] {
        assert_eq!(print_expr(&parse_expr(src).unwrap()), out);
    }
}
