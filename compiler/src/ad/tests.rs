//! Unit tests of differentiation: each program is compiled, validated after AD, and run.

use crate::driver;
use crate::value::text::{format_value, parse_values};

fn run(src: &str, entry: &str, args: &str) -> String {
    let c = match driver::compile(src) {
        Ok(c) => c,
        Err(d) => panic!("{}", d.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("\n")),
    };
    if let Err(e) = crate::ir::validate::validate(&c.ir) {
        panic!("invalid IR after AD: {e}\n{}", crate::ir::print::print_program(&c.ir));
    }
    let args = parse_values(args).expect("args");
    match driver::run_interp(&c, entry, &args) {
        Ok(vs) => vs.iter().map(format_value).collect::<Vec<_>>().join(" "),
        Err(d) => panic!("{}\n{}", d.message, crate::ir::print::print_program(&c.ir)),
    }
}

#[test]
fn scalar_jvp_vjp() {
    let src = "def f (x: f64) = x * x * f64.sin x
entry d (x: f64) = (jvp f x 1, vjp f x 1)";
    let r = run(src, "d", "2.0");
    let want = 2.0 * 2.0 * 2f64.sin() + 4.0 * 2f64.cos();
    assert!(r.contains(&format!("{want}")[..8]), "{r} vs {want}");
}

#[test]
fn dot_product() {
    let src = "def dot (xs: []f64, ys: []f64) = reduce (+) 0 (map2 (*) xs ys)
entry g (xs: []f64) (ys: []f64) = vjp dot (xs, ys) 1
entry t (xs: []f64) (ys: []f64) = jvp dot (xs, ys) (map (\\_ -> 1) xs, map (\\_ -> 0) ys)";
    assert_eq!(
        run(src, "g", "[1.0,2.0,3.0] [4.0,5.0,6.0]"),
        "[4.0f64, 5.0f64, 6.0f64] [1.0f64, 2.0f64, 3.0f64]"
    );
    assert_eq!(run(src, "t", "[1.0,2.0,3.0] [4.0,5.0,6.0]"), "15.0f64");
}

/// Every program in tests/ad and examples/ad compiles to IR that validates after AD.
#[test]
fn ad_programs_validate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut n = 0;
    for dir in ["tests/ad", "examples/ad"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "fut") {
                let src = std::fs::read_to_string(&p).expect("read");
                let c = driver::compile(&src)
                    .unwrap_or_else(|d| panic!("{}: {}", p.display(), d[0].message));
                if let Err(m) = crate::ir::validate::validate(&c.ir) {
                    panic!("{}: invalid IR after AD: {m}", p.display());
                }
                n += 1;
            }
        }
    }
    assert!(n > 0);
}

#[test]
fn unsupported_is_an_error_with_a_span() {
    let src = "entry main [n] (xss: [n][2]f64) =
  vjp (\\xss -> scan (\\xs ys -> [xs[0] * ys[0], xs[1] * ys[0] + ys[1]]) [1, 0] xss) xss
      (replicate n (replicate 2 1))";
    let d = driver::compile(src).expect_err("should be unsupported");
    assert!(d[0].message.starts_with("unsupported:"), "{}", d[0].message);
    assert!(d[0].span.start > 0);
}

