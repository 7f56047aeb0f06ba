//! The column-at-a-time paths must compute exactly what element-at-a-time interpretation does:
//! each test runs a SOAC twice, once with scalar code (the fast path) and once with the same code
//! plus a statement that is not scalar (forcing the general path), and compares.

use super::builder::*;
use crate::ir::{Atom, BinOp, CmpOp, Exp, Lambda, MathFn, Param, UnOp};
use crate::prim::{f16, FloatType, IntType, PrimType};
use crate::value::Value;

/// Sample values of a type, with the edge cases of its operators.
fn samples(t: PrimType) -> Vec<P> {
    match t {
        PrimType::Bool => vec![P::Bool(true), P::Bool(false), P::Bool(true), P::Bool(true)],
        PrimType::Int(it) => {
            let (lo, hi) = if it.signed() {
                (-(1i128 << (it.bits() - 1)), (1i128 << (it.bits() - 1)) - 1)
            } else {
                (0, (1i128 << it.bits()) - 1)
            };
            [lo, -7, -1, 0, 1, 2, 3, 7, 64, hi].iter().map(|&x| P::int(it, x)).collect()
        }
        PrimType::Float(ft) => {
            [f64::NEG_INFINITY, -7.5, -1.0, -0.0, 0.0, 0.5, 2.0, 3.25, f64::NAN, 1e30]
                .iter()
                .map(|&x| P::float(ft, x))
                .collect()
        }
    }
}

/// `map (\x y -> e(x, y)) xs ys`, with `poison` adding a non-scalar statement.
fn map2(a: PrimType, out: PrimType, e: &dyn Fn(Atom, Atom) -> Exp, poison: bool) -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let xs = p.param("xs", arr(a, &[d(n.var)]));
    let ys = p.param("ys", arr(a, &[d(n.var)]));
    let (nv, xv, yv) = (n.var, xs.var, ys.var);
    let mut b = p.body();
    let x = b.param("x", t(a));
    let y = b.param("y", t(a));
    let (xx, yy) = (x.var, y.var);
    let mut lb = b.sub();
    if poison {
        lb.let1(
            "unused",
            arr(I64, &[c(1)]),
            Exp::Iota { n: k64(1), start: k64(0), step: k64(1), it: IntType::I64 },
        );
    }
    let r = lb.let1("r", t(out), e(v(xx), v(yy)));
    let lam = lambda(vec![x, y], lb.finish(vec![v(r)]), vec![t(out)]);
    let res = b.let1("res", arr(out, &[d(nv)]), Exp::Map { w: v(nv), lam, arrs: vec![xv, yv] });
    let body = b.finish(vec![v(res)]);
    p.fun("f", vec![n, xs, ys], vec![arr(out, &[d(nv)])], body);
    undefined_combinations_allowed(p)
}

/// The differential tests also cover operators on types they are not defined on (both paths
/// must fail alike), which the validator rejects.
fn undefined_combinations_allowed(mut p: Prog) -> Prog {
    p.invalid = crate::ir::validate::validate(&p.prog).is_err();
    p
}

/// Every pair of samples, as two arrays.
fn pairs(t: PrimType) -> Vec<Value> {
    let s = samples(t);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in &s {
        for &y in &s {
            xs.push(x);
            ys.push(y);
        }
    }
    let n = xs.len() as i64;
    vec![s64(n), array(t, &[n], xs), array(t, &[n], ys)]
}

/// Results compared bit for bit (NaN equals NaN), or the error messages.
fn same(
    a: Result<Vec<Value>, crate::Diagnostic>,
    b: Result<Vec<Value>, crate::Diagnostic>,
    what: &str,
) {
    let key = |r: Result<Vec<Value>, crate::Diagnostic>| match r {
        Ok(vs) => Ok(format!("{vs:?}")),
        Err(d) => Err(d.message),
    };
    assert_eq!(key(a), key(b), "{what}");
}

fn compare(a: PrimType, out: PrimType, e: &dyn Fn(Atom, Atom) -> Exp, what: &str) {
    let args = pairs(a);
    same(
        call(&map2(a, out, e, false), 0, args.clone()),
        call(&map2(a, out, e, true), 0, args),
        what,
    );
}

