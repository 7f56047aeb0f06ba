//! Scalar operations with the interpreter's semantics (`interp::prim_ops`): wrapping integers of
//! every width (8- and 16-bit values live in i32 locals, kept sign- or zero-extended), flooring
//! `/` and `%`, Futhark's `min`/`max` on NaN, float → int conversion that gives 0 for NaN and ±inf
//! and wraps other out-of-range values. Elementary functions wasm has no instruction for are
//! imported from the host (`math.f32.sin`, ...), which computes them with its `libm`, except f32
//! `exp`, which the module computes itself (elementary.rs).

use walrus::ir::{BinaryOp as B, UnaryOp as U, Value};
use walrus::{FunctionBuilder, FunctionId, InstrSeqBuilder, ValType};

use super::emit::val_type;
use super::gen::Gen;
use crate::diag::Span;
use crate::ir::{Atom, BinOp, CmpOp, Exp, MathFn, UnOp};
use crate::prim::{FloatType, IntType, PrimType, PrimValue};

pub(super) fn push_const(b: &mut InstrSeqBuilder, c: PrimValue) {
    let v = match c {
        PrimValue::Bool(x) => Value::I32(x as i32),
        PrimValue::I8(x) => Value::I32(x as i32),
        PrimValue::I16(x) => Value::I32(x as i32),
        PrimValue::I32(x) => Value::I32(x),
        PrimValue::U8(x) => Value::I32(x as i32),
        PrimValue::U16(x) => Value::I32(x as i32),
        PrimValue::U32(x) => Value::I32(x as i32),
        PrimValue::I64(x) => Value::I64(x),
        PrimValue::U64(x) => Value::I64(x as i64),
        PrimValue::F16(x) => Value::F32(x.to_f32()),
        PrimValue::F32(x) => Value::F32(x),
        PrimValue::F64(x) => Value::F64(x),
    };
    b.const_(v);
}

fn wide(t: IntType) -> bool {
    t.bits() == 64
}

/// Re-establish the representation of a narrow integer after i32 arithmetic.
pub(super) fn norm(b: &mut InstrSeqBuilder, t: IntType) {
    match t {
        IntType::I8 => {
            b.unop(U::I32Extend8S);
        }
        IntType::I16 => {
            b.unop(U::I32Extend16S);
        }
        IntType::U8 => {
            b.i32_const(0xff).binop(B::I32And);
        }
        IntType::U16 => {
            b.i32_const(0xffff).binop(B::I32And);
        }
        _ => {}
    }
}

/// `[x] -> [x as i64]` by the value's type.
pub(super) fn to_i64(b: &mut InstrSeqBuilder, t: PrimType) {
    match t {
        PrimType::Int(i) if wide(i) => {}
        PrimType::Int(i) if i.signed() => {
            b.unop(U::I64ExtendSI32);
        }
        _ => {
            b.unop(U::I64ExtendUI32);
        }
    }
}

/// `[i64] -> [value of t]`, wrapping.
pub(super) fn from_i64(b: &mut InstrSeqBuilder, t: PrimType) {
    if let PrimType::Int(i) = t {
        if !wide(i) {
            b.unop(U::I32WrapI64);
            norm(b, i);
        }
    }
}

fn op64(op: B) -> B {
    match op {
        B::I32Add => B::I64Add,
        B::I32Sub => B::I64Sub,
        B::I32Mul => B::I64Mul,
        B::I32And => B::I64And,
        B::I32Or => B::I64Or,
        B::I32Xor => B::I64Xor,
        B::I32Shl => B::I64Shl,
        B::I32ShrS => B::I64ShrS,
        B::I32ShrU => B::I64ShrU,
        B::I32DivS => B::I64DivS,
        B::I32DivU => B::I64DivU,
        B::I32RemS => B::I64RemS,
        B::I32RemU => B::I64RemU,
        B::I32Eq => B::I64Eq,
        B::I32Ne => B::I64Ne,
        B::I32LtS => B::I64LtS,
        B::I32LtU => B::I64LtU,
        B::I32LeS => B::I64LeS,
        B::I32LeU => B::I64LeU,
        B::I32GtS => B::I64GtS,
        B::I32GtU => B::I64GtU,
        B::I32GeS => B::I64GeS,
        B::I32GeU => B::I64GeU,
        o => o,
    }
}

