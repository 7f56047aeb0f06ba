//! AUTOMAP from source: the seed note's acceptance tests (AT-xx), the properties (conservative
//! extension over the corpus, well-typedness and forwards consistency of elaborations).

use crate::driver;
use crate::syntax;
use crate::types::{check_automap_report, check_with};
use crate::value::text::{format_value_line, parse_values};

/// The elaborated user definitions as source (what `ogham show elab` prints, less the notes).
fn elab(src: &str) -> String {
    let ast = syntax::parse(src).expect("parses");
    let (cp, reports) = check_automap_report(&ast);
    let cp =
        cp.unwrap_or_else(|e| panic!("does not check: {}", super::super::tests::render(&e, src)));
    super::print_elaborated(&cp, &reports, src)
        .lines()
        .filter(|l| !l.starts_with("-- inserted"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The elaborated text of one definition, on one line.
fn elab_def(src: &str, name: &str) -> String {
    let text = elab(src);
    let mut out = String::new();
    let mut on = false;
    for l in text.lines() {
        let starts = l.starts_with("def ") || l.starts_with("entry ");
        if starts {
            on = l.split_whitespace().nth(1) == Some(name);
        }
        if on {
            out.push(' ');
            out.push_str(l.trim());
        }
    }
    out.trim().to_string()
}

fn error(src: &str) -> String {
    let ast = syntax::parse(src).expect("parses");
    match check_with(&ast, true) {
        Ok(_) => panic!("expected an error"),
        Err(es) => es.iter().map(|e| format!("{} {}", e.message, e.hints.join(" | "))).collect(),
    }
}

fn run(src: &str, entry: &str, args: &str) -> String {
    let c =
        driver::compile(src).unwrap_or_else(|e| panic!("{}", super::super::tests::render(&e, src)));
    let args = parse_values(args).expect("values");
    let out = driver::run_interp(&c, entry, &args).unwrap_or_else(|e| panic!("{}", e.message));
    out.iter().map(format_value_line).collect::<Vec<_>>().join(" ")
}

#[test]
fn at01_scalar_function_on_a_vector_is_mapped() {
    let src = "def f (xs: []f64) = f64.sqrt xs";
    assert_eq!(elab_def(src, "f"), "def f (xs: []f64) = map (\\x0 -> f64.sqrt x0) xs");
}

#[test]
fn at02_at03_at04_vector_and_scalar_operands() {
    let src = "def a (xs: []i32) (ys: []i32) = xs + ys\n\
               entry b (xs: []i32) : []i32 = xs + 1\n\
               entry c (xs: []i32) : []i32 = 1 + xs";
    assert_eq!(
        elab_def(src, "a"),
        "def a (xs: []i32) (ys: []i32) = map2 (\\x0 x1 -> x0 + x1) xs ys"
    );
    assert_eq!(elab_def(src, "b"), "entry b (xs: []i32) : []i32 = map (\\x0 -> x0 + 1) xs");
    assert_eq!(elab_def(src, "c"), "entry c (xs: []i32) : []i32 = map (\\x0 -> 1 + x0) xs");
    assert_eq!(run(src, "b", "[3, 4, 5]"), "[4i32, 5i32, 6i32]");
    assert_eq!(run(src, "c", "[3, 4, 5]"), "[4i32, 5i32, 6i32]");
}

#[test]
fn at05_at06_at07_vectors_align_with_trailing_dimensions() {
    let src = "entry a (xss: [][]i32) (ys: []i32) : [][]i32 = xss + ys\n\
               entry b (xss: [][]i32) (ys: []i32) : [][]i32 = ys + xss\n\
               entry c (x: i32) (ys: []i32) (zss: [][]i32) : [][]i32 = x + ys + zss";
    let m = "[[1, 2], [3, 4]] [10, 20]";
    assert_eq!(run(src, "a", m), "[[11i32, 22i32], [13i32, 24i32]]");
    assert_eq!(run(src, "b", m), "[[11i32, 22i32], [13i32, 24i32]]");
    assert_eq!(run(src, "c", "3 [1, 1] [[1, 2], [3, 4]]"), "[[5i32, 6i32], [7i32, 8i32]]");
    assert!(elab_def(src, "a").contains("map (\\x0 -> map2 (\\x1 x2 -> x1 + x2) x0 ys) xss"));
}

#[test]
fn at08_tensor_times_scalar() {
    let src = "def f (a: [][][]i32) (c: i32) = a * c";
    assert_eq!(
        elab_def(src, "f"),
        "def f (a: [][][]i32) (c: i32) = map (\\x0 -> map (\\x1 -> map (\\x2 -> x2 * c) x1) x0) a"
    );
}

#[test]
fn at09_to_at12_lerp_is_scalar_and_lifted_at_its_uses() {
    let src = "def lerp v w t : f64 = v + (w - v) * t\n\
               entry a (vs: []f64) (ws: []f64) (t: f64) : []f64 = lerp vs ws t\n\
               entry b (vs: []f64) (ws: []f64) (ts: []f64) : []f64 = lerp vs ws ts\n\
               entry c (v: f64) (w: f64) (ts: []f64) : []f64 = lerp v w ts";
    assert_eq!(elab_def(src, "lerp"), "def lerp v w t : f64 = v + (w - v) * t");
    assert!(elab_def(src, "a").contains("map2 (\\x0 x1 -> lerp x0 x1 t) vs ws"));
    assert!(elab_def(src, "b").contains("map3 (\\x0 x1 x2 -> lerp x0 x1 x2) vs ws ts"));
    assert!(elab_def(src, "c").contains("map (\\x0 -> lerp v w x0) ts"));
    assert_eq!(run(src, "a", "[0.0, 10.0] [1.0, 20.0] 0.5"), "[0.5f64, 15.0f64]");
}

#[test]
fn at13_matrix_vector_product() {
    let src = "entry mv (a: [][]f64) (x: []f64) : []f64 = f64.sum (a * x)";
    assert_eq!(run(src, "mv", "[[1.0, 2.0], [3.0, 4.0]] [10.0, 100.0]"), "[210.0f64, 430.0f64]");
}

#[test]
fn at14_matrix_product_from_explicit_replicates() {
    let src = "entry mm [n][m][p] (x: [n][m]i32) (y: [m][p]i32) : [n][p]i32 =\n\
               i32.sum (transpose (replicate p x) * replicate n (transpose y))";
    assert_eq!(
        run(src, "mm", "[[1, 2], [3, 4]] [[5, 6], [7, 8]]"),
        "[[19i32, 22i32], [43i32, 50i32]]"
    );
}

#[test]
fn at15_at16_outer_product_inside_map_elementwise_outside() {
    let src = "entry o (xs: []i32) (ys: []i32) : [][]i32 = map (\\x -> x * ys) xs\n\
               entry e (xs: []i32) (ys: []i32) : []i32 = (\\x -> x * ys) xs";
    assert_eq!(
        run(src, "o", "[1, 2] [10, 20, 30]"),
        "[[10i32, 20i32, 30i32], [20i32, 40i32, 60i32]]"
    );
    assert_eq!(run(src, "e", "[1, 2, 3] [10, 20, 30]"), "[10i32, 40i32, 90i32]");
    assert!(elab_def(src, "e").contains("(\\x -> map2 (\\x0 x1 -> x0 * x1) x ys) xs"));
}

#[test]
fn at17_induced_rep_inside_explicit_map_is_unique() {
    let src = "entry f (xs: []i32) (ys: []i32) : [][]i32 = map (\\y -> xs * y) ys";
    assert!(elab_def(src, "f").contains("map (\\y -> map (\\x0 -> x0 * y) xs) ys"));
    assert_eq!(run(src, "f", "[1, 2] [10, 20]"), "[[10i32, 20i32], [20i32, 40i32]]");
}

#[test]
fn at18_sum_of_length_is_ambiguous() {
    let e = error("def main (xss: [][]i32) : i64 = i64.sum (length xss)");
    assert!(e.contains("ambiguous"), "{e}");
    assert!(e.contains("i64.sum (map (\\x0 -> length x0) xss)"), "{e}");
    assert!(e.contains("i64.sum (rep (length xss))"), "{e}");
    assert!(e.contains("annotation"), "{e}");
}

#[test]
fn at19_pipe_never_replicates_the_function() {
    // DESIGN.md: function-typed arguments are never replicated unless induced, so the thesis's
    // second candidate `pipe (indices A) (rep f)` does not exist and the map is unique.
    let src = "def pipe 'a 'b (x: a) (f: a -> b) : b = f x\n\
               def inc (x: i64) : i64 = x + 1\n\
               entry main (a: []i32) : []i64 = pipe (indices a) inc";
    assert!(elab_def(src, "main").contains("map (\\x0 -> pipe x0 inc) (indices a)"));
    assert_eq!(run(src, "main", "[7, 8, 9]"), "[1i64, 2i64, 3i64]");
}

#[test]
fn at20_outerprod_without_maps_is_application() {
    let src = "def outerprod f xs ys = (\\x -> f x ys) xs";
    assert_eq!(elab_def(src, "outerprod"), "def outerprod f xs ys = (\\x -> f x ys) xs");
}

#[test]
fn at21_unannotated_check_is_ambiguous() {
    let src = "def outerprod f xs ys = map (\\x -> f x ys) xs\n\
               def bidd A = outerprod (==) (indices A) (indices A)\n\
               def xmat A = bidd A || reverse (bidd A)\n\
               def check A = xmat A == (A != 0) |> flatten |> and";
    assert!(error(src).contains("ambiguous"));
}

/// Our `==`/`!=` are polymorphic (as in Futhark), so beyond the thesis's `(A: [][]int)` the
/// comparisons' results are annotated too (whole-array equality is otherwise a candidate).
#[test]
fn at22_annotated_check_is_the_explicit_version() {
    let src = "def outerprod 'a 'b 'c [n][m] (f: a -> b -> c) (xs: [n]a) (ys: [m]b) : [n][m]c =\n\
                 map (\\x -> map (\\y -> f x y) ys) xs\n\
               def bidd [n] (A: [n][n]i32) : [n][n]bool = outerprod (==) (indices A) (indices A)\n\
               def xmat [n] (A: [n][n]i32) : [n][n]bool = bidd A || reverse (bidd A)\n\
               entry check [n] (A: [n][n]i32) : bool =\n\
                 let nz : [n][n]bool = A != 0\n\
                 let same : [n][n]bool = xmat A == nz\n\
                 in same |> flatten |> and";
    assert_eq!(run(src, "check", "[[1, 0, 2], [0, 3, 0], [4, 0, 5]]"), "true");
    assert_eq!(run(src, "check", "[[1, 1, 2], [0, 3, 0], [4, 0, 5]]"), "false");
}

#[test]
fn at23_scalar_function_on_a_matrix() {
    let src = "def f (xss: [][]f64) = f64.sqrt xss";
    assert!(elab_def(src, "f").contains("map (\\x0 -> map (\\x1 -> f64.sqrt x1) x0) xss"));
}

#[test]
fn at24_unannotated_lambda_on_a_matrix_is_ambiguous() {
    let e = error("def f (xss: [][]f64) : [][]f64 = (\\r -> f64.sqrt r) xss");
    assert!(e.contains("ambiguous: 3"), "{e}");
}

#[test]
fn at25_no_insertion_at_array_literals() {
    let e = error("def f (xs: []i32) = [xs, 0]");
    assert!(e.contains("type mismatch"), "{e}");
}

#[test]
fn at26_identity_trick_replicates_to_the_size_of_the_context() {
    // The ILP's unique answer is `[xs, id (rep 0)]`: the rep is not induced by a map, so it is
    // materialised, at the size the array literal requires.
    let src = "entry f (xs: []i32) = [xs, id 0]";
    assert!(elab_def(src, "f").contains("[xs, id (rep 0)]"), "{}", elab_def(src, "f"));
    assert_eq!(run(src, "f", "[1, 2, 3]"), "[[1i32, 2i32, 3i32], [0i32, 0i32, 0i32]]");
    assert_eq!(run(src, "f", "empty([0]i32)"), "empty([2][0]i32)");
    // Where the context does not determine the size, the program's own error stands.
    let e = error("def f = head 1");
    assert!(e.contains("type mismatch") && e.contains("AUTOMAP: the only rank-correct"), "{e}");
    // And where the program has its own `rep`.
    let e = error("def rep (x: i32) = x\nentry h (xs: []i32) = [xs, id 0]");
    assert!(e.contains("redefines"), "{e}");
    // A written `rep` of undetermined size is reported at lowering.
    let Err(e) = driver::compile("entry g (x: i32) = id (rep x)") else {
        panic!("a rep of unknown size compiled")
    };
    assert!(e[0].message.contains("size of this replicate is not known"), "{}", e[0].message);
}

#[test]
fn at27_map_and_rep_at_one_application_is_infeasible() {
    let e = error("def f (_: [][]i32) : i32 = 0\ndef h (x: []i32) : []i32 = f x");
    assert!(e.contains("no rank-correct elaboration"), "{e}");
}

#[test]
fn at28_identity_is_instantiated_not_lifted() {
    let src = "entry f (xs: []i32) : []i32 = id xs + 1";
    assert!(elab_def(src, "f").contains("map (\\x0 -> x0 + 1) (id xs)"));
}

#[test]
fn at29_polymorphic_equality_with_a_result_type() {
    let src = "entry f [n] (xss: [n][n]i32) (ys: [n]i32) : [n][n]bool = xss == ys";
    assert_eq!(run(src, "f", "[[1, 2], [3, 4]] [1, 2]"), "[[true, true], [false, false]]");
    let e = error("def f (xss: [][]i32) (ys: []i32) = xss == ys");
    assert!(e.contains("ambiguous"), "{e}");
}

#[test]
fn at30_polymorphic_automap_definition() {
    let src = "def automap 'a 'x (f: a -> x) (as: []a) : []x = f as\n\
               entry main (xs: []i32) : []i32 = automap (+1) xs";
    assert!(elab_def(src, "automap").contains("map (\\x0 -> f x0) as"));
    assert_eq!(run(src, "main", "[0, 1, 2, 3]"), "[1i32, 2i32, 3i32, 4i32]");
}

#[test]
fn elaboration_is_deterministic() {
    let src = "def f (a: [][]f64) (x: []f64) (c: f64) = f64.sum (a * x) + c";
    let first = elab(src);
    for _ in 0..3 {
        assert_eq!(elab(src), first);
    }
}

/// The files of the corpus: examples/ and tests/programs, recursively.
fn corpus() -> Vec<(std::path::PathBuf, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "fut") {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    out.push((p, s));
                }
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    walk(&root.join("examples"), &mut out);
    walk(&root.join("tests/programs"), &mut out);
    out
}

/// Conservative extension: a program that checks with AUTOMAP off gets no insertion, and its
/// rank ILPs (solved for every definition) all have optimum 0.
#[test]
fn conservative_extension_over_the_corpus() {
    let mut checked = 0;
    for (path, src) in corpus() {
        let Ok(ast) = syntax::parse(&src) else { continue };
        if check_with(&ast, false).is_err() {
            continue;
        }
        checked += 1;
        let (_, reports) = check_automap_report(&ast);
        for r in &reports {
            assert!(r.insertions.is_empty(), "{}: `{}` got insertions", path.display(), r.name);
            assert!(
                r.result.starts_with("optimum 0"),
                "{}: `{}`: {}",
                path.display(),
                r.name,
                r.result
            );
        }
    }
    assert!(checked >= 40, "only {checked} corpus programs checked");
}

/// Well-typedness and forwards consistency: every corpus program that needs AUTOMAP elaborates to
/// source that checks with AUTOMAP off, and checking that source with AUTOMAP on inserts nothing
/// more and prints the same.
#[test]
fn elaborations_check_without_automap_and_are_fixed_points() {
    let mut elaborated = 0;
    for (path, src) in corpus() {
        let Ok(ast) = syntax::parse(&src) else { continue };
        if check_with(&ast, false).is_ok() {
            continue;
        }
        let (Ok(cp), reports) = check_automap_report(&ast) else { continue };
        if reports.iter().all(|r| r.insertions.is_empty()) {
            continue;
        }
        elaborated += 1;
        let text = super::print_elaborated(&cp, &[], &src);
        let again = syntax::parse(&text).unwrap_or_else(|e| {
            panic!("{}: elaboration does not parse: {e:?}\n{text}", path.display())
        });
        if let Err(e) = check_with(&again, false) {
            panic!(
                "{}: elaboration does not check without AUTOMAP:\n{}\n{text}",
                path.display(),
                super::super::tests::render(&e, &text)
            );
        }
        let (cp2, reports2) = check_automap_report(&again);
        let cp2 = cp2.unwrap_or_else(|_| panic!("{}: elaboration rejected", path.display()));
        assert!(reports2.iter().all(|r| r.insertions.is_empty()), "{}", path.display());
        assert_eq!(super::print_elaborated(&cp2, &[], &text), text, "{}", path.display());
    }
    assert!(elaborated >= 14, "only {elaborated} corpus programs use AUTOMAP");
}

#[test]
fn a_function_applied_to_itself_is_a_type_error_not_a_hang() {
    // Unifying `t` with `t -> t -> t` would build an infinite type; the rank analysis used to
    // unfold it until a depth limit, exponentially in the depth.
    let started = std::time::Instant::now();
    let e = error(
        "def f 't (op: t -> t -> t) (ne: t) (xs: []t) : t = ne\n\
         entry g (xs: []f32) : f32 = f f f32.max 0f32 xs",
    );
    assert!(e.contains("type mismatch"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}", started.elapsed());
}
