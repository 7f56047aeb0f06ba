//! Scalar semantics: Futhark's rules for every primitive operator on every type.
//!
//! * Integers wrap on overflow, in every width and signedness. `/` and `%` floor (the remainder
//!   takes the sign of the divisor), `//` and `%%` truncate as in C; division or remainder by zero
//!   is an error. `MIN / -1` wraps to `MIN` (remainder 0). `**` is exponentiation by squaring with
//!   wrapping; a negative exponent is an error (Futhark's interpreter rejects it too).
//! * Shifts read the amount as an unsigned number of the operand's width; an amount of at least the
//!   width shifts every bit out (`1i32 << 40 == 0`, `-8i32 >> 40 == -1`, `200u8 >> 9 == 0`). This is
//!   what Futhark's own interpreter computes; its C backend leaves such shifts undefined. `>>` is
//!   arithmetic on signed types and logical on unsigned ones.
//! * Floats follow IEEE 754 in their own precision (`f16` is computed in `f32` and rounded, which is
//!   exact for `+ - * / sqrt`, as Futhark's C backend does without native half support). `min` and
//!   `max` return the other operand when one is NaN. `%` floors: the result has the divisor's sign
//!   (`-1 % 3 == 2`, `1 % -3 == -2`, `x % ±inf` is `x` or `±inf`); `//` truncates `x / y` and `%%`
//!   is C's `fmod`. `sgn` gives -1, 0 or 1 (both zeros give +0) and keeps NaN; `round` rounds half
//!   to even (C's `rint`, as Futhark).
//! * Conversions: int → int wraps or sign-extends; int → float rounds to nearest (ties to even);
//!   float → int truncates toward zero. NaN and ±inf convert to 0 (Futhark's C backend checks for
//!   them explicitly); finite values outside the target range wrap modulo 2^bits, the rule Futhark
//!   itself uses for every value its C backend defines (e.g. `u8.f32 (-1) == 255`; C leaves the
//!   others undefined). bool → number is 0/1; number → bool is `x != 0` (NaN is true).

use crate::ir::{BinOp, CmpOp, MathFn, UnOp};
use crate::prim::{f16, FloatType, IntType, PrimType, PrimValue};

/// A scalar operation's result; the error is the message of a run-time diagnostic.
pub(crate) type OpResult = Result<PrimValue, String>;

/// Operations every integer type provides, so each operator is written once.
pub(crate) trait Int:
    Copy
    + Ord
    + std::fmt::Display
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::Shr<u32, Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn wadd(self, o: Self) -> Self;
    fn wsub(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
    fn wdiv(self, o: Self) -> Self;
    fn wrem(self, o: Self) -> Self;
    fn wneg(self) -> Self;
    fn wabs(self) -> Self;
    fn negative(self) -> bool;
    /// The bits of the value read as an unsigned number.
    fn unsigned(self) -> u128;
    fn lz(self) -> u32;
    fn tz(self) -> u32;
    fn popc(self) -> u32;
    fn prim(self) -> PrimValue;
}

macro_rules! impl_int {
    ($($t:ty, $ut:ty, $variant:ident;)*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn wdiv(self, o: Self) -> Self { self.wrapping_div(o) }
            fn wrem(self, o: Self) -> Self { self.wrapping_rem(o) }
            fn wneg(self) -> Self { self.wrapping_neg() }
            #[allow(unused_comparisons)]
            fn wabs(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[allow(unused_comparisons)]
            fn negative(self) -> bool { self < 0 }
            fn unsigned(self) -> u128 { self as $ut as u128 }
            fn lz(self) -> u32 { self.leading_zeros() }
            fn tz(self) -> u32 { self.trailing_zeros() }
            fn popc(self) -> u32 { self.count_ones() }
            fn prim(self) -> PrimValue { PrimValue::$variant(self) }
        }
    )*};
}

impl_int! {
    i8, u8, I8; i16, u16, I16; i32, u32, I32; i64, u64, I64;
    u8, u8, U8; u16, u16, U16; u32, u32, U32; u64, u64, U64;
}

/// Operations of the native float types (`f16` goes through `f32`).
pub(crate) trait Float:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn is_nan_(self) -> bool;
    fn unary(self, f: MathFn) -> Option<Self>;
    fn binary(self, f: MathFn, o: Self) -> Option<Self>;
    fn trunc_(self) -> Self;
    fn powf_(self, o: Self) -> Self;
    fn copysign_(self, o: Self) -> Self;
    fn abs_(self) -> Self;
    fn fma_(self, b: Self, c: Self) -> Self;
}

