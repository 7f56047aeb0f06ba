//! Scalar statements, `if`, loops, calls, assertions, pattern checks and resource limits.

use super::builder::*;
use crate::interp::Limits;
use crate::ir::{Atom, BinOp, Body, CmpOp, Exp, LoopForm, MathFn, Param, Type, UnOp};
use crate::prim::{FloatType, IntType, PrimType};

/// `f (a: ty) (b: ty) = a op b`.
fn binop_fun(op: BinOp, ty: PrimType) -> Prog {
    let mut p = Prog::new();
    let a = p.param("a", t(ty));
    let bp = p.param("b", t(ty));
    let (av, bv) = (a.var, bp.var);
    let mut b = p.body();
    let r = b.let1("r", t(ty), Exp::BinOp(op, ty, v(av), v(bv)));
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![a, bp], vec![t(ty)], body);
    p
}

#[test]
fn scalar_statements_use_futhark_semantics() {
    let run = |op, a: i32, b: i32| ok(&binop_fun(op, I32), 0, vec![s32(a), s32(b)]);
    assert_eq!(run(BinOp::Div, -7, 2), vec![s32(-4)]);
    assert_eq!(run(BinOp::Mod, -7, 2), vec![s32(1)]);
    assert_eq!(run(BinOp::Quot, -7, 2), vec![s32(-3)]);
    assert_eq!(run(BinOp::Rem, -7, 2), vec![s32(-1)]);
    assert_eq!(run(BinOp::Add, i32::MAX, 1), vec![s32(i32::MIN)]);
    let p = binop_fun(BinOp::Div, I32);
    let span = p.prog.funs[0].body.stms[0].span;
    let e = fails(&p, 0, vec![s32(1), s32(0)]);
    assert_eq!(e.message, "division by zero");
    assert_eq!(e.span, span);
    // Every other kind of scalar statement.
    let mut p = Prog::new();
    let x = p.param("x", t(F64));
    let xv = x.var;
    let mut b = p.body();
    let neg = b.let1("neg", t(F64), Exp::UnOp(UnOp::Neg, F64, v(xv)));
    let lt = b.let1("lt", t(BOOL), Exp::Cmp(CmpOp::Lt, F64, v(neg), v(xv)));
    let conv = b.let1("conv", t(I32), Exp::Convert { from: F64, to: I32, arg: v(neg) });
    let sq = b.let1("sq", t(F64), Exp::Math(MathFn::Sqrt, F64, vec![v(xv)]));
    let sel = b.let1("sel", t(F64), Exp::Select(v(lt), v(sq), v(neg)));
    let body = b.finish(vec![v(lt), v(conv), v(sel)]);
    p.fun("f", vec![x], vec![t(BOOL), t(I32), t(F64)], body);
    let r = ok(&p, 0, vec![crate::value::Value::Prim(P::F64(6.25))]);
    assert_eq!(
        r,
        vec![
            crate::value::Value::Prim(P::Bool(true)),
            s32(-6),
            crate::value::Value::Prim(P::F64(2.5))
        ]
    );
}

#[test]
fn operand_types_are_checked() {
    let mut p = Prog::new();
    let x = p.param("x", t(I32));
    let xv = x.var;
    let mut b = p.body();
    let r = b.let1("r", t(I64), Exp::BinOp(BinOp::Add, I64, v(xv), v(xv)));
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![x], vec![t(I64)], body);
    p.invalid = true;
    let e = fails(&p, 0, vec![s32(1)]);
    assert!(
        e.message.starts_with("internal error: `Add` on i64 applied to a i32"),
        "{}",
        e.message
    );
}