/// An i32 operation (given by its i32 name) on integers of type `t`, wrapped to the type.
pub(super) fn int_arith(b: &mut InstrSeqBuilder, op: B, t: PrimType) {
    match t {
        PrimType::Int(i) if wide(i) => {
            b.binop(op64(op));
        }
        PrimType::Int(i) => {
            b.binop(op);
            norm(b, i);
        }
        _ => {
            b.binop(op);
        }
    }
}

pub(super) fn cmp_int(b: &mut InstrSeqBuilder, op: CmpOp, t: IntType) {
    let s = t.signed();
    let o = match op {
        CmpOp::Eq => B::I32Eq,
        CmpOp::Neq => B::I32Ne,
        CmpOp::Lt if s => B::I32LtS,
        CmpOp::Lt => B::I32LtU,
        CmpOp::Le if s => B::I32LeS,
        CmpOp::Le => B::I32LeU,
        CmpOp::Gt if s => B::I32GtS,
        CmpOp::Gt => B::I32GtU,
        CmpOp::Ge if s => B::I32GeS,
        CmpOp::Ge => B::I32GeU,
    };
    b.binop(if wide(t) { op64(o) } else { o });
}

fn cmp_float(b: &mut InstrSeqBuilder, op: CmpOp, f: FloatType) {
    let d = f == FloatType::F64;
    b.binop(match (op, d) {
        (CmpOp::Eq, false) => B::F32Eq,
        (CmpOp::Neq, false) => B::F32Ne,
        (CmpOp::Lt, false) => B::F32Lt,
        (CmpOp::Le, false) => B::F32Le,
        (CmpOp::Gt, false) => B::F32Gt,
        (CmpOp::Ge, false) => B::F32Ge,
        (CmpOp::Eq, true) => B::F64Eq,
        (CmpOp::Neq, true) => B::F64Ne,
        (CmpOp::Lt, true) => B::F64Lt,
        (CmpOp::Le, true) => B::F64Le,
        (CmpOp::Gt, true) => B::F64Gt,
        (CmpOp::Ge, true) => B::F64Ge,
    });
}

fn fop(f: FloatType, op32: B, op64: B) -> B {
    if f == FloatType::F64 {
        op64
    } else {
        op32
    }
}

fn fconst(b: &mut InstrSeqBuilder, f: FloatType, x: f64) {
    if f == FloatType::F64 {
        b.f64_const(x);
    } else {
        b.f32_const(x as f32);
    }
}

/// Helper-function kinds (keys of `Gen::helpers`).
const H_DIV: u8 = 0;
const H_MOD: u8 = 1;
const H_QUOT: u8 = 2;
const H_REM: u8 = 3;
const H_POW: u8 = 4;
const H_FMIN: u8 = 5;
const H_FMAX: u8 = 6;
const H_FMOD: u8 = 7;
const H_SHL: u8 = 8;
const H_SHR: u8 = 9;
const H_F2I: u8 = 10;
const H_SGN: u8 = 11;