/// Property: every differentiable entry point of the examples (float parameters and results),
/// at random inputs, has jvp and vjp that agree with central finite differences (f64: relative
/// error below 1e-5; f32: below 5e-2) and with each other (f64: 1e-9, f32: 1e-3).
#[test]
fn examples_agree_with_finite_differences() {
    use crate::prim::{FloatType, PrimType};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for dir in ["examples", "examples/ad"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_none_or(|x| x != "fut") {
                continue;
            }
            let src = std::fs::read_to_string(&p).expect("read");
            let Ok(c) = driver::compile(&src) else { continue };
            for e in &c.ir.entries {
                let fl = |t: &crate::ir::EntryType| matches!(t.elem, PrimType::Float(_));
                if !e.params.iter().any(fl)
                    || !e.results.iter().any(fl)
                    || e.name.starts_with("gradcheck")
                {
                    continue;
                }
                let f64s = e
                    .params
                    .iter()
                    .chain(&e.results)
                    .filter(|t| fl(t))
                    .all(|t| t.elem == PrimType::Float(FloatType::F64));
                // Random inputs may fall outside the domain (`f64.sqrt` of a negative): the
                // first seed whose inputs are inside it.
                let r = (7..23).find_map(|seed| {
                    match super::gradcheck::gradcheck(&src, &e.name, None, 3, seed) {
                        Err(d) if d[0].message.contains("not finite") => None,
                        r => Some(r),
                    }
                });
                let Some(Ok(r)) = r else {
                    if r.is_none() {
                        failures.push(format!(
                            "{}:{}: no inputs in its domain",
                            p.display(),
                            e.name
                        ));
                    }
                    continue;
                };
                let (tol_fd, tol_modes) = if f64s { (1e-5, 1e-9) } else { (5e-2, 1e-3) };
                let name = format!("{}:{}", p.display(), e.name);
                // Written so that a NaN error fails.
                let ok =
                    r.jvp_error <= tol_fd && r.vjp_error <= tol_fd && r.modes_error <= tol_modes;
                if !ok {
                    failures.push(format!("{name}: {r:?}"));
                }
                checked.push(name);
            }
        }
    }
    eprintln!("gradient-checked {} entry points: {checked:?}", checked.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked.len() >= 10, "only {} entry points checked: {checked:?}", checked.len());
}