/// `f (c: bool) = if c then 10 / 2 else 10 / 0`
#[test]
fn if_evaluates_only_the_taken_branch() {
    let mut p = Prog::new();
    let cp = p.param("c", t(BOOL));
    let cv = cp.var;
    let mut b = p.body();
    let branch = |b: &mut Bb, d: i64| -> Body {
        let mut sb = b.sub();
        let q = sb.let1("q", t(I64), Exp::BinOp(BinOp::Div, I64, k64(10), k64(d)));
        sb.finish(vec![v(q)])
    };
    let then_body = branch(&mut b, 2);
    let else_body = branch(&mut b, 0);
    let r = b.let1("r", t(I64), Exp::If { cond: v(cv), then_body, else_body, ret: vec![t(I64)] });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![cp], vec![t(I64)], body);
    let yes = crate::value::Value::Prim(P::Bool(true));
    let no = crate::value::Value::Prim(P::Bool(false));
    assert_eq!(ok(&p, 0, vec![yes]), vec![s64(5)]);
    let span = p.prog.funs[0].body.stms[0].then_span();
    let e = fails(&p, 0, vec![no]);
    assert_eq!(e.message, "division by zero");
    assert_eq!(e.span, span);
}

trait ElseSpan {
    fn then_span(&self) -> crate::Span;
}

impl ElseSpan for crate::ir::Stm {
    /// The span of the else branch's first statement.
    fn then_span(&self) -> crate::Span {
        match &self.exp {
            Exp::If { else_body, .. } => else_body.stms[0].span,
            _ => self.span,
        }
    }
}

/// `let (k: i64, ys: [k]i64) = if c then (3, iota 3) else (2, iota 2) in (k, ys)`
#[test]
fn if_with_an_existential_size() {
    let mut p = Prog::new();
    let cp = p.param("c", t(BOOL));
    let cv = cp.var;
    let mut b = p.body();
    let k = b.param("k", t(I64));
    let kv = k.var;
    let branch = |b: &mut Bb, n: i64| -> Body {
        let mut sb = b.sub();
        let xs = sb.let1(
            "xs",
            arr(I64, &[c(n)]),
            Exp::Iota { n: k64(n), start: k64(0), step: k64(1), it: IntType::I64 },
        );
        sb.finish(vec![k64(n), v(xs)])
    };
    let then_body = branch(&mut b, 3);
    let else_body = branch(&mut b, 2);
    let ys = b.param("ys", arr(I64, &[d(kv)]));
    let yv = ys.var;
    b.bind(
        vec![k, ys],
        Exp::If { cond: v(cv), then_body, else_body, ret: vec![t(I64), arr(I64, &[d(kv)])] },
    );
    let body = b.finish(vec![v(kv), v(yv)]);
    p.fun_ext("f", vec![cp], 1, vec![t(I64), arr(I64, &[d(kv)])], body);
    let yes = crate::value::Value::Prim(P::Bool(true));
    let no = crate::value::Value::Prim(P::Bool(false));
    assert_eq!(ok(&p, 0, vec![yes]), vec![s64(3), range64(&[3])]);
    assert_eq!(ok(&p, 0, vec![no]), vec![s64(2), range64(&[2])]);
}

#[test]
fn pattern_types_are_checked_at_the_statement() {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let nv = n.var;
    let mut b = p.body();
    let r = b.let1(
        "r",
        arr(I64, &[c(4)]),
        Exp::Iota { n: v(nv), start: k64(0), step: k64(1), it: IntType::I64 },
    );
    let span = b.last_span();
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![n], vec![arr(I64, &[c(4)])], body);
    let e = fails(&p, 0, vec![s64(3)]);
    assert_eq!(e.message, "size mismatch: `r`: expected shape [4], got [3]");
    assert_eq!(e.span, span);
}

