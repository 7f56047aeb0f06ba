//! Stack use per nesting level of every stage, measured: each stage runs on generated nested
//! programs in a thread with a given stack, in a child process (an overflow aborts the process),
//! and the smallest stack that suffices is found by bisection at two depths; the slope is the cost
//! of one level. It lives here because the checker's sub-stages are private to `types`.
//!
//! `cargo test -p ogham --lib stack_report -- --ignored --nocapture` (add `--release` for the
//! release profile). `OGHAM_STACK_SHAPES` / `OGHAM_STACK_STAGES` (comma-separated) select rows and
//! columns, `OGHAM_STACK_DEPTHS=40,120` the two depths. The numbers behind `syntax::MAX_DEPTH`.

use std::collections::HashMap;
use std::process::Command;

use crate::syntax::ast::{Dec, Program};
use crate::types::alias::AliasCheck;
use crate::types::env::Globals;
use crate::types::gen::Gen;
use crate::types::generalise::{convert_table, generalise};
use crate::types::ity::Store;
use crate::types::restrict::Restrict;
use crate::types::solve::Solver;
use crate::value::Value;

/// Programs nested `d` levels deep in one way each; every one has `entry main (x: i32)`.
pub(crate) fn shape(name: &str, d: usize) -> Option<String> {
    let r = |s: &str, n: usize| s.repeat(n);
    let body = match name {
        "parens" => format!("{}x{}", r("(x + ", d), r(")", d)),
        "lambdas" => format!("{}y{}", r("(\\(y: i32) -> ", d), r(") x", d)),
        "ifs" => format!("{}x{}", r("if x > 0 then (", d), r(") else x", d)),
        "elseifs" => format!("{}x", r("if x == 0 then 0 else ", d)),
        "letnest" => format!("{}x{}", r("let y = (", d), r(") in y + 1", d)),
        "maps" => format!("{}y{}", r("reduce (+) 0 (map (\\(y: i32) -> ", d), r(") [x])", d)),
        "arrays" => format!("{}x{}", r("[", d), r("]", d)),
        "records" => format!("({}x{}){}", r("{a = ", d), r("}", d), r(".a", d)),
        "tuples" => format!("({}x{}){}", r("(", d), r(", 1)", d), r(".0", d)),
        "neg" => format!("{}x", r("- ", d)),
        "loops" => format!("{}y + 1{}", r("loop y = x for i < 1 do (", d), r(")", d)),
        "matches" => format!("{}x{}", r("match x case 0 -> 0 case _ -> (", d), r(")", d)),
        "letchain" => format!("{}x", r("let x = x + 1 in ", d)),
        "opchain" => format!("x{}", r(" + 1", d)),
        "pipes" => format!("x{}", r(" |> (+1)", d)),
        "calls" => {
            let mut s = "def f0 (x: i32) = x + 1\n".to_string();
            for i in 1..=d {
                s.push_str(&format!("def f{i} (x: i32) = f{} x + 1\n", i - 1));
            }
            return Some(format!("{s}entry main (x: i32) = f{d} x\n"));
        }
        "inlined" => {
            let mut s = "def g0 (f: i32 -> i32) (x: i32) = f x\n".to_string();
            for i in 1..=d {
                s.push_str(&format!("def g{i} (f: i32 -> i32) (x: i32) = g{} f x\n", i - 1));
            }
            return Some(format!("{s}entry main (x: i32) = g{d} (+1) x\n"));
        }
        _ => return None,
    };
    Some(format!("entry main (x: i32) = {body}\n"))
}

pub(crate) const SHAPES: &[&str] = &[
    "parens", "lambdas", "ifs", "elseifs", "letnest", "maps", "arrays", "records", "tuples", "neg",
    "loops", "matches", "letchain", "opchain", "pipes", "calls", "inlined",
];

const STAGES: &[&str] = &[
    "parse", "print", "clone", "drop", "gen", "solve", "alias", "restrict", "check", "lower",
    "validate", "irprint", "interp",
];

/// Run `f` on a thread with `size` bytes of stack.
fn on_stack<T: Send + 'static>(size: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    match std::thread::Builder::new().stack_size(size).spawn(f).map(|h| h.join()) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => std::panic::resume_unwind(e),
        Err(e) => panic!("cannot spawn: {e}"),
    }
}