macro_rules! impl_float {
    ($($t:ty;)*) => {$(
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn is_nan_(self) -> bool { self.is_nan() }
            fn unary(self, f: MathFn) -> Option<Self> {
                use MathFn as M;
                Some(match f {
                    M::Sqrt => self.sqrt(),
                    M::Exp => self.exp(),
                    M::Log => self.ln(),
                    M::Log2 => self.log2(),
                    M::Log10 => self.log10(),
                    M::Sin => self.sin(),
                    M::Cos => self.cos(),
                    M::Tan => self.tan(),
                    M::Asin => self.asin(),
                    M::Acos => self.acos(),
                    M::Atan => self.atan(),
                    M::Sinh => self.sinh(),
                    M::Cosh => self.cosh(),
                    M::Tanh => self.tanh(),
                    M::Cbrt => self.cbrt(),
                    M::Log1p => self.ln_1p(),
                    M::Asinh => self.asinh(),
                    M::Acosh => self.acosh(),
                    M::Atanh => self.atanh(),
                    M::Floor => self.floor(),
                    M::Ceil => self.ceil(),
                    M::Round => self.round_ties_even(),
                    M::Trunc => self.trunc(),
                    _ => return None,
                })
            }
            fn binary(self, f: MathFn, o: Self) -> Option<Self> {
                Some(match f {
                    // Futhark's `atan2 y x` is C's `atan2(y, x)`.
                    MathFn::Atan2 => self.atan2(o),
                    MathFn::Hypot => self.hypot(o),
                    MathFn::CopySign => self.copysign(o),
                    _ => return None,
                })
            }
            fn trunc_(self) -> Self { self.trunc() }
            fn powf_(self, o: Self) -> Self { self.powf(o) }
            fn copysign_(self, o: Self) -> Self { self.copysign(o) }
            fn abs_(self) -> Self { self.abs() }
            fn fma_(self, b: Self, c: Self) -> Self { self.mul_add(b, c) }
        }
    )*};
}

impl_float! { f32; f64; }

fn type_error(what: &str, vals: &[PrimValue]) -> String {
    let tys: Vec<PrimType> = vals.iter().map(|v| v.ty()).collect();
    undefined_on(what, &tys)
}

/// The message for an operator applied to operand types it is not defined on.
pub(crate) fn undefined_on(what: &str, tys: &[PrimType]) -> String {
    let tys: Vec<&str> = tys.iter().map(|t| t.name()).collect();
    format!("internal error: {what} is not defined on ({})", tys.join(", "))
}

pub(crate) fn int_binop<T: Int>(op: BinOp, x: T, y: T) -> Result<T, String> {
    use BinOp as B;
    let div_check = || if y == T::ZERO { Err("division by zero".to_string()) } else { Ok(()) };
    Ok(match op {
        B::Add => x.wadd(y),
        B::Sub => x.wsub(y),
        B::Mul => x.wmul(y),
        B::Div => {
            div_check()?;
            let (q, r) = (x.wdiv(y), x.wrem(y));
            if r != T::ZERO && r.negative() != y.negative() {
                q.wsub(T::ONE)
            } else {
                q
            }
        }
        B::Mod => {
            div_check()?;
            let r = x.wrem(y);
            if r != T::ZERO && r.negative() != y.negative() {
                r.wadd(y)
            } else {
                r
            }
        }
        B::Quot => {
            div_check()?;
            x.wdiv(y)
        }
        B::Rem => {
            div_check()?;
            x.wrem(y)
        }
        B::Pow => {
            if y.negative() {
                return Err(format!("negative exponent: {x} ** {y}"));
            }
            let (mut base, mut rem, mut acc) = (x, y.unsigned(), T::ONE);
            while rem != 0 {
                if rem & 1 == 1 {
                    acc = acc.wmul(base);
                }
                base = base.wmul(base);
                rem >>= 1;
            }
            acc
        }
        B::Min => x.min(y),
        B::Max => x.max(y),
        B::And => x & y,
        B::Or => x | y,
        B::Xor => x ^ y,
        B::Shl => match u32::try_from(y.unsigned()) {
            Ok(n) if n < T::BITS => x << n,
            _ => T::ZERO,
        },
        B::Shr => match u32::try_from(y.unsigned()) {
            Ok(n) if n < T::BITS => x >> n,
            // Everything shifted out: the sign fills signed values, zero the rest.
            _ if x.negative() => !T::ZERO,
            _ => T::ZERO,
        },
        B::LogAnd | B::LogOr => return Err(String::new()),
    })
}