/// `loop (acc: i32) = 0 for i < n do acc + i`, and a while loop counting Collatz steps.
#[test]
fn for_and_while_loops() {
    let mut p = Prog::new();
    let n = p.param("n", t(I32));
    let nv = n.var;
    let mut b = p.body();
    let i = b.var("i");
    let acc = b.param("acc", t(I32));
    let av = acc.var;
    let mut lb = b.sub();
    let s = lb.let1("s", t(I32), Exp::BinOp(BinOp::Add, I32, v(av), v(i)));
    let lbody = lb.finish(vec![v(s)]);
    let r = b.let1(
        "r",
        t(I32),
        Exp::Loop {
            params: vec![(acc, k32(0))],
            form: LoopForm::For { i, it: IntType::I32, bound: v(nv) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![n], vec![t(I32)], body);
    assert_eq!(ok(&p, 0, vec![s32(5)]), vec![s32(10)]);
    assert_eq!(ok(&p, 0, vec![s32(-5)]), vec![s32(0)]);

    // loop (x, steps, go) = (x0, 0, x0 != 1) while go do
    //   let x' = if x % 2 == 0 then x / 2 else 3 * x + 1 in (x', steps + 1, x' != 1)
    let mut p = Prog::new();
    let x0 = p.param("x0", t(I64));
    let x0v = x0.var;
    let mut b = p.body();
    let go0 = b.let1("go0", t(BOOL), Exp::Cmp(CmpOp::Neq, I64, v(x0v), k64(1)));
    let x = b.param("x", t(I64));
    let steps = b.param("steps", t(I64));
    let go = b.param("go", t(BOOL));
    let (xv, sv, gv) = (x.var, steps.var, go.var);
    let mut lb = b.sub();
    let m = lb.let1("m", t(I64), Exp::BinOp(BinOp::Mod, I64, v(xv), k64(2)));
    let even = lb.let1("even", t(BOOL), Exp::Cmp(CmpOp::Eq, I64, v(m), k64(0)));
    let half = lb.let1("half", t(I64), Exp::BinOp(BinOp::Div, I64, v(xv), k64(2)));
    let tx = lb.let1("tx", t(I64), Exp::BinOp(BinOp::Mul, I64, v(xv), k64(3)));
    let tx1 = lb.let1("tx1", t(I64), Exp::BinOp(BinOp::Add, I64, v(tx), k64(1)));
    let x2 = lb.let1("x2", t(I64), Exp::Select(v(even), v(half), v(tx1)));
    let s2 = lb.let1("s2", t(I64), Exp::BinOp(BinOp::Add, I64, v(sv), k64(1)));
    let g2 = lb.let1("g2", t(BOOL), Exp::Cmp(CmpOp::Neq, I64, v(x2), k64(1)));
    let lbody = lb.finish(vec![v(x2), v(s2), v(g2)]);
    let rx = b.param("rx", t(I64));
    let rs = b.param("rs", t(I64));
    let rg = b.param("rg", t(BOOL));
    let rsv = rs.var;
    b.bind(
        vec![rx, rs, rg],
        Exp::Loop {
            params: vec![(x, v(x0v)), (steps, k64(0)), (go, v(go0))],
            form: LoopForm::While(gv),
            body: lbody,
        },
    );
    let body = b.finish(vec![v(rsv)]);
    p.fun("f", vec![x0], vec![t(I64)], body);
    assert_eq!(ok(&p, 0, vec![s64(27)]), vec![s64(111)]);
    assert_eq!(ok(&p, 0, vec![s64(1)]), vec![s64(0)]);
}

/// `loop (n: i64, xs: [n]i64) = (0, []) for i < k do (n + 1, xs ++ [i])`, and the same loop
/// with a wrong size in the body.
fn growing_loop(wrong: bool) -> Prog {
    let mut p = Prog::new();
    let kp = p.param("k", t(I64));
    let kv = kp.var;
    let mut b = p.body();
    let empty =
        b.let1("empty", arr(I64, &[c(0)]), Exp::ArrayLit { elems: vec![], elem_ty: t(I64) });
    let i = b.var("i");
    let n = b.param("n", t(I64));
    let nv = n.var;
    let xs = b.param("xs", arr(I64, &[d(nv)]));
    let xv = xs.var;
    let mut lb = b.sub();
    let n1 = lb.let1("n1", t(I64), Exp::BinOp(BinOp::Add, I64, v(nv), k64(1)));
    let single =
        lb.let1("single", arr(I64, &[c(1)]), Exp::ArrayLit { elems: vec![v(i)], elem_ty: t(I64) });
    let ys = lb.let1(
        "ys",
        arr(I64, &[d(n1)]),
        Exp::Concat { axis: 0, arrs: vec![xv, single], len: d(n1) },
    );
    let lbody = lb.finish(vec![if wrong { v(nv) } else { v(n1) }, v(ys)]);
    let rn = b.param("rn", t(I64));
    let rnv = rn.var;
    let rxs = b.param("rxs", arr(I64, &[d(rnv)]));
    let rxv = rxs.var;
    b.bind(
        vec![rn, rxs],
        Exp::Loop {
            params: vec![(n, k64(0)), (xs, v(empty))],
            form: LoopForm::For { i, it: IntType::I64, bound: v(kv) },
            body: lbody,
        },
    );
    let body = b.finish(vec![v(rnv), v(rxv)]);
    p.fun_ext("f", vec![kp], 1, vec![t(I64), arr(I64, &[d(rnv)])], body);
    p
}

#[test]
fn loop_parameters_are_size_dependent_and_checked_each_iteration() {
    assert_eq!(ok(&growing_loop(false), 0, vec![s64(4)]), vec![s64(4), range64(&[4])]);
    let e = fails(&growing_loop(true), 0, vec![s64(4)]);
    assert_eq!(e.message, "size mismatch: loop parameter `xs`: expected shape [0], got [1]");
}

/// `g (n: i64) (xs: [n]i64) : [n]i64 = xs`, called by `f` with a mismatched size or returning one.
#[test]
fn calls_check_arguments_and_results() {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let xs = p.param("xs", arr(I64, &[d(n.var)]));
    let (nv, xv) = (n.var, xs.var);
    let body = p.body().finish(vec![v(xv)]);
    let g = p.fun("g", vec![n, xs], vec![arr(I64, &[d(nv)])], body);
    let m = p.param("m", t(I64));
    let ys = p.param("ys", arr(I64, &[d(m.var)]));
    let (mv, yv) = (m.var, ys.var);
    let mut b = p.body();
    let r = b.let1("r", arr(I64, &[d(mv)]), Exp::Apply { fun: g, args: vec![k64(3), v(yv)] });
    let span = b.last_span();
    let body = b.finish(vec![v(r), v(yv)]);
    p.fun("f", vec![m, ys], vec![arr(I64, &[d(mv)]), arr(I64, &[d(mv)])], body);
    assert_eq!(ok(&p, 1, vec![s64(3), range64(&[3])]), vec![range64(&[3]), range64(&[3])]);
    let e = fails(&p, 1, vec![s64(2), range64(&[2])]);
    assert_eq!(e.message, "size mismatch: argument `xs` of `g`: expected shape [3], got [2]");
    assert_eq!(e.span, span);

    // A body whose result disagrees with the declared return type.
    let mut p = Prog::new();
    let k = p.param("k", t(I64));
    let kv = k.var;
    let mut b = p.body();
    let xs = b.let1(
        "xs",
        arr(I64, &[d(kv)]),
        Exp::Iota { n: v(kv), start: k64(0), step: k64(1), it: IntType::I64 },
    );
    let body = b.finish(vec![v(xs)]);
    let g = p.fun("g", vec![k], vec![arr(I64, &[c(3)])], body);
    let e = fails(&p, g, vec![s64(2)]);
    assert_eq!(e.message, "size mismatch: result 1 of `g`: expected shape [3], got [2]");
    assert_eq!(e.secondary[0].message, "declared here");
}

#[test]
fn existential_results_may_be_declared_with_or_without_their_sizes() {
    // g (k: i64) : ?[n].[n]i64 = iota k, declared both ways.
    for with_sizes in [true, false] {
        let mut p = Prog::new();
        let k = p.param("k", t(I64));
        let kv = k.var;
        let mut b = p.body();
        let n = b.let1("n", t(I64), Exp::Atom(v(kv)));
        let xs = b.let1(
            "xs",
            arr(I64, &[d(n)]),
            Exp::Iota { n: v(n), start: k64(0), step: k64(1), it: IntType::I64 },
        );
        let body = b.finish(vec![v(n), v(xs)]);
        let ret =
            if with_sizes { vec![t(I64), arr(I64, &[d(n)])] } else { vec![arr(I64, &[d(n)])] };
        p.fun_ext("g", vec![k], 1, ret, body);
        p.invalid = !with_sizes;
        assert_eq!(ok(&p, 0, vec![s64(3)]), vec![s64(3), range64(&[3])]);
    }
}

#[test]
fn values_used_after_a_call_are_not_consumed_by_it() {
    // Invalid IR (the argument is consumed, then used), but value semantics hold regardless.
    // g (xs: *[3]i64) = xs with [0] = 7;  f xs = (g xs, xs)
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(3)]));
    let xv = xs.var;
    let mut b = p.body();
    let ys = b.let1(
        "ys",
        arr(I64, &[c(3)]),
        Exp::Update { arr: xv, idx: vec![crate::ir::DimIndex::Fix(k64(0))], value: k64(7) },
    );
    let body = b.finish(vec![v(ys)]);
    let g = p.fun("g", vec![xs], vec![arr(I64, &[c(3)])], body);
    let zs = p.param("zs", arr(I64, &[c(3)]));
    let zv = zs.var;
    let mut b = p.body();
    let r = b.let1("r", arr(I64, &[c(3)]), Exp::Apply { fun: g, args: vec![v(zv)] });
    let body = b.finish(vec![v(r), v(zv)]);
    let f = p.fun("f", vec![zs], vec![arr(I64, &[c(3)]), arr(I64, &[c(3)])], body);
    p.invalid = true;
    assert_eq!(ok(&p, f, vec![range64(&[3])]), vec![a64(&[3], &[7, 1, 2]), range64(&[3])]);
}

