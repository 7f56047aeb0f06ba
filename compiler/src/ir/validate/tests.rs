//! Each rule of the validator, by a small program that breaks it.

use super::*;
use crate::ir::lower::builder::*;
use crate::prim::PrimValue;

fn f32t() -> Type {
    Type::Prim(PrimType::F32)
}

fn arr(elem: PrimType, dims: &[Dim]) -> Type {
    Type::Array { elem, shape: dims.to_vec() }
}

fn var(v: Var) -> Atom {
    Atom::Var(v)
}

fn program(b: Builder, funs: Vec<FunDef>) -> Program {
    Program { funs, entries: Vec::new(), names: b.names }
}

fn fun(name: &str, params: Vec<Param>, body: Body, ret: Vec<Type>) -> FunDef {
    FunDef { name: name.into(), params, existentials: 0, ret, body, span: Span::DUMMY }
}

/// `fun f (n: i64, xs: [n]f32) = <stms built by `k`>`, validated.
fn check(k: impl FnOnce(&mut Builder, Var, Var) -> (Vec<Atom>, Vec<Type>)) -> Result<(), String> {
    let mut b = Builder::new();
    let n = b.param("n", i64t());
    let xs = b.param("xs", arr(PrimType::F32, &[Dim::Var(n.var)]));
    let (res, ret) = k(&mut b, n.var, xs.var);
    let body = b.close(res);
    let f = fun("f", vec![n, xs], body, ret);
    validate(&program(b, vec![f]))
}

fn err(r: Result<(), String>, needle: &str) {
    match r {
        Ok(()) => panic!("expected an error containing {needle:?}"),
        Err(m) => assert!(m.contains(needle), "{m:?} does not contain {needle:?}"),
    }
}

#[test]
fn accepts_simple_function() {
    let r = check(|b, n, xs| {
        let i = b.binop(BinOp::Sub, PrimType::I64, var(n), i64c(1));
        let x = b.let1("x", f32t(), Exp::Index { arr: xs, idx: vec![DimIndex::Fix(i)] });
        (vec![var(x)], vec![f32t()])
    });
    assert_eq!(r, Ok(()));
}

#[test]
fn rejects_unbound_and_rebound_variables() {
    err(
        check(|b, _, _| {
            let ghost = b.fresh("ghost");
            let x = b.let1("x", f32t(), Exp::Atom(var(ghost)));
            (vec![var(x)], vec![f32t()])
        }),
        "`ghost_2` is not in scope",
    );
    err(
        check(|b, n, _| {
            let p = Param { var: n, ty: i64t() };
            b.push(vec![p], Exp::Atom(i64c(1)));
            (vec![var(n)], vec![i64t()])
        }),
        "bound more than once",
    );
}

#[test]
fn rejects_bad_dims() {
    err(
        check(|b, _, xs| {
            let ghost = b.fresh("m");
            let _ = b.let1("y", arr(PrimType::F32, &[Dim::Var(ghost)]), Exp::Copy(xs));
            (vec![], vec![])
        }),
        "dim `m_2` is not in scope",
    );
    err(
        check(|b, _, xs| {
            let x = b.let1("x", f32t(), Exp::Atom(Atom::Const(PrimValue::F32(1.0))));
            let y = b.let1("y", arr(PrimType::F32, &[Dim::Var(x)]), Exp::Copy(xs));
            (vec![var(y)], vec![f32t()])
        }),
        "not `i64`",
    );
}