pub(crate) fn float_binop<F: Float>(op: BinOp, x: F, y: F) -> Option<F> {
    use BinOp as B;
    Some(match op {
        B::Add => x + y,
        B::Sub => x - y,
        B::Mul => x * y,
        B::Div => x / y,
        B::Mod => {
            let r = x % y;
            if r == F::ZERO {
                F::ZERO.copysign_(y)
            } else if (r < F::ZERO) != (y < F::ZERO) {
                r + y
            } else {
                r
            }
        }
        B::Quot => (x / y).trunc_(),
        B::Rem => x % y,
        B::Pow => x.powf_(y),
        // As Futhark's `fmin`/`fmax`: a NaN operand yields the other one.
        B::Min => {
            if x.is_nan_() {
                y
            } else if y.is_nan_() || x <= y {
                x
            } else {
                y
            }
        }
        B::Max => {
            if x.is_nan_() {
                y
            } else if y.is_nan_() || y <= x {
                x
            } else {
                y
            }
        }
        _ => return None,
    })
}

pub(crate) fn bool_binop(op: BinOp, x: bool, y: bool) -> Option<bool> {
    use BinOp as B;
    Some(match op {
        B::LogAnd | B::And | B::Min => x && y,
        B::LogOr | B::Or | B::Max => x || y,
        B::Xor => x != y,
        _ => return None,
    })
}

fn f16_via_f32(x: f16, f: impl FnOnce(f32) -> Option<f32>) -> Option<PrimValue> {
    f(x.to_f32()).map(|r| PrimValue::F16(f16::from_f32(r)))
}

/// A binary operator on two values of the same type.
pub(crate) fn binop(op: BinOp, a: PrimValue, b: PrimValue) -> OpResult {
    use PrimValue as P;
    macro_rules! int {
        ($x:expr, $y:expr) => {
            int_binop(op, $x, $y).map(Int::prim)
        };
    }
    let r = match (a, b) {
        (P::I8(x), P::I8(y)) => int!(x, y),
        (P::I16(x), P::I16(y)) => int!(x, y),
        (P::I32(x), P::I32(y)) => int!(x, y),
        (P::I64(x), P::I64(y)) => int!(x, y),
        (P::U8(x), P::U8(y)) => int!(x, y),
        (P::U16(x), P::U16(y)) => int!(x, y),
        (P::U32(x), P::U32(y)) => int!(x, y),
        (P::U64(x), P::U64(y)) => int!(x, y),
        (P::F16(x), P::F16(y)) => float_binop(op, x.to_f32(), y.to_f32())
            .map(|r| P::F16(f16::from_f32(r)))
            .ok_or_default(),
        (P::F32(x), P::F32(y)) => float_binop(op, x, y).map(P::F32).ok_or_default(),
        (P::F64(x), P::F64(y)) => float_binop(op, x, y).map(P::F64).ok_or_default(),
        (P::Bool(x), P::Bool(y)) => bool_binop(op, x, y).map(P::Bool).ok_or_default(),
        _ => Err(String::new()),
    };
    // An empty message marks an operator that is not defined on the operands' type.
    r.map_err(|m| if m.is_empty() { type_error(&format!("`{op:?}`"), &[a, b]) } else { m })
}

trait OkOrDefault<T> {
    fn ok_or_default(self) -> Result<T, String>;
}

impl<T> OkOrDefault<T> for Option<T> {
    fn ok_or_default(self) -> Result<T, String> {
        self.ok_or_else(String::new)
    }
}

/// A unary operator on an integer.
pub(crate) fn int_unop<T: Int>(op: UnOp, x: T) -> T {
    match op {
        UnOp::Neg => x.wneg(),
        UnOp::Not => !x,
        UnOp::Abs => x.wabs(),
        UnOp::Sgn if x.negative() => T::ZERO.wsub(T::ONE),
        UnOp::Sgn if x == T::ZERO => T::ZERO,
        UnOp::Sgn => T::ONE,
    }
}