#[test]
fn recursion_is_refused() {
    let mut p = Prog::new();
    let mut b = p.body();
    let r = b.let1("r", t(I64), Exp::Apply { fun: 0, args: vec![] });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![], vec![t(I64)], body);
    p.invalid = true;
    assert_eq!(fails(&p, 0, vec![]).message, "unsupported: recursive call of `f`");
}

fn assert_fun(msg: &str, vals: Vec<Atom>) -> Prog {
    let mut p = Prog::new();
    let ok_p = p.param("ok", t(BOOL));
    let okv = ok_p.var;
    let mut b = p.body();
    b.bind(vec![], Exp::Assert { cond: v(okv), msg: msg.into(), vals });
    let body = b.finish(vec![k64(1)]);
    p.fun("f", vec![ok_p], vec![t(I64)], body);
    p
}

#[test]
fn assertions_format_their_values() {
    let yes = || crate::value::Value::Prim(P::Bool(true));
    let no = || crate::value::Value::Prim(P::Bool(false));
    let p = assert_fun(
        "size mismatch: `zip`: arrays of lengths {} and {} differ",
        vec![k64(3), k64(4)],
    );
    assert_eq!(ok(&p, 0, vec![yes()]), vec![s64(1)]);
    let e = fails(&p, 0, vec![no()]);
    assert_eq!(e.message, "size mismatch: `zip`: arrays of lengths 3 and 4 differ");
    assert_eq!(e.span, p.prog.funs[0].body.stms[0].span);
    // More `{}` than values (invalid): the extra ones stay as they are.
    let mut p = assert_fun(
        "assertion failed: x > {} ({}, {})",
        vec![kf32(1.5), Atom::Const(P::Bool(true))],
    );
    p.invalid = true;
    assert_eq!(fails(&p, 0, vec![no()]).message, "assertion failed: x > 1.5 (true, {})");
    let p = assert_fun("", vec![]);
    assert_eq!(fails(&p, 0, vec![no()]).message, "assertion failed");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // The test harness validates the IR first, and the validator (test-only, unlimited in
    // depth) needs more than a test thread's 2 MiB for 1000 levels in an optimised build.
    let run = std::thread::Builder::new().stack_size(64 << 20).spawn(deep_nesting);
    run.expect("thread").join().expect("no stack overflow");
}

