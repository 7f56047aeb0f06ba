//! A small builder for IR programs in tests, and helpers to run them.

use crate::diag::{Diagnostic, Span};
use crate::interp::array::{Array, Meter, Val};
use crate::interp::{eval, liveness, Limits};
use crate::ir::{
    self, Atom, Body, Dim, EntryPoint, EntryShape, EntryType, Exp, FunDef, Lambda, Param, Stm,
    Type, Var,
};
use crate::prim::{PrimType, PrimValue};
use crate::value::{ArrayValue, Value};

pub use crate::prim::PrimValue as P;

pub const I64: PrimType = PrimType::I64;
pub const I32: PrimType = PrimType::I32;
pub const F32: PrimType = PrimType::F32;
pub const F64: PrimType = PrimType::F64;
pub const BOOL: PrimType = PrimType::Bool;

pub fn t(p: PrimType) -> Type {
    Type::Prim(p)
}

pub fn arr(elem: PrimType, shape: &[Dim]) -> Type {
    Type::Array { elem, shape: shape.to_vec() }
}

pub fn c(n: i64) -> Dim {
    Dim::Const(n)
}

pub fn d(v: Var) -> Dim {
    Dim::Var(v)
}

pub fn v(x: Var) -> Atom {
    Atom::Var(x)
}

pub fn k64(x: i64) -> Atom {
    Atom::Const(P::I64(x))
}

pub fn k32(x: i32) -> Atom {
    Atom::Const(P::I32(x))
}

pub fn kf32(x: f32) -> Atom {
    Atom::Const(P::F32(x))
}

/// A program under construction: variables get fresh numbers, statements distinct spans.
#[derive(Default)]
pub struct Prog {
    pub prog: ir::Program,
    spans: u32,
    /// The program breaks an IR rule on purpose (the interpreter must still not panic);
    /// otherwise `ir::validate` must accept it before it runs.
    pub invalid: bool,
}

impl Prog {
    pub fn new() -> Prog {
        Prog::default()
    }

    pub fn var(&mut self, name: &str) -> Var {
        self.prog.names.push(name.to_string());
        Var(self.prog.names.len() as u32 - 1)
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Param {
        Param { var: self.var(name), ty }
    }

    fn next_span(&mut self) -> Span {
        self.spans += 1;
        Span::new(self.spans as usize * 10, self.spans as usize * 10 + 5)
    }

    pub fn body(&mut self) -> Bb<'_> {
        Bb { p: self, stms: Vec::new() }
    }

    pub fn fun(&mut self, name: &str, params: Vec<Param>, ret: Vec<Type>, body: Body) -> usize {
        self.fun_ext(name, params, 0, ret, body)
    }

    pub fn fun_ext(
        &mut self,
        name: &str,
        params: Vec<Param>,
        existentials: usize,
        ret: Vec<Type>,
        body: Body,
    ) -> usize {
        let span = Span::new(1000 + self.prog.funs.len(), 1001 + self.prog.funs.len());
        self.prog.funs.push(FunDef { name: name.into(), params, existentials, ret, body, span });
        self.prog.funs.len() - 1
    }

    pub fn entry(
        &mut self,
        name: &str,
        fun: usize,
        params: &[(PrimType, usize)],
        results: &[(PrimType, usize)],
    ) {
        let et = |&(elem, rank): &(PrimType, usize)| EntryType {
            elem,
            rank,
            unique: false,
            display: format!("{}{elem}", "[]".repeat(rank)),
        };
        self.prog.entries.push(EntryPoint {
            name: name.into(),
            fun,
            params: params.iter().map(et).collect(),
            results: results.iter().map(et).collect(),
            param_shapes: vec![EntryShape::Leaf; params.len()],
            result_shape: EntryShape::flat_result(results.len()),
            span: Span::new(2000, 2001),
        });
    }
}

/// A body under construction.
pub struct Bb<'a> {
    pub p: &'a mut Prog,
    pub stms: Vec<Stm>,
}