/// A unary operator on a float (`None` for `!`).
pub(crate) fn float_unop<F: Float>(op: UnOp, x: F) -> Option<F> {
    match op {
        UnOp::Neg => Some(-x),
        UnOp::Abs => Some(x.abs_()),
        UnOp::Sgn if x.is_nan_() => Some(x),
        UnOp::Sgn if x > F::ZERO => Some(F::ONE),
        UnOp::Sgn if x < F::ZERO => Some(-F::ONE),
        UnOp::Sgn => Some(F::ZERO),
        UnOp::Not => None,
    }
}

/// A comparison of two values of one ordered type (IEEE for floats).
pub(crate) fn cmp_typed<T: PartialOrd>(op: CmpOp, x: T, y: T) -> bool {
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Neq => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    }
}

/// A unary operator.
pub(crate) fn unop(op: UnOp, a: PrimValue) -> OpResult {
    use PrimValue as P;
    let r = match a {
        P::Bool(b) => match op {
            UnOp::Neg | UnOp::Not => Some(P::Bool(!b)),
            _ => None,
        },
        P::I8(x) => Some(int_unop(op, x).prim()),
        P::I16(x) => Some(int_unop(op, x).prim()),
        P::I32(x) => Some(int_unop(op, x).prim()),
        P::I64(x) => Some(int_unop(op, x).prim()),
        P::U8(x) => Some(int_unop(op, x).prim()),
        P::U16(x) => Some(int_unop(op, x).prim()),
        P::U32(x) => Some(int_unop(op, x).prim()),
        P::U64(x) => Some(int_unop(op, x).prim()),
        P::F16(x) => f16_via_f32(x, |x| float_unop(op, x)),
        P::F32(x) => float_unop(op, x).map(P::F32),
        P::F64(x) => float_unop(op, x).map(P::F64),
    };
    r.ok_or_else(|| type_error(&format!("`{op:?}`"), &[a]))
}

/// A comparison of two values of the same type (IEEE for floats: NaN is unordered).
pub(crate) fn cmp(op: CmpOp, a: PrimValue, b: PrimValue) -> Result<bool, String> {
    use PrimValue as P;
    Ok(match (a, b) {
        (P::Bool(x), P::Bool(y)) => cmp_typed(op, x, y),
        (P::I8(x), P::I8(y)) => cmp_typed(op, x, y),
        (P::I16(x), P::I16(y)) => cmp_typed(op, x, y),
        (P::I32(x), P::I32(y)) => cmp_typed(op, x, y),
        (P::I64(x), P::I64(y)) => cmp_typed(op, x, y),
        (P::U8(x), P::U8(y)) => cmp_typed(op, x, y),
        (P::U16(x), P::U16(y)) => cmp_typed(op, x, y),
        (P::U32(x), P::U32(y)) => cmp_typed(op, x, y),
        (P::U64(x), P::U64(y)) => cmp_typed(op, x, y),
        (P::F16(x), P::F16(y)) => cmp_typed(op, x.to_f32(), y.to_f32()),
        (P::F32(x), P::F32(y)) => cmp_typed(op, x, y),
        (P::F64(x), P::F64(y)) => cmp_typed(op, x, y),
        _ => return Err(type_error(&format!("`{op:?}`"), &[a, b])),
    })
}

/// Float → integer: truncate toward zero; NaN and ±inf give 0; other out-of-range values wrap.
fn float_to_int(t: IntType, x: f64) -> PrimValue {
    if !x.is_finite() {
        return PrimValue::int(t, 0);
    }
    let x = x.trunc();
    // 2^127: beyond it every float is a multiple of 2^75, so its low 64 bits are zero.
    if x.abs() < 1.7014118346046923e38 {
        PrimValue::int(t, x as i128)
    } else {
        PrimValue::int(t, 0)
    }
}

