//! Elementary functions computed inside the module instead of imported from the host. `f32.exp`
//! is the one that matters for speed (softmax, log-sum-exp, activations): an imported function
//! costs a call into the host per element and cannot be vectorised, while this one runs four
//! lanes at a time in the SIMD paths.
//!
//! `exp` is computed in f32, so that a v128 holds four lanes: `x = k·ln 2 + r` with
//! `|r| <= ln 2 / 2` (Cody and Waite's reduction: `ln 2` split in two parts, the first with few
//! enough bits that `k·LN2_HI` is exact), `e^r = 1 + (r + r²·u(r))` with `u` the minimax
//! polynomial of degree 4 (relative error below 3.9e-9, a sixteenth of an ulp), and `2^k` applied as
//! two exact powers of two so that subnormal results are rounded once. The result is within one
//! ulp of libm's `expf` (the last bit differs for 0.8% of all f32s, 7% of those in [-110, 100]);
//! overflow, underflow, infinities and NaN come out as IEEE says. The scalar version runs the same operations one
//! lane wide, so a scalar tail and the vector body of a loop agree bit for bit.

use walrus::ir::{BinaryOp as B, UnaryOp as U, Value};
use walrus::{FunctionBuilder, FunctionId, InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use crate::prim::{FloatType, PrimType};

/// Keys of the helpers built here in `Gen::helpers` (beside scalar.rs's kinds).
const H_EXP: u8 = 64;

/// Inputs are clamped to this range first: above it `expf` overflows to infinity, below it
/// rounds to 0, and inside it `k` stays within [-150, 129], so each half of `2^k` is normal.
const EXP_HI: f32 = 89.0;
const EXP_LO: f32 = -104.0;

/// Below this magnitude `k` is within [-126, 126], so `2^k` is a normal float.
const NORMAL: f32 = 87.0;

/// `1.5·2^23`: adding it to a float of magnitude below 2^22 rounds that to an integer.
const ROUNDER: f32 = 12_582_912.0;

/// `ln 2` with its low 9 significand bits cleared: times an integer of at most 8 bits it is exact.
fn ln2_hi() -> f32 {
    f32::from_bits(std::f32::consts::LN_2.to_bits() & !0x1ff)
}

/// The rest of `ln 2`.
fn ln2_lo() -> f32 {
    (std::f64::consts::LN_2 - f64::from(ln2_hi())) as f32
}

/// `u(r) = c2 + c3·r + c4·r² + c5·r³ + c6·r⁴` with `e^r ≈ 1 + r + r²·u(r)` on `|r| <= ln 2 / 2`:
/// the minimax coefficients for the relative error of `e^r` (Remez exchange), rounded to f32.
/// That error is below 3.9e-9, a sixteenth of an ulp; the Taylor polynomial needs one degree
/// more for the same.
const EXP_U: [f32; 5] = [0.499_999_94, 0.166_665_21, 0.041_668_39, 0.008_368_71, 0.001_381_461_3];

/// The instructions of one `e^x` on f32 values, one lane (scalar) or four (v128).
struct Ops {
    /// Four lanes, and constants are `v128.const`s.
    vector: bool,
    min: B,
    max: B,
    mul: B,
    add: B,
    sub: B,
    /// f32 to its integer bits (scalars only).
    to_bits: Option<U>,
    shr_s: B,
    iadd: B,
    isub: B,
    shl: B,
    /// Integer bits to f32 (scalars only: a v128 is both).
    from_bits: Option<U>,
}

const SCALAR: Ops = Ops {
    vector: false,
    min: B::F32Min,
    max: B::F32Max,
    mul: B::F32Mul,
    add: B::F32Add,
    sub: B::F32Sub,
    to_bits: Some(U::I32ReinterpretF32),
    shr_s: B::I32ShrS,
    iadd: B::I32Add,
    isub: B::I32Sub,
    shl: B::I32Shl,
    from_bits: Some(U::F32ReinterpretI32),
};

const LANES: Ops = Ops {
    vector: true,
    min: B::F32x4PMin,
    max: B::F32x4PMax,
    mul: B::F32x4Mul,
    add: B::F32x4Add,
    sub: B::F32x4Sub,
    to_bits: None,
    shr_s: B::I32x4ShrS,
    iadd: B::I32x4Add,
    isub: B::I32x4Sub,
    shl: B::I32x4Shl,
    from_bits: None,
};

/// The locals `Ops::exp` uses: four of the float type, two of the integer type.
struct Locals {
    x: LocalId,
    k: LocalId,
    r: LocalId,
    r2: LocalId,
    ki: LocalId,
    k1: LocalId,
}

/// How a vector constant is pushed (`Gen::v128_const`); scalars never use it.
type Pool<'a> = &'a mut dyn FnMut(&mut InstrSeqBuilder, u128);

impl Ops {
    fn fconst(&self, b: &mut InstrSeqBuilder, pool: Pool, c: f32) {
        match self.vector {
            true => pool(b, splat(c.to_bits())),
            false => {
                b.f32_const(c);
            }
        }
    }

    fn iconst(&self, b: &mut InstrSeqBuilder, pool: Pool, c: i32) {
        match self.vector {
            true => pool(b, splat(c as u32)),
            false => {
                b.i32_const(c);
            }
        }
    }

    /// `[int n] -> [2^n]` for `n` in the normal exponents.
    fn pow2(&self, b: &mut InstrSeqBuilder, pool: Pool) {
        self.iconst(b, pool, 127);
        b.binop(self.iadd).i32_const(23).binop(self.shl);
        if let Some(u) = self.from_bits {
            b.unop(u);
        }
    }

    /// `[x] -> [e^x]`.
    fn exp(&self, b: &mut InstrSeqBuilder, pool: Pool, l: &Locals) {
        b.local_set(l.x);
        // Clamped with (pseudo-)min and max that return `x` when it is NaN, so NaN reaches the
        // result; as vectors these are single instructions, unlike `f32x4.min`.
        b.local_get(l.x);
        self.fconst(b, pool, EXP_HI);
        b.binop(self.min);
        self.fconst(b, pool, EXP_LO);
        b.binop(self.max);
        b.local_tee(l.x);
        self.round(b, pool, l);
        self.iconst(b, pool, ROUNDER.to_bits() as i32);
        b.binop(self.isub).local_set(l.ki);
        self.poly(b, pool, l);
        // p · 2^k1 · 2^k2 with k1 = k >> 1: both factors are normal, the first product is exact,
        // and a subnormal result is rounded once, by the second.
        b.local_get(l.ki);
        b.i32_const(1).binop(self.shr_s).local_tee(l.k1);
        self.pow2(b, pool);
        b.binop(self.mul);
        b.local_get(l.ki).local_get(l.k1).binop(self.isub);
        self.pow2(b, pool);
        b.binop(self.mul);
    }

    /// `[] -> [e^x]` for `x` in `l.x` with `|x| < NORMAL` (vectors): `2^k` is a normal float
    /// there, so it is one factor, made from the rounded sum's bits by one add and a shift
    /// (the shift drops the rounder's bits). The product rounds once, so the result is `exp`'s
    /// bit for bit, in 20 fewer instructions.
    fn exp_normal(&self, b: &mut InstrSeqBuilder, pool: Pool, l: &Locals) {
        b.local_get(l.x);
        self.round(b, pool, l);
        self.iconst(b, pool, 127);
        b.binop(self.iadd).i32_const(23).binop(self.shl).local_set(l.ki);
        self.poly(b, pool, l);
        b.local_get(l.ki).binop(self.mul);
    }

    /// `[x] -> [bits of x·log2 e + ROUNDER]`, with `l.k` = k = nearest(x·log2 e) as a float.
    /// Adding 1.5·2^23 rounds: the sum's unit is 1, so it is an integer (ties to even), and its
    /// low bits are k as an integer.
    fn round(&self, b: &mut InstrSeqBuilder, pool: Pool, l: &Locals) {
        self.fconst(b, pool, std::f32::consts::LOG2_E);
        b.binop(self.mul);
        self.fconst(b, pool, ROUNDER);
        b.binop(self.add).local_tee(l.k);
        if let Some(u) = self.to_bits {
            b.unop(u);
        }
        b.local_get(l.k);
        self.fconst(b, pool, ROUNDER);
        b.binop(self.sub).local_set(l.k);
    }

    /// `[] -> [e^r]` for r = x - k·ln 2, from `l.x` and `l.k`.
    fn poly(&self, b: &mut InstrSeqBuilder, pool: Pool, l: &Locals) {
        // r = x - k·LN2_HI - k·LN2_LO; the first subtraction is exact.
        b.local_get(l.x).local_get(l.k);
        self.fconst(b, pool, ln2_hi());
        b.binop(self.mul).binop(self.sub).local_get(l.k);
        self.fconst(b, pool, ln2_lo());
        b.binop(self.mul).binop(self.sub).local_set(l.r);
        // u = (c2 + c3·r) + r²·((c4 + c5·r) + c6·r²), three independent parts instead of one
        // chain of four multiply-adds, so the four lanes' results are ready sooner (the loop
        // around it waits on that chain). Then p = 1 + (r + r²·u): adding the two largest terms
        // last keeps their rounding error in the last bit.
        let c = EXP_U;
        let pair = |b: &mut InstrSeqBuilder, pool: Pool, lo: f32, hi: f32| {
            self.fconst(b, pool, hi);
            b.local_get(l.r).binop(self.mul);
            self.fconst(b, pool, lo);
            b.binop(self.add);
        };
        b.local_get(l.r).local_get(l.r).binop(self.mul).local_set(l.r2);
        pair(b, pool, c[0], c[1]);
        pair(b, pool, c[2], c[3]);
        self.fconst(b, pool, c[4]);
        b.local_get(l.r2).binop(self.mul).binop(self.add);
        b.local_get(l.r2).binop(self.mul).binop(self.add);
        b.local_get(l.r2).binop(self.mul);
        b.local_get(l.r).binop(self.add);
        self.fconst(b, pool, 1.0);
        b.binop(self.add);
    }
}

/// A v128 with four copies of `bits`.
fn splat(bits: u32) -> u128 {
    u128::from(bits) * 0x0000_0001_0000_0001_0000_0001_0000_0001
}

impl Gen<'_> {
    /// `[v128] -> [v128]`: `e^x` on four f32 lanes, inline (a call per vector costs about as
    /// much as the polynomial).
    pub(super) fn inline_exp_f32x4(&mut self, b: &mut InstrSeqBuilder) {
        let [x, k, r, r2, ki, k1] = [(); 6].map(|_| self.tmp(ValType::V128));
        let l = Locals { x, k, r, r2, ki, k1 };
        // Four lanes inside (-NORMAL, NORMAL), as nearly all are, take the shorter path. The test
        // is for a lane outside (any_true costs V8 fewer instructions than all_true), so a NaN
        // takes the shorter path too, where every operation propagates it.
        b.local_tee(x).unop(U::F32x4Abs);
        self.v128_const(b, splat(NORMAL.to_bits()));
        b.binop(B::F32x4Ge).unop(U::V128AnyTrue);
        let pool = &mut |b: &mut InstrSeqBuilder, bits| self.v128_const(b, bits);
        let general = {
            let mut then = b.dangling_instr_seq(ValType::V128);
            then.local_get(x);
            LANES.exp(&mut then, pool, &l);
            then.id()
        };
        let fast = {
            let mut other = b.dangling_instr_seq(ValType::V128);
            LANES.exp_normal(&mut other, pool, &l);
            other.id()
        };
        b.instr(walrus::ir::IfElse { consequent: general, alternative: fast });
    }

    /// `f32 -> f32`: `e^x` (see the module's comment), built once.
    pub(super) fn exp_f32(&mut self) -> FunctionId {
        let key = (H_EXP, PrimType::Float(FloatType::F32));
        if let Some(id) = self.helpers.get(&key) {
            return *id;
        }
        let mut fb = FunctionBuilder::new(&mut self.module.types, &[ValType::F32], &[ValType::F32]);
        let arg = self.module.locals.add(ValType::F32);
        let [x, k, r, r2] = [(); 4].map(|_| self.module.locals.add(ValType::F32));
        let [ki, k1] = [(); 2].map(|_| self.module.locals.add(ValType::I32));
        {
            let mut b = fb.func_body();
            b.local_get(arg);
            // Scalar constants are immediates; this is never called.
            let mut inline = |b: &mut InstrSeqBuilder, bits| {
                b.const_(Value::V128(bits));
            };
            SCALAR.exp(&mut b, &mut inline, &Locals { x, k, r, r2, ki, k1 });
        }
        fb.name("exp_f32".into());
        let id = fb.finish(vec![arg], &mut self.module.funcs);
        self.helpers.insert(key, id);
        id
    }
}