fn deep_nesting() {
    // 1000 nested `if`s.
    let mut p = Prog::new();
    let mut inner = Body { stms: vec![], result: vec![k64(1)] };
    for _ in 0..1000 {
        let r = p.var("r");
        let stm = crate::ir::Stm {
            pat: vec![Param { var: r, ty: t(I64) }],
            exp: Exp::If {
                cond: Atom::Const(P::Bool(true)),
                then_body: inner,
                else_body: Body { stms: vec![], result: vec![k64(0)] },
                ret: vec![t(I64)],
            },
            span: crate::Span::new(5, 6),
        };
        inner = Body { stms: vec![stm], result: vec![v(r)] };
    }
    p.fun("f", vec![], vec![t(I64)], inner);
    let e = call(&p, 0, vec![]).unwrap_err();
    assert_eq!(e.message, "unsupported: code nested more than 200 levels deep");

    // A chain of 300 functions, each calling the previous one.
    let mut p = Prog::new();
    let body = p.body().finish(vec![k64(0)]);
    p.fun("f0", vec![], vec![t(I64)], body);
    for k in 1..300 {
        let mut b = p.body();
        let r = b.let1("r", t(I64), Exp::Apply { fun: k - 1, args: vec![] });
        let body = b.finish(vec![v(r)]);
        p.fun(&format!("f{k}"), vec![], vec![t(I64)], body);
    }
    let e = call(&p, 299, vec![]).unwrap_err();
    assert_eq!(e.message, "unsupported: calls and loops nested more than 200 levels deep");
    assert_eq!(ok(&p, 150, vec![]), vec![s64(0)]);
}

