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
    let src = "entry main (xs: []f64) = vjp (\\as -> hist (\\a b -> a * b + b) 0 2 (map (\\_ -> 0) as) as) xs [1, 1]";
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
                let Ok(r) = super::gradcheck::gradcheck(&src, &e.name, None, 3, 7) else {
                    continue;
                };
                let (tol_fd, tol_modes) = if f64s { (1e-5, 1e-9) } else { (5e-2, 1e-3) };
                let name = format!("{}:{}", p.display(), e.name);
                if r.jvp_error.max(r.vjp_error) > tol_fd || r.modes_error > tol_modes {
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
