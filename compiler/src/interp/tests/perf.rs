//! Speed of typical programs (run with `cargo test --release -- --ignored perf`); the ordinary
//! test runs use small sizes.

use super::builder::*;
use crate::ir::{BinOp, DimIndex, Exp, LoopForm};
use crate::prim::IntType;
use crate::value::Value;

/// `map (\row -> map (\col -> reduce (+) 0 (map2 (*) row col)) (transpose b)) a` on `[n][n]f32`.
fn matmul(n: i64) -> Prog {
    let mut p = Prog::new();
    let a = p.param("a", arr(F32, &[c(n), c(n)]));
    let bm = p.param("b", arr(F32, &[c(n), c(n)]));
    let (av, bv) = (a.var, bm.var);
    let mut b = p.body();
    let bt = b.let1("bt", arr(F32, &[c(n), c(n)]), Exp::Rearrange { arr: bv, perm: vec![1, 0] });
    let row = b.param("row", arr(F32, &[c(n)]));
    let rv = row.var;
    let mut rb = b.sub();
    let col = rb.param("col", arr(F32, &[c(n)]));
    let cv = col.var;
    let mut cb = rb.sub();
    let x = cb.param("x", t(F32));
    let y = cb.param("y", t(F32));
    let (xv, yv) = (x.var, y.var);
    let mut mb = cb.sub();
    let prod = mb.let1("prod", t(F32), Exp::BinOp(BinOp::Mul, F32, v(xv), v(yv)));
    let mul = lambda(vec![x, y], mb.finish(vec![v(prod)]), vec![t(F32)]);
    let prods =
        cb.let1("prods", arr(F32, &[c(n)]), Exp::Map { w: k64(n), lam: mul, arrs: vec![rv, cv] });
    let s = cb.param("s", t(F32));
    let z = cb.param("z", t(F32));
    let (sv, zv) = (s.var, z.var);
    let mut ab = cb.sub();
    let sum = ab.let1("sum", t(F32), Exp::BinOp(BinOp::Add, F32, v(sv), v(zv)));
    let add = lambda(vec![s, z], ab.finish(vec![v(sum)]), vec![t(F32)]);
    let dot = cb.let1(
        "dot",
        t(F32),
        Exp::Reduce {
            w: k64(n),
            lam: add,
            neutral: vec![kf32(0.0)],
            arrs: vec![prods],
            commutative: true,
        },
    );
    let inner = lambda(vec![col], cb.finish(vec![v(dot)]), vec![t(F32)]);
    let out_row =
        rb.let1("out_row", arr(F32, &[c(n)]), Exp::Map { w: k64(n), lam: inner, arrs: vec![bt] });
    let outer = lambda(vec![row], rb.finish(vec![v(out_row)]), vec![arr(F32, &[c(n)])]);
    let r =
        b.let1("r", arr(F32, &[c(n), c(n)]), Exp::Map { w: k64(n), lam: outer, arrs: vec![av] });
    let body = b.finish(vec![v(r)]);
    p.fun("matmul", vec![a, bm], vec![arr(F32, &[c(n), c(n)])], body);
    p
}

