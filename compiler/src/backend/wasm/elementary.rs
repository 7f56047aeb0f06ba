//! Elementary functions computed inside the module instead of imported from the host. `f32.exp`
//! is the one that matters for speed (softmax, log-sum-exp, activations): an imported function
//! costs a call into the host per element and cannot be vectorised, while this one runs four
//! lanes at a time in the SIMD paths.
//!
//! `exp` is computed in f64 and rounded once to f32: `x = k·ln 2 + r` with `|r| <= ln 2 / 2`,
//! `e^r` by its Taylor polynomial of degree 10 (relative error below 1e-12), and `2^k` added to
//! the exponent bits. The result is libm's `expf` to within one ulp (almost always equal), and
//! overflow, underflow (subnormals included), infinities and NaN come out as IEEE says.

use walrus::ir::{BinaryOp as B, UnaryOp as U};
use walrus::{FunctionBuilder, FunctionId, InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use crate::prim::{FloatType, PrimType};

/// Keys of the helpers built here in `Gen::helpers` (beside scalar.rs's kinds).
const H_EXP: u8 = 64;
const H_VEXP: u8 = 65;

/// Inputs are clamped to this range first: above it `expf` overflows to infinity, below it
/// underflows to 0, and inside it `2^k` stays a normal f64.
const EXP_HI: f64 = 89.0;
const EXP_LO: f64 = -104.0;
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// The Taylor coefficients of `e^r`, `1/n!` for n = 0..=10.
fn exp_coefficients() -> [f64; 11] {
    let mut c = [1.0; 11];
    for n in 1..c.len() {
        c[n] = c[n - 1] / n as f64;
    }
    c
}

/// The instructions of one `e^x` on f64 values (scalar or f64x2 lanes): `[x] -> [e^x]`.
struct Ops {
    splat: Option<U>,
    min: B,
    max: B,
    mul: B,
    add: B,
    sub: B,
    nearest: U,
}

const SCALAR: Ops = Ops {
    splat: None,
    min: B::F64Min,
    max: B::F64Max,
    mul: B::F64Mul,
    add: B::F64Add,
    sub: B::F64Sub,
    nearest: U::F64Nearest,
};

const LANES: Ops = Ops {
    splat: Some(U::F64x2Splat),
    min: B::F64x2Min,
    max: B::F64x2Max,
    mul: B::F64x2Mul,
    add: B::F64x2Add,
    sub: B::F64x2Sub,
    nearest: U::F64x2Nearest,
};

impl Ops {
    fn constant(&self, b: &mut InstrSeqBuilder, c: f64) {
        b.f64_const(c);
        if let Some(s) = self.splat {
            b.unop(s);
        }
    }

    /// `[x] -> [p]` with `p = e^r` and `k` set, where `x = k·ln 2 + r` (after clamping).
    fn reduce_and_poly(&self, b: &mut InstrSeqBuilder, x: LocalId, k: LocalId, r: LocalId) {
        b.local_set(x);
        // f64 min/max propagate NaN, so NaN reaches the result unchanged.
        b.local_get(x);
        self.constant(b, EXP_HI);
        b.binop(self.min);
        self.constant(b, EXP_LO);
        b.binop(self.max).local_tee(x);
        self.constant(b, std::f64::consts::LOG2_E);
        b.binop(self.mul).unop(self.nearest).local_set(k);
        b.local_get(x).local_get(k);
        self.constant(b, LN2_HI);
        b.binop(self.mul).binop(self.sub).local_get(k);
        self.constant(b, LN2_LO);
        b.binop(self.mul).binop(self.sub).local_set(r);
        let c = exp_coefficients();
        self.constant(b, c[c.len() - 1]);
        for ci in c.iter().rev().skip(1) {
            b.local_get(r).binop(self.mul);
            self.constant(b, *ci);
            b.binop(self.add);
        }
    }
}

impl Gen<'_> {
    /// `f32 -> f32`: `e^x` (see the module's comment), built once.
    pub(super) fn exp_f32(&mut self) -> FunctionId {
        let key = (H_EXP, PrimType::Float(FloatType::F32));
        if let Some(id) = self.helpers.get(&key) {
            return *id;
        }
        let mut fb = FunctionBuilder::new(&mut self.module.types, &[ValType::F32], &[ValType::F32]);
        let arg = self.module.locals.add(ValType::F32);
        let [x, k, r] = [(); 3].map(|_| self.module.locals.add(ValType::F64));
        {
            let mut b = fb.func_body();
            b.local_get(arg).unop(U::F64PromoteF32);
            SCALAR.reduce_and_poly(&mut b, x, k, r);
            // p · 2^k: add k to the exponent field (p and the product are normal f64s).
            b.unop(U::I64ReinterpretF64)
                .local_get(k)
                .unop(U::I64TruncSSatF64)
                .i64_const(52)
                .binop(B::I64Shl)
                .binop(B::I64Add)
                .unop(U::F64ReinterpretI64)
                .unop(U::F32DemoteF64);
        }
        fb.name("exp_f32".into());
        let id = fb.finish(vec![arg], &mut self.module.funcs);
        self.helpers.insert(key, id);
        id
    }

    /// `v128 -> v128`: `exp_f32` on each of four f32 lanes, two at a time as f64x2.
    pub(super) fn exp_f32x4(&mut self) -> FunctionId {
        let key = (H_VEXP, PrimType::Float(FloatType::F32));
        if let Some(id) = self.helpers.get(&key) {
            return *id;
        }
        let mut fb =
            FunctionBuilder::new(&mut self.module.types, &[ValType::V128], &[ValType::V128]);
        let arg = self.module.locals.add(ValType::V128);
        let [x, k, r] = [(); 3].map(|_| self.module.locals.add(ValType::V128));
        {
            let mut b = fb.func_body();
            // Lanes 0 and 1, then lanes 2 and 3 moved down, each widened to f64x2.
            for half in 0..2u8 {
                b.local_get(arg);
                if half == 1 {
                    b.local_get(arg).i8x16_shuffle(lanes_from(8, 8));
                }
                b.unop(U::F64x2PromoteLowF32x4);
                LANES.reduce_and_poly(&mut b, x, k, r);
                b.local_get(k)
                    .unop(U::I32x4TruncSatF64x2SZero)
                    .unop(U::I64x2ExtendLowI32x4S)
                    .i32_const(52)
                    .binop(B::I64x2Shl)
                    .binop(B::I64x2Add)
                    .unop(U::F32x4DemoteF64x2Zero);
            }
            // [e0 e1 0 0] [e2 e3 0 0] -> [e0 e1 e2 e3]
            b.i8x16_shuffle(lanes_from(0, 16));
        }
        fb.name("exp_f32x4".into());
        let id = fb.finish(vec![arg], &mut self.module.funcs);
        self.helpers.insert(key, id);
        id
    }
}

/// Shuffle indices: the low 8 bytes from byte `a` on, the high 8 from byte `b` on (bytes 16..32
/// are the second operand's).
fn lanes_from(a: u8, b: u8) -> [u8; 16] {
    std::array::from_fn(|i| if i < 8 { a + i as u8 } else { b + i as u8 - 8 })
}