#[test]
fn a_step_limit_stops_endless_loops() {
    let mut p = Prog::new();
    let mut b = p.body();
    let go = b.param("go", t(BOOL));
    let gv = go.var;
    let mut lb = b.sub();
    let g2 = lb.let1("g2", t(BOOL), Exp::Atom(v(gv)));
    let lbody = lb.finish(vec![v(g2)]);
    let r = b.let1(
        "r",
        t(BOOL),
        Exp::Loop {
            params: vec![(go, Atom::Const(P::Bool(true)))],
            form: LoopForm::While(gv),
            body: lbody,
        },
    );
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![], vec![t(BOOL)], body);
    let limits = Limits { max_steps: Some(10_000), ..Limits::default() };
    let e = call_with(&p, 0, vec![], &limits).unwrap_err();
    assert_eq!(e.message, "the program was stopped after 10000 steps (the interpreter's limit)");
}

#[test]
fn malformed_ir_gives_internal_errors_not_panics() {
    // An unbound variable, a wrong result count, a scalar indexed, a type mismatch in a pattern.
    let mut p = Prog::new();
    let ghost = p.var("ghost");
    let mut b = p.body();
    let r = b.let1("r", t(I64), Exp::BinOp(BinOp::Add, I64, v(ghost), k64(1)));
    let s = b.let1("s", t(I64), Exp::Index { arr: r, idx: vec![] });
    let body = b.finish(vec![v(s)]);
    p.fun("f", vec![], vec![t(I64)], body);
    p.invalid = true;
    let e = fails(&p, 0, vec![]);
    assert!(e.message.starts_with("internal error: variable `ghost`"), "{}", e.message);

    let mut p = Prog::new();
    let mut b = p.body();
    b.let1("r", t(F32), Exp::Atom(k64(1)));
    let body = b.finish(vec![k64(1)]);
    p.fun("f", vec![], vec![t(I64)], body);
    p.invalid = true;
    let e = fails(&p, 0, vec![]);
    assert_eq!(e.message, "internal error: `r` has type i64, but its declared type is f32");

    let mut p = Prog::new();
    let x = p.param("x", t(I64));
    let xv = x.var;
    let mut b = p.body();
    let s = b.let1("s", t(I64), Exp::Index { arr: xv, idx: vec![] });
    let body = b.finish(vec![v(s)]);
    p.fun("f", vec![x], vec![t(I64)], body);
    p.invalid = true;
    assert!(fails(&p, 0, vec![s64(1)]).message.starts_with("internal error"));

    let mut p = Prog::new();
    let body = p.body().finish(vec![k64(1), k64(2)]);
    p.fun("f", vec![], vec![t(I64)], body);
    p.invalid = true;
    assert!(fails(&p, 0, vec![]).message.starts_with("internal error"));
    let _: Type = t(PrimType::Float(FloatType::F16));
}