impl Gen<'_> {
    /// An imported elementary function `math.<f32|f64>.<name>`.
    fn math_import(&mut self, f: FloatType, name: &str, arity: usize) -> FunctionId {
        // f16 is computed in f32, as the interpreter does.
        let f = if f == FloatType::F16 { FloatType::F32 } else { f };
        let key = format!("{}.{name}", f.name());
        if let Some(id) = self.imports.get(&key) {
            return *id;
        }
        let vt = val_type(PrimType::Float(f));
        // The one import with another result type: f64 → i64, wrapping like the interpreter.
        let rt = if name == "to_i64_wrapping" { ValType::I64 } else { vt };
        let ty = self.module.types.add(&vec![vt; arity], &[rt]);
        let (id, _) = self.module.add_import_func("math", &key, ty);
        self.imports.insert(key, id);
        id
    }

    /// The helper `(x, y, site) -> r` or `(x) -> r` for an operation on type `t`, built once.
    fn helper(&mut self, kind: u8, t: PrimType) -> FunctionId {
        if let Some(id) = self.helpers.get(&(kind, t)) {
            return *id;
        }
        let vt = val_type(t);
        let one_arg = matches!(kind, H_F2I | H_SGN);
        let (params, results): (Vec<ValType>, Vec<ValType>) = match kind {
            H_F2I => (vec![ValType::F64], vec![ValType::I64]),
            H_SGN => (vec![vt], vec![vt]),
            H_FMIN | H_FMAX | H_FMOD | H_SHL | H_SHR => (vec![vt, vt], vec![vt]),
            _ => (vec![vt, vt, ValType::I32], vec![vt]),
        };
        let mut fb = FunctionBuilder::new(&mut self.module.types, &params, &results);
        let args: Vec<_> = params.iter().map(|p| self.module.locals.add(*p)).collect();
        let x = args[0];
        let y = if one_arg { x } else { args[1] };
        let site = args.get(2).copied();
        let fmod_import = match (kind, t) {
            (H_FMOD, PrimType::Float(f)) => Some(self.math_import(f, "fmod", 2)),
            _ => None,
        };
        let f2i_import =
            (kind == H_F2I).then(|| self.math_import(FloatType::F64, "to_i64_wrapping", 1));
        let tmp = self.module.locals.add(vt);
        let tmp2 = self.module.locals.add(vt);
        let fail_fn = self.fail_fn;
        let mem = self.mem;
        {
            let mut b = fb.func_body();
            match (kind, t) {
                (H_DIV | H_MOD | H_QUOT | H_REM, PrimType::Int(i)) => {
                    let w = wide(i);
                    let zero = |b: &mut InstrSeqBuilder| {
                        if w {
                            b.i64_const(0);
                        } else {
                            b.i32_const(0);
                        }
                    };
                    let m1 = |b: &mut InstrSeqBuilder| {
                        if w {
                            b.i64_const(-1);
                        } else {
                            b.i32_const(-1);
                        }
                    };
                    let o = |op: B| if w { op64(op) } else { op };
                    // Division by zero.
                    b.local_get(y);
                    zero(&mut b);
                    b.binop(o(B::I32Eq)).if_else(
                        None,
                        |t| {
                            if let Some(s) = site {
                                t.local_get(s).call(fail_fn);
                            }
                        },
                        |_| {},
                    );
                    if !i.signed() {
                        b.local_get(x).local_get(y).binop(o(match kind {
                            H_DIV | H_QUOT => B::I32DivU,
                            _ => B::I32RemU,
                        }));
                    } else {
                        // q = quot(x, y) (x / -1 as negation, which wraps), r = rem(x, y).
                        b.local_get(y);
                        m1(&mut b);
                        b.binop(o(B::I32Eq)).if_else(
                            None,
                            |t| {
                                zero(t);
                                t.local_get(x).binop(o(B::I32Sub));
                                norm(t, i);
                                t.local_set(tmp);
                                zero(t);
                                t.local_set(tmp2);
                            },
                            |e| {
                                e.local_get(x).local_get(y).binop(o(B::I32DivS));
                                norm(e, i);
                                e.local_set(tmp);
                                e.local_get(x).local_get(y).binop(o(B::I32RemS)).local_set(tmp2);
                            },
                        );
                        // Flooring: adjust when r != 0 and sign(r) != sign(y).
                        let adjust = |b: &mut InstrSeqBuilder| {
                            b.local_get(tmp2);
                            zero(b);
                            b.binop(o(B::I32Ne));
                            b.local_get(tmp2);
                            zero(b);
                            b.binop(o(B::I32LtS));
                            b.local_get(y);
                            zero(b);
                            b.binop(o(B::I32LtS));
                            b.binop(B::I32Ne).binop(B::I32And);
                        };
                        match kind {
                            H_QUOT => {
                                b.local_get(tmp);
                            }
                            H_REM => {
                                b.local_get(tmp2);
                            }
                            H_DIV => {
                                b.local_get(tmp);
                                m1(&mut b);
                                b.binop(o(B::I32Add));
                                norm(&mut b, i);
                                b.local_get(tmp);
                                adjust(&mut b);
                                b.select(None);
                            }
                            _ => {
                                b.local_get(tmp2).local_get(y).binop(o(B::I32Add));
                                norm(&mut b, i);
                                b.local_get(tmp2);
                                adjust(&mut b);
                                b.select(None);
                            }
                        }
                    }
                }
                (H_POW, PrimType::Int(i)) => {
                    let w = wide(i);
                    let o = |op: B| if w { op64(op) } else { op };
                    let c = |b: &mut InstrSeqBuilder, v: i64| {
                        if w {
                            b.i64_const(v);
                        } else {
                            b.i32_const(v as i32);
                        }
                    };
                    if i.signed() {
                        b.local_get(y);
                        c(&mut b, 0);
                        b.binop(o(B::I32LtS)).if_else(
                            None,
                            |t| {
                                t.i32_const(super::ERR_ARGS as i32).local_get(x);
                                store_raw(t, mem, vt);
                                t.i32_const(super::ERR_ARGS as i32 + 8).local_get(y);
                                store_raw(t, mem, vt);
                                if let Some(s) = site {
                                    t.local_get(s).call(fail_fn);
                                }
                            },
                            |_| {},
                        );
                    }
                    // acc = 1; while y != 0 { if y & 1 { acc *= x }; x *= x; y >>= 1 }
                    c(&mut b, 1);
                    b.local_set(tmp);
                    b.block(None, |exit| {
                        let exit_id = exit.id();
                        exit.loop_(None, |lp| {
                            let lp_id = lp.id();
                            lp.local_get(y);
                            if w {
                                lp.unop(U::I64Eqz);
                            } else {
                                lp.unop(U::I32Eqz);
                            }
                            lp.br_if(exit_id);
                            lp.local_get(tmp)
                                .local_get(x)
                                .binop(o(B::I32Mul))
                                .local_get(tmp)
                                .local_get(y);
                            c(lp, 1);
                            lp.binop(o(B::I32And));
                            if w {
                                lp.unop(U::I32WrapI64);
                            }
                            lp.select(None).local_set(tmp);
                            lp.local_get(x).local_get(x).binop(o(B::I32Mul)).local_set(x);
                            lp.local_get(y);
                            c(lp, 1);
                            lp.binop(o(B::I32ShrU)).local_set(y);
                            lp.br(lp_id);
                        });
                    });
                    b.local_get(tmp);
                    norm(&mut b, i);
                }
                (H_SHL | H_SHR, PrimType::Int(i)) => {
                    let w = wide(i);
                    let o = |op: B| if w { op64(op) } else { op };
                    let bits = |b: &mut InstrSeqBuilder, v: u32| {
                        if w {
                            b.i64_const(v as i64);
                        } else {
                            b.i32_const(v as i32);
                        }
                    };
                    // In range: y (unsigned, as its width) < bits.
                    let in_range = |b: &mut InstrSeqBuilder| {
                        b.local_get(y);
                        bits(b, i.bits());
                        b.binop(o(B::I32LtU));
                    };
                    if kind == H_SHL {
                        b.local_get(x).local_get(y).binop(o(B::I32Shl));
                        norm(&mut b, i);
                        bits(&mut b, 0);
                        in_range(&mut b);
                        b.select(None);
                    } else if i.signed() {
                        b.local_get(x).local_get(y);
                        bits(&mut b, i.bits() - 1);
                        in_range(&mut b);
                        b.select(None).binop(o(B::I32ShrS));
                    } else {
                        b.local_get(x).local_get(y).binop(o(B::I32ShrU));
                        bits(&mut b, 0);
                        in_range(&mut b);
                        b.select(None);
                    }
                }
                (H_FMIN | H_FMAX, PrimType::Float(f)) => {
                    // isnan(x) ? y : (isnan(y) || x <= y (min) / y <= x (max)) ? x : y
                    let le = fop(f, B::F32Le, B::F64Le);
                    let ne = fop(f, B::F32Ne, B::F64Ne);
                    b.local_get(y).local_get(x).local_get(y);
                    b.local_get(y).local_get(y).binop(ne);
                    if kind == H_FMIN {
                        b.local_get(x).local_get(y).binop(le);
                    } else {
                        b.local_get(y).local_get(x).binop(le);
                    }
                    b.binop(B::I32Or).select(None);
                    b.local_get(x).local_get(x).binop(ne).select(None);
                }
                (H_FMOD, PrimType::Float(f)) => {
                    // r = fmod(x, y); r == 0 ? copysign(0, y) : (r < 0) != (y < 0) ? r + y : r
                    if let Some(m) = fmod_import {
                        b.local_get(x).local_get(y).call(m).local_set(tmp);
                    }
                    fconst(&mut b, f, 0.0);
                    b.local_get(y).binop(fop(f, B::F32Copysign, B::F64Copysign));
                    b.local_get(tmp).local_get(y).binop(fop(f, B::F32Add, B::F64Add));
                    b.local_get(tmp);
                    b.local_get(tmp);
                    fconst(&mut b, f, 0.0);
                    b.binop(fop(f, B::F32Lt, B::F64Lt));
                    b.local_get(y);
                    fconst(&mut b, f, 0.0);
                    b.binop(fop(f, B::F32Lt, B::F64Lt));
                    b.binop(B::I32Ne).select(None);
                    b.local_get(tmp);
                    fconst(&mut b, f, 0.0);
                    b.binop(fop(f, B::F32Eq, B::F64Eq)).select(None);
                }
                (H_F2I, _) => {
                    // |x| < 2^63: truncate in hardware (NaN gives 0); otherwise ask the host.
                    b.local_get(x).unop(U::F64Abs).f64_const(9.223372036854775e18).binop(B::F64Lt);
                    b.if_else(
                        ValType::I64,
                        |t| {
                            t.local_get(x).unop(U::I64TruncSSatF64);
                        },
                        |e| {
                            if let Some(m) = f2i_import {
                                e.local_get(x).call(m);
                            }
                        },
                    );
                }
                (H_SGN, PrimType::Float(f)) => {
                    // NaN stays; x > 0 → 1; x < 0 → -1; else 0.
                    let gt = fop(f, B::F32Gt, B::F64Gt);
                    let lt = fop(f, B::F32Lt, B::F64Lt);
                    fconst(&mut b, f, 1.0);
                    fconst(&mut b, f, -1.0);
                    fconst(&mut b, f, 0.0);
                    b.local_get(x);
                    fconst(&mut b, f, 0.0);
                    b.binop(lt).select(None);
                    b.local_get(x);
                    fconst(&mut b, f, 0.0);
                    b.binop(gt).select(None).local_set(tmp);
                    b.local_get(x).local_get(tmp).local_get(x).local_get(x);
                    b.binop(fop(f, B::F32Ne, B::F64Ne)).select(None);
                }
                _ => {
                    b.unreachable();
                }
            }
        }
        let id = fb.finish(args, &mut self.module.funcs);
        self.helpers.insert((kind, t), id);
        id
    }

    fn div_site(&mut self, span: Span) -> i32 {
        self.site(span, "division by zero".into(), vec![])
    }

    /// Push the value of a scalar expression.
    pub(super) fn scalar(&mut self, b: &mut InstrSeqBuilder, exp: &Exp, span: Span) {
        match exp {
            Exp::UnOp(op, t, a) => self.unop(b, *op, *t, a),
            Exp::BinOp(op, t, x, y) => self.binop(b, *op, *t, x, y, span),
            Exp::Cmp(op, t, x, y) => {
                self.push_atom(b, x);
                self.push_atom(b, y);
                match t {
                    PrimType::Bool => cmp_int(b, *op, IntType::U32),
                    PrimType::Int(i) => cmp_int(b, *op, *i),
                    PrimType::Float(f) => cmp_float(b, *op, *f),
                }
            }
            Exp::Convert { from, to, arg } => {
                self.push_atom(b, arg);
                self.convert(b, *from, *to);
            }
            Exp::Math(f, t, args) => self.math(b, *f, *t, args, span),
            Exp::Select(c, x, y) => {
                self.push_atom(b, x);
                self.push_atom(b, y);
                self.push_atom(b, c);
                b.select(None);
            }
            _ => {}
        }
    }

    fn unop(&mut self, b: &mut InstrSeqBuilder, op: UnOp, t: PrimType, a: &Atom) {
        match (op, t) {
            (UnOp::Neg | UnOp::Not, PrimType::Bool) => {
                self.push_atom(b, a);
                b.unop(U::I32Eqz);
            }
            (UnOp::Neg, PrimType::Int(i)) => {
                push_const(b, PrimValue::int(i, 0));
                self.push_atom(b, a);
                int_arith(b, B::I32Sub, t);
            }
            (UnOp::Not, PrimType::Int(i)) => {
                self.push_atom(b, a);
                push_const(b, PrimValue::int(i, -1));
                int_arith(b, B::I32Xor, t);
            }
            (UnOp::Abs, PrimType::Int(i)) if i.signed() => {
                push_const(b, PrimValue::int(i, 0));
                self.push_atom(b, a);
                int_arith(b, B::I32Sub, t);
                self.push_atom(b, a);
                self.push_atom(b, a);
                push_const(b, PrimValue::int(i, 0));
                cmp_int(b, CmpOp::Lt, i);
                b.select(None);
            }
            (UnOp::Abs, PrimType::Int(_)) => self.push_atom(b, a),
            (UnOp::Sgn, PrimType::Int(i)) => {
                // (x > 0) - (x < 0), as the type.
                self.push_atom(b, a);
                push_const(b, PrimValue::int(i, 0));
                cmp_int(b, CmpOp::Gt, i);
                self.push_atom(b, a);
                push_const(b, PrimValue::int(i, 0));
                cmp_int(b, CmpOp::Lt, i);
                b.binop(B::I32Sub);
                if wide(i) {
                    b.unop(U::I64ExtendSI32);
                }
                norm(b, i);
            }
            (UnOp::Neg, PrimType::Float(f)) => {
                self.push_atom(b, a);
                b.unop(if f == FloatType::F64 { U::F64Neg } else { U::F32Neg });
            }
            (UnOp::Abs, PrimType::Float(f)) => {
                self.push_atom(b, a);
                b.unop(if f == FloatType::F64 { U::F64Abs } else { U::F32Abs });
            }
            (UnOp::Sgn, PrimType::Float(_)) => {
                self.push_atom(b, a);
                let h = self.helper(H_SGN, t);
                b.call(h);
            }
            _ => {
                self.push_atom(b, a);
            }
        }
    }

    fn binop(
        &mut self,
        b: &mut InstrSeqBuilder,
        op: BinOp,
        t: PrimType,
        x: &Atom,
        y: &Atom,
        span: Span,
    ) {
        if let (
            BinOp::Pow,
            PrimType::Float(f @ (FloatType::F32 | FloatType::F64)),
            Atom::Const(c),
        ) = (op, t, y)
        {
            // `x ** 2` is `x * x` (to within pow's own rounding), without the host's `pow`.
            if c.as_f64() == Some(2.0) {
                self.push_atom(b, x);
                self.push_atom(b, x);
                b.binop(fop(f, B::F32Mul, B::F64Mul));
                return;
            }
        }
        self.push_atom(b, x);
        self.push_atom(b, y);
        match t {
            PrimType::Bool => {
                b.binop(match op {
                    BinOp::LogAnd | BinOp::And | BinOp::Min => B::I32And,
                    BinOp::LogOr | BinOp::Or | BinOp::Max => B::I32Or,
                    _ => B::I32Xor,
                });
            }
            PrimType::Int(i) => match op {
                BinOp::Add => int_arith(b, B::I32Add, t),
                BinOp::Sub => int_arith(b, B::I32Sub, t),
                BinOp::Mul => int_arith(b, B::I32Mul, t),
                BinOp::And | BinOp::LogAnd => int_arith(b, B::I32And, t),
                BinOp::Or | BinOp::LogOr => int_arith(b, B::I32Or, t),
                BinOp::Xor => int_arith(b, B::I32Xor, t),
                BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                    let kind = match op {
                        BinOp::Div => H_DIV,
                        BinOp::Mod => H_MOD,
                        BinOp::Quot => H_QUOT,
                        _ => H_REM,
                    };
                    let site = self.div_site(span);
                    let h = self.helper(kind, t);
                    b.i32_const(site).call(h);
                }
                BinOp::Pow => {
                    let site = self.site(span, "negative exponent: {} ** {}".into(), vec![t, t]);
                    let h = self.helper(H_POW, t);
                    b.i32_const(site).call(h);
                }
                BinOp::Shl | BinOp::Shr => {
                    let h = self.helper(if op == BinOp::Shl { H_SHL } else { H_SHR }, t);
                    b.call(h);
                }
                BinOp::Min | BinOp::Max => {
                    // select(x, y, x < y) for min.
                    let l = self.tmp(val_type(t));
                    let r = self.tmp(val_type(t));
                    b.local_set(r).local_set(l);
                    b.local_get(l).local_get(r).local_get(l).local_get(r);
                    cmp_int(b, if op == BinOp::Min { CmpOp::Le } else { CmpOp::Ge }, i);
                    b.select(None);
                }
            },
            PrimType::Float(f) => match op {
                BinOp::Add => {
                    b.binop(fop(f, B::F32Add, B::F64Add));
                }
                BinOp::Sub => {
                    b.binop(fop(f, B::F32Sub, B::F64Sub));
                }
                BinOp::Mul => {
                    b.binop(fop(f, B::F32Mul, B::F64Mul));
                }
                BinOp::Div => {
                    b.binop(fop(f, B::F32Div, B::F64Div));
                }
                BinOp::Quot => {
                    b.binop(fop(f, B::F32Div, B::F64Div));
                    b.unop(if f == FloatType::F64 { U::F64Trunc } else { U::F32Trunc });
                }
                BinOp::Rem => {
                    let m = self.math_import(f, "fmod", 2);
                    b.call(m);
                }
                BinOp::Mod => {
                    let h = self.helper(H_FMOD, t);
                    b.call(h);
                }
                BinOp::Pow => {
                    let m = self.math_import(f, "pow", 2);
                    b.call(m);
                }
                BinOp::Min => {
                    let h = self.helper(H_FMIN, t);
                    b.call(h);
                }
                BinOp::Max => {
                    let h = self.helper(H_FMAX, t);
                    b.call(h);
                }
                _ => {
                    self.unsupported(span, &format!("`{op:?}` on `{t}`"));
                    b.drop();
                }
            },
        }
    }

    /// `[x: from] -> [x: to]`
    fn convert(&mut self, b: &mut InstrSeqBuilder, from: PrimType, to: PrimType) {
        use FloatType as F;
        match (from, to) {
            _ if from == to => {}
            (PrimType::Float(F::F64), PrimType::Float(F::F16)) => {
                let f = self.f16_import("from_f64");
                b.call(f);
            }
            (PrimType::Int(i), PrimType::Float(F::F16)) => {
                // Through f64, as the interpreter (exact below 2^53; f16 overflows long before).
                self.convert(b, PrimType::Int(i), PrimType::F64);
                let f = self.f16_import("from_f64");
                b.call(f);
            }
            (PrimType::Float(F::F16), PrimType::Float(F::F32)) => {}
            (PrimType::Float(f), PrimType::Bool) => {
                fconst(b, f, 0.0);
                b.binop(fop(f, B::F32Ne, B::F64Ne));
            }
            (PrimType::Int(i), PrimType::Bool) => {
                if wide(i) {
                    b.i64_const(0).binop(B::I64Ne);
                } else {
                    b.i32_const(0).binop(B::I32Ne);
                }
            }
            (PrimType::Bool | PrimType::Int(_), PrimType::Int(_)) => {
                to_i64(b, from);
                from_i64(b, to);
            }
            (PrimType::Float(f), PrimType::Int(_)) => {
                if f != F::F64 {
                    b.unop(U::F64PromoteF32);
                }
                // The helper's fast path inline (a call per element cost the histogram
                // benchmark a fifth of its time); the helper for the rest.
                let x = self.tmp(ValType::F64);
                b.local_tee(x).unop(U::F64Abs).f64_const(9.223372036854775e18).binop(B::F64Lt);
                let h = self.helper(H_F2I, PrimType::F64);
                b.if_else(
                    ValType::I64,
                    |t| {
                        t.local_get(x).unop(U::I64TruncSSatF64);
                    },
                    |e| {
                        e.local_get(x).call(h);
                    },
                );
                from_i64(b, to);
            }
            (PrimType::Bool, PrimType::Float(f)) => {
                b.unop(if f == F::F64 { U::F64ConvertUI32 } else { U::F32ConvertUI32 });
            }
            (PrimType::Int(i), PrimType::Float(f)) => {
                let d = f == F::F64;
                b.unop(match (wide(i), i.signed(), d) {
                    (false, true, false) => U::F32ConvertSI32,
                    (false, false, false) => U::F32ConvertUI32,
                    (true, true, false) => U::F32ConvertSI64,
                    (true, false, false) => U::F32ConvertUI64,
                    (false, true, true) => U::F64ConvertSI32,
                    (false, false, true) => U::F64ConvertUI32,
                    (true, true, true) => U::F64ConvertSI64,
                    (true, false, true) => U::F64ConvertUI64,
                });
            }
            (PrimType::Float(F::F64), PrimType::Float(_)) => {
                b.unop(U::F32DemoteF64);
            }
            (PrimType::Float(_), PrimType::Float(F::F64)) => {
                b.unop(U::F64PromoteF32);
            }
            _ => {}
        }
    }

    fn math(&mut self, b: &mut InstrSeqBuilder, f: MathFn, t: PrimType, args: &[Atom], span: Span) {
        use MathFn as M;
        for a in args {
            self.push_atom(b, a);
        }
        let PrimType::Float(ft) = t else {
            // Integer functions: clz, ctz, popc (result i32).
            let PrimType::Int(i) =
                self.atom_type(args.first().unwrap_or(&Atom::Const(PrimValue::I32(0))))
            else {
                self.unsupported(span, &format!("`{f:?}` on `{t}`"));
                return;
            };
            let w = wide(i);
            let bits = i.bits() as i32;
            if !w && i.signed() && bits < 32 {
                b.i32_const((1i64 << bits) as i32 - 1).binop(B::I32And);
            }
            match f {
                M::Clz => {
                    b.unop(if w { U::I64Clz } else { U::I32Clz });
                    if w {
                        b.unop(U::I32WrapI64);
                    } else if bits < 32 {
                        b.i32_const(32 - bits).binop(B::I32Sub);
                    }
                }
                M::Ctz => {
                    if !w && bits < 32 {
                        b.i32_const(1 << bits).binop(B::I32Or);
                    }
                    b.unop(if w { U::I64Ctz } else { U::I32Ctz });
                    if w {
                        b.unop(U::I32WrapI64);
                    }
                }
                M::Popc => {
                    b.unop(if w { U::I64Popcnt } else { U::I32Popcnt });
                    if w {
                        b.unop(U::I32WrapI64);
                    }
                }
                M::FromBits => {
                    // `t` is the float type in IR; an integer `t` is not expected here.
                    self.unsupported(span, "`from_bits` on an integer type");
                }
                _ => self.unsupported(span, &format!("`{f:?}` on `{t}`")),
            }
            return;
        };
        let d = ft == FloatType::F64;
        let un = |b: &mut InstrSeqBuilder, s: U, dd: U| {
            b.unop(if d { dd } else { s });
        };
        match f {
            M::Sqrt => un(b, U::F32Sqrt, U::F64Sqrt),
            M::Floor => un(b, U::F32Floor, U::F64Floor),
            M::Ceil => un(b, U::F32Ceil, U::F64Ceil),
            M::Trunc => un(b, U::F32Trunc, U::F64Trunc),
            M::Round => un(b, U::F32Nearest, U::F64Nearest),
            M::IsNan => {
                let l = self.tmp(val_type(t));
                b.local_tee(l).local_get(l).binop(fop(ft, B::F32Ne, B::F64Ne));
            }
            M::IsInf => {
                un(b, U::F32Abs, U::F64Abs);
                fconst(b, ft, f64::INFINITY);
                b.binop(fop(ft, B::F32Eq, B::F64Eq));
            }
            M::CopySign => {
                b.binop(fop(ft, B::F32Copysign, B::F64Copysign));
            }
            M::ToBits if ft == FloatType::F16 => {
                let f = self.f16_import("to_bits");
                b.call(f);
            }
            M::FromBits if ft == FloatType::F16 => {
                let f = self.f16_import("from_bits");
                b.call(f);
            }
            M::ToBits => un(b, U::I32ReinterpretF32, U::I64ReinterpretF64),
            M::FromBits => un(b, U::F32ReinterpretI32, U::F64ReinterpretI64),
            M::Fma => {
                let m = self.math_import(ft, "fma", 3);
                b.call(m);
            }
            M::Exp if ft != FloatType::F64 => {
                let m = self.exp_f32();
                b.call(m);
            }
            _ => {
                let Some(&(name, arity)) =
                    super::MATH_IMPORTS.iter().find(|(n, _)| *n == math_name(f))
                else {
                    self.unsupported(span, &format!("`{f:?}`"));
                    return;
                };
                let m = self.math_import(ft, name, arity);
                b.call(m);
            }
        }
    }
}

fn store_raw(b: &mut InstrSeqBuilder, mem: walrus::MemoryId, vt: ValType) {
    use walrus::ir::{MemArg, StoreKind};
    let kind = match vt {
        ValType::I64 => StoreKind::I64 { atomic: false },
        ValType::F32 => StoreKind::F32,
        ValType::F64 => StoreKind::F64,
        _ => StoreKind::I32 { atomic: false },
    };
    b.store(mem, kind, MemArg { align: 4, offset: 0 });
}

fn math_name(f: MathFn) -> &'static str {
    use MathFn as M;
    match f {
        M::Exp => "exp",
        M::Log => "log",
        M::Log2 => "log2",
        M::Log10 => "log10",
        M::Sin => "sin",
        M::Cos => "cos",
        M::Tan => "tan",
        M::Asin => "asin",
        M::Acos => "acos",
        M::Atan => "atan",
        M::Atan2 => "atan2",
        M::Sinh => "sinh",
        M::Cosh => "cosh",
        M::Tanh => "tanh",
        M::Cbrt => "cbrt",
        M::Log1p => "log1p",
        M::Asinh => "asinh",
        M::Acosh => "acosh",
        M::Atanh => "atanh",
        M::Hypot => "hypot",
        _ => "",
    }
}