/// Convert `a` (of type `from`) to type `to`.
pub(crate) fn convert(from: PrimType, to: PrimType, a: PrimValue) -> OpResult {
    if a.ty() != from {
        return Err(format!(
            "internal error: conversion from {from} applied to a value of type {}",
            a.ty()
        ));
    }
    Ok(match to {
        PrimType::Bool => PrimValue::Bool(match a {
            PrimValue::Bool(b) => b,
            PrimValue::F16(x) => x.to_f32() != 0.0,
            PrimValue::F32(x) => x != 0.0,
            PrimValue::F64(x) => x != 0.0,
            _ => a.as_i128().is_some_and(|v| v != 0),
        }),
        PrimType::Int(t) => match a {
            PrimValue::Bool(b) => PrimValue::int(t, b as i128),
            _ => match (a.as_i128(), a.as_f64()) {
                (Some(v), _) => PrimValue::int(t, v),
                (None, Some(x)) => float_to_int(t, x),
                _ => return Err(type_error("conversion", &[a])),
            },
        },
        PrimType::Float(t) => match a {
            PrimValue::Bool(b) => PrimValue::float(t, b as u8 as f64),
            // f32 directly from the integer: one rounding. For f16, going through f64 is exact
            // below 2^53 and everything above overflows f16 anyway.
            _ => match (a.as_i128(), a.as_f64()) {
                (Some(v), _) if t == FloatType::F32 => PrimValue::F32(v as f32),
                (Some(v), _) => PrimValue::float(t, v as f64),
                (None, Some(x)) if t == FloatType::F32 => PrimValue::F32(x as f32),
                (None, Some(x)) => PrimValue::float(t, x),
                _ => return Err(type_error("conversion", &[a])),
            },
        },
    })
}

/// An elementary function. The operand types determine the computation: floats for most
/// functions, integers for `clz`/`ctz`/`popc` (result `i32`) and `from_bits` (an integer of the
/// float's width, signed or not); `to_bits` gives the unsigned integer of the float's width,
/// `isnan`/`isinf` a `bool`.
pub(crate) fn math(f: MathFn, args: &[PrimValue]) -> OpResult {
    use MathFn as M;
    use PrimValue as P;
    let bad = || type_error(&format!("`{f:?}`"), args);
    let r = match (f, args) {
        (M::IsNan, [x]) => x.as_f64().map(|x| P::Bool(x.is_nan())),
        (M::IsInf, [x]) => x.as_f64().map(|x| P::Bool(x.is_infinite())),
        (M::ToBits, [x]) => match *x {
            P::F16(x) => Some(P::U16(x.to_bits())),
            P::F32(x) => Some(P::U32(x.to_bits())),
            P::F64(x) => Some(P::U64(x.to_bits())),
            _ => None,
        },
        (M::FromBits, [x]) => match *x {
            P::I16(_) | P::U16(_) => x.as_i128().map(|b| P::F16(f16::from_bits(b as u16))),
            P::I32(_) | P::U32(_) => x.as_i128().map(|b| P::F32(f32::from_bits(b as u32))),
            P::I64(_) | P::U64(_) => x.as_i128().map(|b| P::F64(f64::from_bits(b as u64))),
            _ => None,
        },
        (M::Clz | M::Ctz | M::Popc, [x]) => {
            macro_rules! bits {
                ($v:expr) => {
                    Some(P::I32(match f {
                        M::Clz => $v.lz(),
                        M::Ctz => $v.tz(),
                        _ => $v.popc(),
                    } as i32))
                };
            }
            match *x {
                P::I8(v) => bits!(v),
                P::I16(v) => bits!(v),
                P::I32(v) => bits!(v),
                P::I64(v) => bits!(v),
                P::U8(v) => bits!(v),
                P::U16(v) => bits!(v),
                P::U32(v) => bits!(v),
                P::U64(v) => bits!(v),
                _ => None,
            }
        }
        (M::Fma, [a, b, c]) => match (*a, *b, *c) {
            (P::F16(a), P::F16(b), P::F16(c)) => {
                Some(P::F16(f16::from_f32(a.to_f32().fma_(b.to_f32(), c.to_f32()))))
            }
            (P::F32(a), P::F32(b), P::F32(c)) => Some(P::F32(a.fma_(b, c))),
            (P::F64(a), P::F64(b), P::F64(c)) => Some(P::F64(a.fma_(b, c))),
            _ => None,
        },
        (_, [x, y]) => match (*x, *y) {
            (P::F16(x), P::F16(y)) => f16_via_f32(x, |x| x.binary(f, y.to_f32())),
            (P::F32(x), P::F32(y)) => x.binary(f, y).map(P::F32),
            (P::F64(x), P::F64(y)) => x.binary(f, y).map(P::F64),
            _ => None,
        },
        (_, [x]) => match *x {
            P::F16(x) => f16_via_f32(x, |x| x.unary(f)),
            P::F32(x) => x.unary(f).map(P::F32),
            P::F64(x) => x.unary(f).map(P::F64),
            _ => None,
        },
        _ => None,
    };
    r.ok_or_else(bad)
}

#[cfg(test)]
#[path = "prim_ops_tests.rs"]
mod tests;