#[test]
fn column_binary_operators_agree_with_element_at_a_time() {
    use BinOp as B;
    let ops = [
        B::Add,
        B::Sub,
        B::Mul,
        B::Div,
        B::Mod,
        B::Quot,
        B::Rem,
        B::Pow,
        B::Min,
        B::Max,
        B::And,
        B::Or,
        B::Xor,
        B::Shl,
        B::Shr,
        B::LogAnd,
        B::LogOr,
    ];
    for ty in PrimType::all() {
        for op in ops {
            // Division by zero and undefined operators must fail the same way too.
            compare(ty, ty, &|x, y| Exp::BinOp(op, ty, x, y), &format!("{op:?} on {ty}"));
        }
        for op in [CmpOp::Eq, CmpOp::Neq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
            compare(ty, BOOL, &|x, y| Exp::Cmp(op, ty, x, y), &format!("{op:?} on {ty}"));
        }
    }
}

#[test]
fn column_unary_operators_conversions_and_functions_agree() {
    for ty in PrimType::all() {
        for op in [UnOp::Neg, UnOp::Not, UnOp::Abs, UnOp::Sgn] {
            compare(ty, ty, &|x, _| Exp::UnOp(op, ty, x), &format!("{op:?} on {ty}"));
        }
        for to in PrimType::all() {
            compare(
                ty,
                to,
                &|x, _| Exp::Convert { from: ty, to, arg: x },
                &format!("{ty} -> {to}"),
            );
        }
    }
    for ft in FloatType::ALL {
        let ty = PrimType::Float(ft);
        for f in [MathFn::Sqrt, MathFn::Exp, MathFn::Log, MathFn::Sin, MathFn::Round, MathFn::Floor]
        {
            compare(ty, ty, &|x, _| Exp::Math(f, ty, vec![x]), &format!("{f:?} on {ty}"));
        }
        compare(ty, ty, &|x, y| Exp::Math(MathFn::Atan2, ty, vec![x, y]), "atan2");
        compare(ty, BOOL, &|x, _| Exp::Math(MathFn::IsNan, ty, vec![x]), "isnan");
    }
    compare(I32, I32, &|x, y| Exp::Select(Atom::Const(P::Bool(true)), y, x), "select");
    compare(I32, I32, &|x, _| Exp::Atom(x), "atom");
    compare(I32, I32, &|_, _| Exp::Atom(k32(4)), "constant");
}

#[test]
fn column_maps_fail_at_the_failing_statement() {
    let p = map2(I32, I32, &|x, y| Exp::BinOp(BinOp::Div, I32, x, y), false);
    let span = match &p.prog.funs[0].body.stms[0].exp {
        Exp::Map { lam, .. } => lam.body.stms[0].span,
        _ => unreachable!(),
    };
    let e = fails(&p, 0, vec![s64(2), a32(&[2], &[1, 2]), a32(&[2], &[1, 0])]);
    assert_eq!((e.message.as_str(), e.span), ("division by zero", span));
}

/// `reduce`/`scan` with `\a b -> a op b` (or `b op a`), optionally poisoned.
fn fold(ty: PrimType, op: BinOp, acc_left: bool, scan: bool, poison: bool) -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let xs = p.param("xs", arr(ty, &[d(n.var)]));
    let (nv, xv) = (n.var, xs.var);
    let mut b = p.body();
    let a = b.param("a", t(ty));
    let x = b.param("x", t(ty));
    let (av, xx) = (a.var, x.var);
    let mut lb = b.sub();
    if poison {
        lb.let1(
            "unused",
            arr(I64, &[c(1)]),
            Exp::Iota { n: k64(1), start: k64(0), step: k64(1), it: IntType::I64 },
        );
    }
    let (l, r) = if acc_left { (av, xx) } else { (xx, av) };
    let res = lb.let1("r", t(ty), Exp::BinOp(op, ty, v(l), v(r)));
    let lam: Lambda = lambda(vec![a, x], lb.finish(vec![v(res)]), vec![t(ty)]);
    let ne = Atom::Const(samples(ty)[1]);
    let (rt, e) = if scan {
        (arr(ty, &[d(nv)]), Exp::Scan { w: v(nv), lam, neutral: vec![ne], arrs: vec![xv] })
    } else {
        (
            t(ty),
            Exp::Reduce { w: v(nv), lam, neutral: vec![ne], arrs: vec![xv], commutative: false },
        )
    };
    let out = b.param("out", rt.clone());
    let ov = out.var;
    b.bind(vec![out], e);
    let body = b.finish(vec![v(ov)]);
    p.fun("f", vec![n, xs], vec![rt], body);
    undefined_combinations_allowed(p)
}