/// Exit code of a child whose stage rejected the input (an error value, not a crash).
const REJECTED: i32 = 3;

fn reject(what: String) -> ! {
    println!("REJECTED {what}");
    std::process::exit(REJECTED)
}

fn parse(src: &str) -> Program {
    crate::syntax::parse(src).unwrap_or_else(|ds| reject(format!("parse: {}", ds[0].message)))
}

fn checked(p: &Program) -> crate::types::CheckedProgram {
    crate::types::check(p).unwrap_or_else(|ds| reject(format!("check: {}", ds[0].message)))
}

fn lowered(p: &Program) -> crate::ir::Program {
    let cp = checked(p);
    crate::ir::lower::lower(&cp).unwrap_or_else(|ds| reject(format!("lower: {}", ds[0].message)))
}

/// The pieces of checking the last definition of `p` alone (no prelude: the shapes use only
/// intrinsics), up to `upto`; the stage `upto` itself runs on a `small` stack.
fn checker_stage(p: Program, upto: &'static str, small: usize) {
    fn last(p: &Program) -> &crate::syntax::ast::ValDec {
        match p.decs.last() {
            Some(Dec::Val(v)) => v,
            _ => reject("no definition".into()),
        }
    }
    if upto == "gen" {
        return on_stack(small, move || {
            let g = Globals::new(crate::types::prelude::parse_sig);
            let mut gen = Gen::new(&g, Store::default());
            gen.def(last(&p));
        });
    }
    let g = Globals::new(crate::types::prelude::parse_sig);
    let mut gen = Gen::new(&g, Store::default());
    let typing = gen.def(last(&p));
    let Gen { mut store, cs, expr_ty, pat_ty, .. } = gen;
    if upto == "solve" {
        return on_stack(small, move || {
            let mut s = Solver::new(&mut store);
            s.solve(cs);
        });
    }
    let mut solver = Solver::new(&mut store);
    solver.solve(cs);
    let app_unique = std::mem::take(&mut solver.app_unique);
    let all: Vec<_> = expr_ty.values().chain(pat_ty.values()).collect();
    let g = generalise(&mut store, &typing, &all, &mut Vec::new());
    let (mut types, mut pats) = (HashMap::new(), HashMap::new());
    convert_table(&store, &expr_ty, &g.quantified, &mut types);
    convert_table(&store, &pat_ty, &g.quantified, &mut pats);
    let scheme = g.out_scheme;
    on_stack(small, move || {
        let v = last(&p);
        if upto == "alias" {
            AliasCheck::new(&types, &pats, &app_unique).def(v);
        } else {
            let mut r = Restrict { types: &types, pats: &pats, names: &[], errors: Vec::new() };
            r.def(v, &scheme);
            r.expr(&v.body);
        }
    })
}

/// One measurement, in this (child) process: `stage` on `shape` at `depth` with `small` bytes.
fn run_child(stage: &'static str, src: String, small: usize) {
    let big = 1 << 30;
    on_stack(big, move || match stage {
        "parse" => drop(on_stack(small, move || parse(&src))),
        "print" => {
            let p = parse(&src);
            drop(on_stack(small, move || (crate::syntax::printer::print_program(&p), p)));
        }
        "clone" => {
            let p = parse(&src);
            drop(on_stack(small, move || (p.clone(), p)));
        }
        "drop" => {
            let p = parse(&src);
            on_stack(small, move || drop(p));
        }
        "gen" | "solve" | "alias" | "restrict" => checker_stage(parse(&src), stage, small),
        "check" => {
            let p = parse(&src);
            drop(on_stack(small, move || (crate::types::check(&p), p)));
        }
        "lower" => {
            let cp = checked(&parse(&src));
            drop(on_stack(small, move || (crate::ir::lower::lower(&cp), cp)));
        }
        "validate" => {
            let ir = lowered(&parse(&src));
            drop(on_stack(small, move || (crate::ir::validate::validate(&ir), ir)));
        }
        "irprint" => {
            let ir = lowered(&parse(&src));
            drop(on_stack(small, move || (crate::ir::print::print_program(&ir), ir)));
        }
        "interp" => {
            let ir = lowered(&parse(&src));
            let r = on_stack(small, move || {
                let args = [Value::Prim(crate::prim::PrimValue::I32(1))];
                (crate::interp::run_entry(&ir, "main", &args).map_err(|d| d.message), ir)
            });
            if let Err(m) = r.0 {
                reject(format!("interp: {m}"));
            }
        }
        _ => panic!("unknown stage {stage}"),
    });
}