#[test]
fn rejects_pattern_type_mismatches() {
    err(
        check(|b, n, _| {
            let x = b.let1("x", f32t(), Exp::Atom(var(n)));
            (vec![var(x)], vec![f32t()])
        }),
        "expected `i64`, found `f32`",
    );
    err(
        check(|b, _, xs| {
            let x = b.let1("x", arr(PrimType::F32, &[Dim::Const(1), Dim::Const(2)]), Exp::Copy(xs));
            (vec![var(x)], vec![f32t()])
        }),
        "expected `[n_0]f32`, found `[1][2]f32`",
    );
    err(
        check(|b, _, _| {
            let it = Exp::Iota { n: i64c(3), start: i64c(0), step: i64c(1), it: IntType::I64 };
            let x = b.let1("x", arr(PrimType::I64, &[Dim::Const(4)]), it);
            (vec![var(x)], vec![arr(PrimType::I64, &[Dim::Const(4)])])
        }),
        "expected `[3]i64`, found `[4]i64`",
    );
    err(
        check(|b, n, _| {
            let x = b.let1("x", f32t(), Exp::BinOp(BinOp::Add, PrimType::F32, var(n), var(n)));
            (vec![var(x)], vec![f32t()])
        }),
        "the left operand must have type `f32`, found `i64`",
    );
}

#[test]
fn rejects_bad_lambdas() {
    err(
        check(|b, n, xs| {
            let p = b.param("x", f32t());
            let q = b.param("y", f32t());
            let lam = Lambda {
                params: vec![p.clone(), q],
                body: Body { stms: vec![], result: vec![var(p.var)] },
                ret: vec![f32t()],
            };
            let t = arr(PrimType::F32, &[Dim::Var(n)]);
            let y = b.let1("y", t.clone(), Exp::Map { w: var(n), lam, arrs: vec![xs] });
            (vec![var(y)], vec![t])
        }),
        "lambda takes 2 parameters, expected 1",
    );
    err(
        check(|b, n, xs| {
            let p = b.param("x", i64t());
            let lam = Lambda {
                params: vec![p.clone()],
                body: Body { stms: vec![], result: vec![var(p.var)] },
                ret: vec![i64t()],
            };
            let t = arr(PrimType::I64, &[Dim::Var(n)]);
            let y = b.let1("y", t.clone(), Exp::Map { w: var(n), lam, arrs: vec![xs] });
            (vec![var(y)], vec![t])
        }),
        "lambda parameter 0: expected `f32`, found `i64`",
    );
    err(
        check(|b, n, xs| {
            let p = b.param("x", f32t());
            let q = b.param("y", f32t());
            let lam = Lambda {
                params: vec![p.clone(), q],
                body: Body { stms: vec![], result: vec![var(p.var)] },
                ret: vec![f32t()],
            };
            let r = b.let1(
                "r",
                f32t(),
                Exp::Reduce { w: var(n), lam, neutral: vec![], arrs: vec![xs], commutative: false },
            );
            (vec![var(r)], vec![f32t()])
        }),
        "0 neutral elements for 1 arrays",
    );
    // A map result whose size is computed inside the lambda.
    err(
        check(|b, n, xs| {
            let p = b.param("x", f32t());
            let k = b.fresh("k");
            let inner = arr(PrimType::I64, &[Dim::Var(k)]);
            let lam = Lambda {
                params: vec![p],
                body: Body {
                    stms: vec![Stm {
                        pat: vec![Param { var: k, ty: i64t() }],
                        exp: Exp::Atom(i64c(2)),
                        span: Span::DUMMY,
                    }],
                    result: vec![var(k)],
                },
                ret: vec![inner],
            };
            let t = arr(PrimType::I64, &[Dim::Var(n), Dim::Var(k)]);
            let _ = b.let1("y", t, Exp::Map { w: var(n), lam, arrs: vec![xs] });
            (vec![], vec![])
        }),
        "is not in scope",
    );
}