#[test]
fn typed_folds_agree_with_element_at_a_time() {
    for ty in PrimType::all() {
        let s = samples(ty);
        let args = vec![s64(s.len() as i64), array(ty, &[s.len() as i64], s)];
        for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Max, BinOp::LogOr] {
            for left in [true, false] {
                for scan in [false, true] {
                    let what = format!("{op:?} on {ty}, acc left {left}, scan {scan}");
                    let fast = call(&fold(ty, op, left, scan, false), 0, args.clone());
                    let slow = call(&fold(ty, op, left, scan, true), 0, args.clone());
                    same(fast, slow, &what);
                }
            }
        }
    }
}

#[test]
fn column_maps_with_free_variables() {
    // map (\x -> x * k) xs, where k is a scalar outside the function; and with an array outside
    // (not scalar code any more: the general path).
    let mut p = Prog::new();
    let k = p.param("k", t(F32));
    let xs = p.param("xs", arr(F32, &[c(3)]));
    let (kv, xv) = (k.var, xs.var);
    let mut b = p.body();
    let x = b.param("x", t(F32));
    let xx = x.var;
    let mut lb = b.sub();
    let r = lb.let1("r", t(F32), Exp::BinOp(BinOp::Mul, F32, v(xx), v(kv)));
    let lam = lambda(vec![x], lb.finish(vec![v(r)]), vec![t(F32)]);
    let res = b.let1("res", arr(F32, &[c(3)]), Exp::Map { w: k64(3), lam, arrs: vec![xv] });
    let body = b.finish(vec![v(res)]);
    p.fun("f", vec![k, xs], vec![arr(F32, &[c(3)])], body);
    let r = ok(&p, 0, vec![sf32(2.0), af32(&[3], &[1.0, 2.0, 3.0])]);
    assert_eq!(r, vec![af32(&[3], &[2.0, 4.0, 6.0])]);
    let h = |x: f32| P::F16(f16::from_f32(x));
    let _ = Param { var: kv, ty: t(PrimType::Float(FloatType::F16)) };
    let _ = h(1.0);
}

/// `reduce_by_index (replicate 4 ne) op ne is vs`, optionally poisoned.
fn hist(ty: PrimType, op: BinOp, poison: bool) -> Prog {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let is = p.param("is", arr(I64, &[d(n.var)]));
    let vs = p.param("vs", arr(ty, &[d(n.var)]));
    let (nv, iv, vv) = (n.var, is.var, vs.var);
    let mut b = p.body();
    let ne = Atom::Const(samples(ty)[1]);
    let dest = b.let1("dest", arr(ty, &[c(4)]), Exp::Replicate { shape: vec![c(4)], value: ne });
    let a = b.param("a", t(ty));
    let x = b.param("x", t(ty));
    let (av, xx) = (a.var, x.var);
    let mut lb = b.sub();
    if poison {
        lb.let1(
            "unused",
            arr(I64, &[c(1)]),
            Exp::Iota { n: k64(1), start: k64(0), step: k64(1), it: IntType::I64 },
        );
    }
    let r = lb.let1("r", t(ty), Exp::BinOp(op, ty, v(av), v(xx)));
    let lam = lambda(vec![a, x], lb.finish(vec![v(r)]), vec![t(ty)]);
    let h = b.let1(
        "h",
        arr(ty, &[c(4)]),
        Exp::Hist { dest: vec![dest], lam, neutral: vec![ne], is: iv, vs: vec![vv], w: v(nv) },
    );
    let body = b.finish(vec![v(h)]);
    p.fun("f", vec![n, is, vs], vec![arr(ty, &[c(4)])], body);
    undefined_combinations_allowed(p)
}

#[test]
fn typed_histograms_agree_with_element_at_a_time() {
    for ty in PrimType::all() {
        let s = samples(ty);
        let bins: Vec<i64> = (0..s.len() as i64).map(|k| k % 6 - 1).collect();
        let args = vec![
            s64(s.len() as i64),
            a64(&[s.len() as i64], &bins),
            array(ty, &[s.len() as i64], s),
        ];
        for op in [BinOp::Add, BinOp::Sub, BinOp::Max, BinOp::Div, BinOp::LogAnd] {
            let fast = call(&hist(ty, op, false), 0, args.clone());
            let slow = call(&hist(ty, op, true), 0, args.clone());
            same(fast, slow, &format!("hist {op:?} on {ty}"));
        }
    }
}