/// The cost of derivatives on the reference interpreter: time(vjp) / time(primal) for a few
/// programs (`cargo test -p ogham --release -- --ignored ad_overhead --nocapture`).
#[test]
#[ignore]
fn ad_overhead_report() {
    use crate::testspec::random::Rng;
    use crate::value::{ArrayValue, Value};
    let mut rng = Rng::new(3);
    let mut arr = |shape: Vec<i64>| {
        let n = shape.iter().product::<i64>() as usize;
        let data = (0..n).map(|_| crate::prim::PrimValue::F64(rng.next_f64() - 0.5)).collect();
        Value::Array(ArrayValue::new(crate::prim::PrimType::F64, shape, data).expect("array"))
    };
    let cases: Vec<(&str, &str, Vec<Value>)> = vec![
        (
            "dot product",
            "def f [n] (xs: [n]f64, ys: [n]f64) = f64.sum (map2 (*) xs ys)
             entry primal [n] (xs: [n]f64) (ys: [n]f64) = f (xs, ys)
             entry grad [n] (xs: [n]f64) (ys: [n]f64) = vjp f (xs, ys) 1",
            vec![arr(vec![200_000]), arr(vec![200_000])],
        ),
        (
            "matmul",
            "def f [n][m][p] (a: [n][m]f64, b: [m][p]f64) =
               f64.sum (map (\\r -> f64.sum (map (\\c -> f64.sum (map2 (*) r c)) (transpose b))) a)
             entry primal [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = f (a, b)
             entry grad [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = vjp f (a, b) 1",
            vec![arr(vec![40, 40]), arr(vec![40, 40])],
        ),
        (
            "log-sum-exp",
            "def f [n] (xs: [n]f64) = let m = f64.maximum xs
               in m + f64.log (f64.sum (map (\\x -> f64.exp (x - m)) xs))
             entry primal [n] (xs: [n]f64) = f xs
             entry grad [n] (xs: [n]f64) = vjp f xs 1",
            vec![arr(vec![200_000])],
        ),
        (
            "loop (100 steps of a 1000-vector)",
            "def f [n] (xs: [n]f64) = f64.sum (loop ys = xs for _i < 100 do map (\\y -> f64.sin y * 0.9) ys)
             entry primal [n] (xs: [n]f64) = f xs
             entry grad [n] (xs: [n]f64) = vjp f xs 1",
            vec![arr(vec![1000])],
        ),
        (
            "gather",
            "def f [n][m] (is: [m]i64) (xs: [n]f64) = f64.sum (map (\\i -> xs[i] * xs[i]) is)
             entry primal [n] (xs: [n]f64) = f (map (\\i -> (i * 7) % n) (iota (2 * n))) xs
             entry grad [n] (xs: [n]f64) = vjp (f (map (\\i -> (i * 7) % n) (iota (2 * n)))) xs 1",
            vec![arr(vec![100_000])],
        ),
    ];
    for (name, src, args) in cases {
        let c = driver::compile(src).unwrap_or_else(|d| panic!("{name}: {}", d[0].message));
        let time = |e: &str| {
            let t = std::time::Instant::now();
            driver::run_interp(&c, e, &args).unwrap_or_else(|d| panic!("{name}: {}", d.message));
            t.elapsed().as_secs_f64()
        };
        let (p, g) = (time("primal").min(time("primal")), time("grad").min(time("grad")));
        eprintln!("{name}: primal {:.4}s, gradient {:.4}s, ratio {:.2}", p, g, g / p);
    }
}

/// The reverse of a `scan` with a tuple operator does O(1) work per element: no adjoint array
/// is built inside the rule's maps (a whole `replicate` per element made the gradient of
/// examples/ad/cumulative.fut quadratic), and zero Jacobian entries are not multiplied.
#[test]
fn scan_general_rule_is_linear() {
    let src = "entry g [n] (r: f64) (xs: [n]f64) =
  vjp (\\(r, xs) ->
         let (_, bs) = unzip (scan (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                                   (map (\\x -> (r, x)) xs))
         in f64.sum (map (\\b -> b * b) bs))
      (r, xs) 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    for l in ir.lines() {
        let nested = l.starts_with("   ");
        assert!(!(nested && l.contains("replicate")), "a replicate inside a lambda:\n{ir}");
        assert!(!l.contains("* 0.0f64"), "a product with a zero entry:\n{ir}");
    }
    // Only the offsets are seeded and the operator's Jacobian is diagonal: one adjoint
    // component and one matrix entry, so the recurrence scans pairs of scalars.
    let scans: Vec<&str> = ir.lines().filter(|l| l.trim_start().starts_with("scan(")).collect();
    assert_eq!(scans.len(), 2, "{ir}");
    let rec = ir.lines().find(|l| l.contains("let (rec_")).unwrap_or_else(|| panic!("{ir}"));
    assert_eq!(rec.matches(": [").count(), 2, "{rec}");
    // By hand: bs = [1, 2.5, 0.25], so the adjoints of bs are [2, 5, 0.5].
    assert_eq!(run(src, "g", "0.5 [1.0, 2.0, -1.0]"), "6.5f64 [4.625f64, 5.25f64, 0.5f64]");
}

/// Differentiating the scan rule's own maps again (a second-order derivative) also stays
/// linear: the rule reads the arrays at the top level of its maps, which reverse mode turns
/// into gathers instead of a full-size adjoint per element. By hand, with
/// `b = [x0, r x0 + x1, r² x0 + r x1 + x2]` and `dr = 2 b1 x0 + 2 b2 (2 r x0 + x1)`.
#[test]
fn scan_general_rule_second_order_is_linear() {
    let src = "def f [n] (r: f64, xs: [n]f64) =
  let (_, bs) = unzip (scan (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                            (map (\\x -> (r, x)) xs))
  in f64.sum (map (\\b -> b * b) bs)
entry h [n] (r: f64) (xs: [n]f64) =
  vjp (\\(r, xs) -> let (dr, _) = vjp f (r, xs) 1 in dr) (r, xs) 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    for l in ir.lines() {
        assert!(
            !(l.starts_with("   ") && l.contains("replicate")),
            "a replicate inside a lambda:\n{ir}"
        );
    }
    assert_eq!(run(src, "h", "0.5 [1.0, 2.0, -1.0]"), "21.0f64 [8.0f64, 5.5f64, 6.0f64]");
}

/// A scan operator's Jacobian pattern is closed under products and holds the identity, even
/// for an operator whose dependences alone are not: `(a2, a1, b1)` shifts the first
/// component along (result 2 depends on the left `b`, which depended on an earlier `a`), so
/// the scan gives `(x2, x1, x0)` at index 2 and the loss is `6 x0 + 3 x1 + x2` on 3 elements.
#[test]
fn scan_general_rule_closes_the_pattern() {
    let src = "entry g [n] (xs: [n]f64) (ys: [n]f64) (zs: [n]f64) =
  vjp (\\(xs, ys, zs) ->
         let (a, b, c) = unzip3 (scan (\\(a1, b1, _) (a2, _, _) -> (a2, a1, b1)) (0, 0, 0)
                                      (zip3 xs ys zs))
         in f64.sum (map3 (\\a b c -> a + 2 * b + 3 * c) a b c))
      (xs, ys, zs) 1";
    assert_eq!(
        run(src, "g", "[1.0, 2.0, 3.0] [0.0, 0.0, 0.0] [0.0, 0.0, 0.0]"),
        "[6.0f64, 3.0f64, 1.0f64] [0.0f64, 0.0f64, 0.0f64] [0.0f64, 0.0f64, 0.0f64]"
    );
}

/// A `map` result that is the lambda's parameter or a free variable itself passes its adjoint
/// straight on (summed for a free variable): no map re-runs the lambda to copy it.
#[test]
fn map_passes_direct_results_through() {
    let src = "entry g [n] (r: f64) (xs: [n]f64) =
  vjp (\\(r, xs) -> let (a, b) = unzip (map (\\x -> (r, x)) xs) in f64.sum (map2 (*) a b))
      (r, xs) 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    // The primal pair map and the reverse of `map2 (*)` (the primal product is dead); the pair
    // map needs no reverse.
    assert_eq!(ir.matches("map(").count(), 2, "{ir}");
    assert_eq!(run(src, "g", "2.0 [1.0, 2.0, 4.0]"), "7.0f64 [2.0f64, 2.0f64, 2.0f64]");
}

/// A free array read in a `map` lambda's branches, or by row, gets its adjoint from (index,
/// value) pairs added by a histogram, not from a full-size adjoint per element (which made the
/// gradient of examples/ad/nbody_forces.fut cubic in the number of bodies). By hand, for
/// `sum_{i < 2} (xs[i+1] ps[i][0] + sum ps[i]) + xs[2]`.
#[test]
fn gathers_in_branches_and_of_rows_are_sparse() {
    let src = "entry g [n] (xs: [n]f64) (ps: [n][3]f64) =
  vjp (\\(xs, ps) -> f64.sum (map (\\i -> if i + 1 < n then xs[i + 1] * ps[i][0] + f64.sum ps[i]
                                          else xs[i])
                                 (iota n)))
      (xs, ps) 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    for l in ir.lines() {
        let nested = l.starts_with("   ");
        assert!(
            !(nested && l.contains("replicate(") && !l.contains("replicate([3]")),
            "a full-size array inside a lambda:\n{ir}"
        );
    }
    assert!(ir.matches("hist(").count() >= 2, "{ir}");
    assert_eq!(
        run(src, "g", "[1.0, 2.0, 3.0] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]"),
        "[0.0f64, 1.0f64, 5.0f64] [[3.0f64, 1.0f64, 1.0f64],\n [4.0f64, 1.0f64, 1.0f64],\n \
         [0.0f64, 0.0f64, 0.0f64]]"
    );
}

/// Reads of distinct constant rows of an array (the gates of a stacked weight tensor) store
/// their adjoints in the rows, which are still zero, instead of adding them to those zeros; a
/// row read twice adds its second adjoint.
#[test]
fn adjoints_of_distinct_constant_rows_are_stored_not_added() {
    let src = "entry g (w: [3][2]f64) =
  vjp (\\w -> f64.sum w[0] + 2 * f64.sum w[2] + 3 * w[0][1]) w 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    // Only `w[0][1]`, whose row `w[0]` was written, reads the adjoint back.
    assert_eq!(ir.matches("let cur_").count(), 1, "{ir}");
    assert_eq!(
        run(src, "g", "[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]"),
        "[[1.0f64, 4.0f64],\n [0.0f64, 0.0f64],\n [2.0f64, 2.0f64]]"
    );
}

/// Reads of rows of constant size in a map's function come back as contributions to single
/// elements, indices computed in the function: no maps build index arrays after it.
#[test]
fn reads_of_small_rows_contribute_single_elements() {
    let src = "entry g [n] (ps: [n][3]f64) =
  vjp (\\ps -> f64.sum (map (\\i -> let j = (i + 1) % n in f64.sum ps[i] * ps[j][1]) (iota n))) ps 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    assert!(ir.contains("[6]i64") && !ir.contains("iota_i64(3i64"), "{ir}");
    // d/dps[i][k] = ps[i+1][1] (k = 0, 1, 2) + [k == 1] * sum ps[i-1].
    assert_eq!(
        run(src, "g", "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]"),
        "[[5.0f64, 20.0f64, 5.0f64],\n [2.0f64, 8.0f64, 2.0f64]]"
    );
}

/// A map whose result's adjoint is one-hot (its minimum's) is reversed at that element alone;
/// an empty array has no minimum and gets no adjoint.
#[test]
fn a_map_under_a_minimum_is_reversed_at_the_minimum_only() {
    let src = "entry g [n][k] (ps: [n]f64) (cs: [k]f64) =
  vjp (\\cs -> f64.sum (map (\\p -> f64.minimum (map (\\c -> (p - c) * (p - c)) cs)) ps)) cs 1";
    let c = driver::compile(src).unwrap_or_else(|d| panic!("{}", d[0].message));
    let ir = crate::ir::print::print_program(&c.ir);
    // The reversed distances read `cs` at the minimum's index; the only maps over `cs`'s width
    // are the re-executed distances and the sum's operator.
    assert!(ir.contains("= cs_3[ext_i"), "{ir}");
    assert_eq!(ir.matches("map(k_").count(), 2, "{ir}");
    // p = 0 is nearest c = 1 (d/dc = -2(p - c) = 2), p = 5 nearest c = 4 (-2).
    assert_eq!(run(src, "g", "[0.0, 5.0] [1.0, 4.0, 9.0]"), "[2.0f64, -2.0f64, 0.0f64]");
    assert_eq!(run(src, "g", "[0.0, 5.0] empty([0]f64)"), "empty([0]f64)");
}

/// A NaN error is the worst error, not one `max` skips.
#[test]
fn a_nan_error_is_the_worst() {
    let r = super::gradcheck::GradCheck {
        inputs: Vec::new(),
        jvp_error: 0.0,
        vjp_error: f64::NAN,
        modes_error: 1e-3,
    };
    assert!(r.worst().is_nan());
    assert!(r.worst().partial_cmp(&1e-5).is_none());
}

/// Outside a function's domain there is nothing to check: an error that says so, not a pass.
#[test]
fn a_gradient_check_outside_the_domain_is_an_error() {
    use crate::prim::PrimValue;
    use crate::value::Value;
    let src = "entry main (x: f64) = f64.sqrt x";
    let at = |x: f64| Some(vec![Value::Prim(PrimValue::F64(x))]);
    let d = super::gradcheck::gradcheck(src, "main", at(-1.0), 3, 1).expect_err("NaN result");
    assert!(d[0].message.contains("not finite"), "{}", d[0].message);
    let r = super::gradcheck::gradcheck(src, "main", at(4.0), 3, 1).expect("in the domain");
    assert!(r.worst() < 1e-6, "{r:?}");
}

/// Random inputs keep the dimensions a parameter's type writes as constants.
#[test]
fn random_inputs_keep_constant_dimensions() {
    let src = "entry main [n] (w: [2][n]f64) = f64.sum (map2 (*) w[0] w[1])";
    let r = super::gradcheck::gradcheck(src, "main", None, 5, 1).expect("runs at [2][5]");
    let crate::value::Value::Array(a) = &r.inputs[0] else { panic!("{:?}", r.inputs) };
    assert_eq!(a.shape, vec![2, 5]);
    assert!(r.worst() < 1e-6, "{r:?}");
}

/// Seed-001 §7 test 16's structural check: in the derivative of the Fig. 3.8 nest the primal
/// squares that the adjoint does not need are gone; only the adjoint's products remain.
#[test]
fn no_primal_recomputation_survives_in_the_fig38_nest() {
    let src = "entry main [n][m] (cs: [n]bool) (ass: [n][m]f64) =\n  \
               vjp (\\ass -> map2 (\\c as -> if c then as else map (\\a -> a * a) as) cs ass) ass\n      \
               (replicate n (replicate m 1))";
    let shown = driver::show_ad(src).expect("compiles");
    // A square is a product of a variable with itself.
    let squares = shown
        .lines()
        .filter_map(|l| l.split_once("= ").map(|(_, r)| r.trim()))
        .filter(|r| r.split_once(" * ").is_some_and(|(a, b)| a == b))
        .count();
    assert_eq!(squares, 0, "{shown}");
    assert_eq!(shown.matches(" * ").count(), 1, "{shown}");
}