#[test]
fn rejects_bad_calls() {
    let mut b = Builder::new();
    let x = b.param("x", f32t());
    let callee =
        fun("g", vec![x.clone()], Body { stms: vec![], result: vec![var(x.var)] }, vec![f32t()]);
    let r = b.let1("r", f32t(), Exp::Apply { fun: 0, args: vec![] });
    let body = b.close(vec![var(r)]);
    let caller = fun("f", vec![], body, vec![f32t()]);
    err(validate(&program(b, vec![callee.clone(), caller])), "`g` takes 1 arguments, found 0");

    let mut b = Builder::new();
    b.names.resize(1, "x".into());
    let r = b.let1("r", f32t(), Exp::Apply { fun: 0, args: vec![i64c(1)] });
    let body = b.close(vec![var(r)]);
    let caller = fun("f", vec![], body, vec![f32t()]);
    err(validate(&program(b, vec![callee, caller])), "argument 0: expected `f32`, found `i64`");
}

#[test]
fn rejects_bad_loops_and_ifs() {
    err(
        check(|b, n, _| {
            let acc = b.param("acc", f32t());
            let i = b.fresh("i");
            let body = Body { stms: vec![], result: vec![var(i)] };
            let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
            let pacc = b.param("r", f32t());
            let rv = pacc.var;
            b.push(
                vec![pacc],
                Exp::Loop { params: vec![(acc, Atom::Const(PrimValue::F32(0.0)))], form, body },
            );
            (vec![var(rv)], vec![f32t()])
        }),
        "loop result 0: expected `f32`, found `i64`",
    );
    err(
        check(|b, n, _| {
            let c = b.param("c", Type::Prim(PrimType::Bool));
            let body = Body { stms: vec![], result: vec![Atom::Const(PrimValue::Bool(false))] };
            let pr = b.param("r", Type::Prim(PrimType::Bool));
            let rv = pr.var;
            b.push(
                vec![pr],
                Exp::Loop { params: vec![(c, var(n))], form: LoopForm::While(n), body },
            );
            (vec![var(rv)], vec![Type::Prim(PrimType::Bool)])
        }),
        "initial value 0: expected `bool`, found `i64`",
    );
    err(
        check(|b, n, _| {
            let then_body = Body { stms: vec![], result: vec![var(n)] };
            let else_body = Body { stms: vec![], result: vec![Atom::Const(PrimValue::F32(1.0))] };
            let r = b.let1(
                "r",
                i64t(),
                Exp::If { cond: boolc(true), then_body, else_body, ret: vec![i64t()] },
            );
            (vec![var(r)], vec![i64t()])
        }),
        "`else` result 0: expected `i64`, found `f32`",
    );
}

#[test]
fn if_may_return_sizes_it_binds() {
    let r = check(|b, n, xs| {
        let k = b.param("k", i64t());
        let kv = k.var;
        let ys = b.param("ys", arr(PrimType::F32, &[Dim::Var(kv)]));
        let ysv = ys.var;
        b.open();
        let e = b.let1(
            "e",
            arr(PrimType::F32, &[Dim::Const(0)]),
            Exp::ArrayLit { elems: vec![], elem_ty: f32t() },
        );
        let else_body = b.close(vec![i64c(0), var(e)]);
        let then_body = Body { stms: vec![], result: vec![var(n), var(xs)] };
        let ret = vec![i64t(), arr(PrimType::F32, &[Dim::Var(kv)])];
        b.push(vec![k, ys], Exp::If { cond: boolc(true), then_body, else_body, ret });
        (vec![var(ysv)], vec![arr(PrimType::F32, &[Dim::Var(kv)])])
    });
    // The result names `k`, which is not a parameter: it must be an existential.
    err(r, "neither a parameter nor an existential result");
}