/// `depth` nested `if`s, each in a `map` over a one-element array (the deepest frames there are).
fn nested_maps(depth: usize) -> Prog {
    let mut p = Prog::new();
    let mut inner = Body { stms: vec![], result: vec![k64(1)] };
    for _ in 0..depth {
        let xs = p.var("xs");
        let x = p.var("x");
        let r = p.var("r");
        let q = p.var("q");
        let lam = lambda(vec![Param { var: x, ty: t(I64) }], inner, vec![t(I64)]);
        let stms = vec![
            crate::ir::Stm {
                pat: vec![Param { var: xs, ty: arr(I64, &[c(1)]) }],
                exp: Exp::Replicate { shape: vec![c(1)], value: k64(0) },
                span: crate::Span::new(5, 6),
            },
            crate::ir::Stm {
                pat: vec![Param { var: r, ty: arr(I64, &[c(1)]) }],
                exp: Exp::Map { w: k64(1), lam, arrs: vec![xs] },
                span: crate::Span::new(5, 6),
            },
            crate::ir::Stm {
                pat: vec![Param { var: q, ty: t(I64) }],
                exp: Exp::Index { arr: r, idx: vec![crate::ir::DimIndex::Fix(k64(0))] },
                span: crate::Span::new(5, 6),
            },
        ];
        inner = Body { stms, result: vec![v(q)] };
    }
    p.fun("f", vec![], vec![t(I64)], inner);
    p
}

#[test]
fn the_deepest_allowed_nesting_fits_in_a_small_stack() {
    // 512 KiB: half of what a wasm32 module gets by default.
    let run = std::thread::Builder::new().stack_size(512 << 10).spawn(|| {
        let limits = Limits::default();
        let p = nested_maps(limits.max_depth - 2);
        call_with(&p, 0, vec![], &limits).map_err(|d| d.message)
    });
    let result = run.expect("thread").join().expect("no stack overflow");
    assert_eq!(result, Ok(vec![s64(1)]));
}

#[test]
fn long_arrays_in_messages_are_shortened() {
    let mut p = Prog::new();
    let xs = p.param("xs", arr(I64, &[c(20)]));
    let xv = xs.var;
    let mut b = p.body();
    b.bind(
        vec![],
        Exp::Assert { cond: Atom::Const(P::Bool(false)), msg: "bad: {}".into(), vals: vec![v(xv)] },
    );
    let body = b.finish(vec![k64(0)]);
    p.fun("f", vec![xs], vec![t(I64)], body);
    // Assertion values are scalars in valid IR; arrays are still printed sensibly.
    p.invalid = true;
    let e = fails(&p, 0, vec![range64(&[20])]);
    assert_eq!(e.message, "bad: [0, 1, 2, 3, 4, 5, 6, 7, ...]");
}

/// `let ys: [n]i64 = if c then replicate n 0 else xs in ys[0]`: `n` is used last inside a branch
/// and by the `if`'s own pattern, which is checked after the branch.
#[test]
fn a_size_used_by_the_pattern_of_an_if_outlives_its_branches() {
    let mut p = Prog::new();
    let n = p.param("n", t(I64));
    let cnd = p.param("c", t(BOOL));
    let xs = p.param("xs", arr(I64, &[d(n.var)]));
    let (nv, cv, xv) = (n.var, cnd.var, xs.var);
    let mut b = p.body();
    let mut tb = b.sub();
    let zs =
        tb.let1("zs", arr(I64, &[d(nv)]), Exp::Replicate { shape: vec![d(nv)], value: k64(0) });
    let then_body = tb.finish(vec![v(zs)]);
    let else_body = b.sub().finish(vec![v(xv)]);
    let ys = b.let1(
        "ys",
        arr(I64, &[d(nv)]),
        Exp::If { cond: v(cv), then_body, else_body, ret: vec![arr(I64, &[d(nv)])] },
    );
    let r =
        b.let1("r", t(I64), Exp::Index { arr: ys, idx: vec![crate::ir::DimIndex::Fix(k64(0))] });
    let body = b.finish(vec![v(r)]);
    p.fun("f", vec![n, cnd, xs], vec![t(I64)], body);
    let yes = crate::value::Value::Prim(P::Bool(true));
    assert_eq!(ok(&p, 0, vec![s64(2), yes, a64(&[2], &[5, 6])]), vec![s64(0)]);
    // The same where only the pattern names `n` (not the validator's convention for `ret`).
    if let Exp::If { ret, .. } = &mut p.prog.funs[0].body.stms[0].exp {
        ret[0] = arr(I64, &[c(2)]);
    }
    p.invalid = true;
    let yes = crate::value::Value::Prim(P::Bool(true));
    assert_eq!(ok(&p, 0, vec![s64(2), yes, a64(&[2], &[5, 6])]), vec![s64(0)]);
}