/// `loop xs for i < steps do map (\x -> x * 0.5 + 1) xs` on `[n]f32`.
fn relax(n: i64) -> Prog {
    let mut p = Prog::new();
    let steps = p.param("steps", t(I64));
    let xs = p.param("xs", arr(F32, &[c(n)]));
    let (sv, xv) = (steps.var, xs.var);
    let mut b = p.body();
    let i = b.var("i");
    let acc = b.param("acc", arr(F32, &[c(n)]));
    let accv = acc.var;
    let mut lb = b.sub();
    let x = lb.param("x", t(F32));
    let xx = x.var;
    let mut fb = lb.sub();
    let h = fb.let1("h", t(F32), Exp::BinOp(BinOp::Mul, F32, v(xx), kf32(0.5)));
    let h1 = fb.let1("h1", t(F32), Exp::BinOp(BinOp::Add, F32, v(h), kf32(1.0)));
    let f = lambda(vec![x], fb.finish(vec![v(h1)]), vec![t(F32)]);
    let next = lb.let1("next", arr(F32, &[c(n)]), Exp::Map { w: k64(n), lam: f, arrs: vec![accv] });
    let lbody = lb.finish(vec![v(next)]);
    let r = b.let1(
        "r",
        arr(F32, &[c(n)]),
        Exp::Loop {
            params: vec![(acc, v(xv))],
            form: LoopForm::For { i, it: IntType::I64, bound: v(sv) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("relax", vec![steps, xs], vec![arr(F32, &[c(n)])], body);
    p
}

fn identity_plus(n: i64) -> (Value, Value) {
    let mut a = vec![0.0f32; (n * n) as usize];
    for i in 0..n as usize {
        a[i * n as usize + i] = 1.0;
    }
    let b: Vec<f32> = (0..n * n).map(|k| (k % 7) as f32).collect();
    (af32(&[n, n], &a), af32(&[n, n], &b))
}

#[test]
fn small_matmul_and_relaxation_are_right() {
    let (a, b) = identity_plus(5);
    assert_eq!(ok(&matmul(5), 0, vec![a, b.clone()]), vec![b]);
    let r = ok(&relax(3), 0, vec![s64(2), af32(&[3], &[0.0, 2.0, 4.0])]);
    assert_eq!(r, vec![af32(&[3], &[1.5, 2.0, 2.5])]);
}

#[test]
#[ignore]
fn perf_matmul_256() {
    let (a, b) = identity_plus(256);
    let p = matmul(256);
    let start = std::time::Instant::now();
    let r = ok(&p, 0, vec![a, b.clone()]);
    eprintln!("matmul 256: {:?}", start.elapsed());
    assert_eq!(r, vec![b]);
}

#[test]
#[ignore]
fn perf_relax_1000_steps_of_100000() {
    let p = relax(100_000);
    let start = std::time::Instant::now();
    let r = ok(&p, 0, vec![s64(1000), af32(&[100_000], &vec![0.0; 100_000])]);
    eprintln!("1000 steps over 10^5: {:?}", start.elapsed());
    assert_eq!(r, vec![af32(&[100_000], &vec![2.0; 100_000])]);
}

/// Sequential in-place updates: `loop xs for i < n do xs with [i] = xs[i-1] + 1`.
#[test]
#[ignore]
fn perf_sequential_updates() {
    let n = 1_000_000;
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(n)]));
    let xv = xs.var;
    let mut b = p.body();
    let i = b.var("i");
    let acc = b.param("acc", arr(I64, &[c(n)]));
    let av = acc.var;
    let mut lb = b.sub();
    let j = lb.let1("j", t(I64), Exp::BinOp(BinOp::Add, I64, v(i), k64(1)));
    let prev = lb.let1("prev", t(I64), Exp::Index { arr: av, idx: vec![DimIndex::Fix(v(i))] });
    let nx = lb.let1("nx", t(I64), Exp::BinOp(BinOp::Add, I64, v(prev), k64(1)));
    let upd = lb.let1(
        "upd",
        arr(I64, &[c(n)]),
        Exp::Update { arr: av, idx: vec![DimIndex::Fix(v(j))], value: v(nx) },
    );
    let lbody = lb.finish(vec![v(upd)]);
    let r = b.let1(
        "r",
        arr(I64, &[c(n)]),
        Exp::Loop {
            params: vec![(acc, v(xv))],
            form: LoopForm::For { i, it: IntType::I64, bound: k64(n - 1) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![xs], vec![arr(I64, &[c(n)])], body);
    let start = std::time::Instant::now();
    let r = ok(&p, 0, vec![a64(&[n], &vec![0; n as usize])]);
    eprintln!("10^6 sequential updates: {:?}", start.elapsed());
    assert_eq!(r, vec![range64(&[n])]);
}

/// A scalar loop: `loop (x, s) = (x0, 0) for i < n do (x * 3 + 1) % 1000003, s + x % 7)`.
#[test]
#[ignore]
fn perf_scalar_loop() {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let nv = n.var;
    let mut b = p.body();
    let i = b.var("i");
    let x = b.param("x", t(I64));
    let s = b.param("s", t(I64));
    let (xv, sv) = (x.var, s.var);
    let mut lb = b.sub();
    let x3 = lb.let1("x3", t(I64), Exp::BinOp(BinOp::Mul, I64, v(xv), k64(3)));
    let x31 = lb.let1("x31", t(I64), Exp::BinOp(BinOp::Add, I64, v(x3), k64(1)));
    let x2 = lb.let1("x2", t(I64), Exp::BinOp(BinOp::Mod, I64, v(x31), k64(1_000_003)));
    let m = lb.let1("m", t(I64), Exp::BinOp(BinOp::Mod, I64, v(xv), k64(7)));
    let s2 = lb.let1("s2", t(I64), Exp::BinOp(BinOp::Add, I64, v(sv), v(m)));
    let lbody = lb.finish(vec![v(x2), v(s2)]);
    let rx = b.param("rx", t(I64));
    let rs = b.param("rs", t(I64));
    let rsv = rs.var;
    b.bind(
        vec![rx, rs],
        Exp::Loop {
            params: vec![(x, k64(1)), (s, k64(0))],
            form: LoopForm::For { i, it: IntType::I64, bound: v(nv) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(rsv)]);
    p.fun("f", vec![n], vec![t(I64)], body);
    let start = std::time::Instant::now();
    let r = ok(&p, 0, vec![s64(2_000_000)]);
    eprintln!("2*10^6 iterations of a 5-statement loop: {:?} ({r:?})", start.elapsed());
}