/// The child's side: does nothing unless the parent set `OGHAM_STACK_CHILD`.
#[test]
#[ignore]
fn stack_child() {
    let Ok(spec) = std::env::var("OGHAM_STACK_CHILD") else { return };
    let parts: Vec<&str> = spec.split(':').collect();
    let [stage, shape_name, depth, small] = parts[..] else { panic!("bad spec {spec}") };
    let stage: &'static str = STAGES.iter().find(|s| **s == stage).expect("stage");
    let src = shape(shape_name, depth.parse().expect("depth")).expect("shape");
    run_child(stage, src, small.parse().expect("size"));
}

enum Outcome {
    Ok,
    Overflow,
    Rejected(String),
    Failed(String),
}

fn try_once(stage: &str, shape: &str, depth: usize, size: usize) -> Outcome {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args(["--ignored", "--exact", "types::tests::stack::stack_child", "--nocapture"])
        .env("OGHAM_STACK_CHILD", format!("{stage}:{shape}:{depth}:{size}"))
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return Outcome::Ok;
    }
    if out.status.code() == Some(REJECTED) {
        let line = stdout.lines().find(|l| l.starts_with("REJECTED")).unwrap_or("REJECTED");
        return Outcome::Rejected(line.trim_start_matches("REJECTED ").to_string());
    }
    if stderr.contains("has overflowed its stack") {
        return Outcome::Overflow;
    }
    Outcome::Failed(format!("{:?}: {}", out.status, stderr.lines().last().unwrap_or("")))
}

/// The smallest stack (to 4 KiB) that `stage` needs on `shape` at `depth`, or why there is none.
fn min_stack(stage: &str, shape: &str, depth: usize) -> Result<usize, String> {
    const STEP: usize = 4 << 10;
    let mut hi = 256 << 10;
    loop {
        match try_once(stage, shape, depth, hi) {
            Outcome::Ok => break,
            Outcome::Overflow if hi < 1 << 30 => hi *= 4,
            Outcome::Overflow => return Err("overflows 1 GiB".into()),
            Outcome::Rejected(m) => return Err(format!("rejected ({m})")),
            Outcome::Failed(m) => return Err(format!("failed ({m})")),
        }
    }
    let mut lo = 16 << 10; // the smallest thread stack worth trying
    while hi - lo > STEP {
        let mid = (lo + (hi - lo) / 2) / STEP * STEP;
        match try_once(stage, shape, depth, mid) {
            Outcome::Ok => hi = mid,
            _ => lo = mid,
        }
    }
    Ok(hi)
}

fn env_list(var: &str, default: &[&'static str]) -> Vec<String> {
    match std::env::var(var) {
        Ok(s) => s.split(',').map(str::to_string).collect(),
        Err(_) => default.iter().map(|s| s.to_string()).collect(),
    }
}

/// Bytes of stack per level, per shape and stage (see the module comment).
#[test]
#[ignore]
fn stack_report() {
    let shapes = env_list("OGHAM_STACK_SHAPES", SHAPES);
    let stages = env_list("OGHAM_STACK_STAGES", STAGES);
    let depths: Vec<usize> = env_list("OGHAM_STACK_DEPTHS", &["40", "120"])
        .iter()
        .map(|s| s.parse().expect("depth"))
        .collect();
    let (d1, d2) = (depths[0], depths[1]);
    println!("bytes of stack per level (from depth {d1} to {d2}); base = stack at depth {d1}");
    for shape in &shapes {
        for stage in &stages {
            let cell = match (min_stack(stage, shape, d1), min_stack(stage, shape, d2)) {
                (Ok(a), Ok(b)) => {
                    format!(
                        "{:>6} B/level  base {:>5} KiB",
                        (b.saturating_sub(a)) / (d2 - d1),
                        a >> 10
                    )
                }
                (Err(e), _) | (_, Err(e)) => e,
            };
            println!("{shape:>9} {stage:>9}: {cell}");
        }
    }
}