impl Bb<'_> {
    /// A nested body builder (for branches, loops and lambdas).
    pub fn sub(&mut self) -> Bb<'_> {
        Bb { p: self.p, stms: Vec::new() }
    }

    pub fn var(&mut self, name: &str) -> Var {
        self.p.var(name)
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Param {
        self.p.param(name, ty)
    }

    /// `let pat = e`, returning the statement's span.
    pub fn bind(&mut self, pat: Vec<Param>, exp: Exp) -> Span {
        let span = self.p.next_span();
        self.stms.push(Stm { pat, exp, span });
        span
    }

    /// `let name: ty = e`.
    pub fn let1(&mut self, name: &str, ty: Type, exp: Exp) -> Var {
        let x = self.var(name);
        self.bind(vec![Param { var: x, ty }], exp);
        x
    }

    /// The span of the last statement.
    pub fn last_span(&self) -> Span {
        self.stms.last().map_or(Span::DUMMY, |s| s.span)
    }

    pub fn finish(self, result: Vec<Atom>) -> Body {
        Body { stms: self.stms, result }
    }
}

pub fn lambda(params: Vec<Param>, body: Body, ret: Vec<Type>) -> Lambda {
    Lambda { params, body, ret }
}

/// Call function `fun` directly (no entry ABI) on `args`.
pub fn call(p: &Prog, fun: usize, args: Vec<Value>) -> Result<Vec<Value>, Diagnostic> {
    call_with(p, fun, args, &Limits::default())
}

pub fn call_with(
    p: &Prog,
    fun: usize,
    args: Vec<Value>,
    limits: &Limits,
) -> Result<Vec<Value>, Diagnostic> {
    if !p.invalid {
        if let Err(m) = crate::ir::validate::validate(&p.prog) {
            panic!("invalid IR: {m}\n{}", crate::ir::print::print_program(&p.prog));
        }
    }
    let analysis = liveness::analyse(&p.prog, limits.max_depth)?;
    let meter = Meter::new(limits.max_live_elements);
    let vals = args
        .iter()
        .map(|a| match a {
            Value::Prim(x) => Val::Prim(*x),
            Value::Array(av) => Val::Arr(Array::from_value(&meter, av).expect("argument")),
        })
        .collect();
    let mut it =
        eval::Interp::new(&p.prog, &analysis.funs, analysis.max_var, meter.clone(), limits.clone());
    let out = it.call(fun, vals, Span::new(1, 2)).map_err(|d| *d)?;
    let out = out
        .into_iter()
        .map(|v| match v {
            Val::Prim(x) => Value::Prim(x),
            Val::Arr(a) => Value::Array(a.to_value()),
        })
        .collect();
    drop(it);
    assert_eq!(meter.live(), 0, "every buffer is released at the end of a run");
    Ok(out)
}

/// Call and expect success.
pub fn ok(p: &Prog, fun: usize, args: Vec<Value>) -> Vec<Value> {
    call(p, fun, args).unwrap_or_else(|d| panic!("unexpected error: {}", d.message))
}

/// Call and expect a run-time error; returns it.
pub fn fails(p: &Prog, fun: usize, args: Vec<Value>) -> Diagnostic {
    match call(p, fun, args) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(d) => {
            assert_eq!(d.phase, crate::diag::Phase::Runtime, "{}", d.message);
            d
        }
    }
}

pub fn s64(x: i64) -> Value {
    Value::Prim(P::I64(x))
}

pub fn s32(x: i32) -> Value {
    Value::Prim(P::I32(x))
}

pub fn sf32(x: f32) -> Value {
    Value::Prim(P::F32(x))
}

pub fn array(elem: PrimType, shape: &[i64], data: Vec<PrimValue>) -> Value {
    Value::Array(ArrayValue { elem, shape: shape.to_vec(), data })
}

pub fn a64(shape: &[i64], data: &[i64]) -> Value {
    array(I64, shape, data.iter().map(|&x| P::I64(x)).collect())
}

pub fn a32(shape: &[i64], data: &[i32]) -> Value {
    array(I32, shape, data.iter().map(|&x| P::I32(x)).collect())
}

pub fn af32(shape: &[i64], data: &[f32]) -> Value {
    array(F32, shape, data.iter().map(|&x| P::F32(x)).collect())
}

/// The array `0, 1, ..` of `shape` (i64).
pub fn range64(shape: &[i64]) -> Value {
    let n: i64 = shape.iter().product();
    a64(shape, &(0..n).collect::<Vec<_>>())
}