#[test]
fn checks_consumption() {
    err(
        check(|b, _, xs| {
            let t = arr(PrimType::F32, &[Dim::Var(Var(0))]);
            let ys = b.let1(
                "ys",
                t.clone(),
                Exp::Update {
                    arr: xs,
                    idx: vec![DimIndex::Fix(i64c(0))],
                    value: Atom::Const(PrimValue::F32(1.0)),
                },
            );
            let z = b.let1("z", f32t(), Exp::Index { arr: xs, idx: vec![DimIndex::Fix(i64c(0))] });
            let _ = ys;
            (vec![var(z)], vec![f32t()])
        }),
        "`xs_1` is used after `xs_1` was consumed",
    );
    // Aliases share the consumption.
    err(
        check(|b, n, xs| {
            let t = arr(PrimType::F32, &[Dim::Var(n)]);
            let alias = b.let1("alias", t.clone(), Exp::Atom(var(xs)));
            let _ = b.let1(
                "ys",
                t.clone(),
                Exp::Update {
                    arr: alias,
                    idx: vec![DimIndex::Fix(i64c(0))],
                    value: Atom::Const(PrimValue::F32(1.0)),
                },
            );
            (vec![var(xs)], vec![t])
        }),
        "was consumed",
    );
    // Consuming a variable from outside a loop.
    err(
        check(|b, n, xs| {
            let t = arr(PrimType::F32, &[Dim::Var(n)]);
            let acc = b.param("acc", f32t());
            let i = b.fresh("i");
            b.open();
            let _ = b.let1(
                "ys",
                t.clone(),
                Exp::Update { arr: xs, idx: vec![DimIndex::Fix(i64c(0))], value: var(acc.var) },
            );
            let body = b.close(vec![var(acc.var)]);
            let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
            let r = b.param("r", f32t());
            let rv = r.var;
            b.push(
                vec![r],
                Exp::Loop { params: vec![(acc, Atom::Const(PrimValue::F32(0.0)))], form, body },
            );
            (vec![var(rv)], vec![f32t()])
        }),
        "consumed inside a loop or lambda but bound outside it",
    );
    // Updating a loop parameter is fine, and consumes the initial value.
    err(
        check(|b, n, xs| {
            let t = arr(PrimType::F32, &[Dim::Var(n)]);
            let acc = b.param("acc", t.clone());
            let i = b.fresh("i");
            b.open();
            let ys = b.let1(
                "ys",
                t.clone(),
                Exp::Update {
                    arr: acc.var,
                    idx: vec![DimIndex::Fix(var(i))],
                    value: Atom::Const(PrimValue::F32(0.0)),
                },
            );
            let body = b.close(vec![var(ys)]);
            let form = LoopForm::For { i, it: IntType::I64, bound: var(n) };
            let r = b.param("r", t.clone());
            b.push(vec![r], Exp::Loop { params: vec![(acc, var(xs))], form, body });
            (vec![var(xs)], vec![t])
        }),
        "`xs_1` is used after `xs_1` was consumed",
    );
}

#[test]
fn checks_assert_and_entries() {
    err(
        check(|b, n, _| {
            b.push(
                vec![],
                Exp::Assert { cond: boolc(false), msg: "{} and {}".into(), vals: vec![var(n)] },
            );
            (vec![var(n)], vec![i64t()])
        }),
        "message has 2 `{}` but 1 values",
    );
    let mut b = Builder::new();
    let n = b.param("n", i64t());
    let xs = b.param("xs", arr(PrimType::F32, &[Dim::Const(3)]));
    let body = Body { stms: vec![], result: vec![var(n.var)] };
    let f = fun("f", vec![n, xs], body, vec![i64t()]);
    let mut p = program(b, vec![f]);
    p.entries.push(EntryPoint {
        name: "main".into(),
        fun: 0,
        params: vec![EntryType {
            elem: PrimType::F32,
            rank: 1,
            unique: false,
            display: "[]f32".into(),
        }],
        results: vec![EntryType {
            elem: PrimType::I64,
            rank: 0,
            unique: false,
            display: "i64".into(),
        }],
        param_shapes: vec![EntryShape::Leaf],
        result_shape: EntryShape::Leaf,
        span: Span::DUMMY,
    });
    err(validate(&p), "must take its dims from the leading size parameters");
    p.entries[0].results[0].elem = PrimType::F32;
    p.funs[0].params[1].ty = arr(PrimType::F32, &[Dim::Var(Var(0))]);
    err(validate(&p), "result type `i64` is not `i64`");
}
