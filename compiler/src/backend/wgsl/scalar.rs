//! Scalar operations as WGSL expressions, with Futhark's semantics for every primitive type in its
//! 32-bit representation (see the module docs of `wgsl`).

use super::wgsl_type;
use crate::ir::{BinOp, CmpOp, MathFn, UnOp};
use crate::prim::{FloatType, IntType, PrimType, PrimValue};

/// A WGSL literal for a constant (floats by bit pattern, so every value is exact). Infinities and
/// NaNs go through `ogm_f32_bits`: as constant expressions they are shader-creation errors.
pub fn literal(v: PrimValue, wide: bool) -> String {
    match v {
        PrimValue::I64(_) | PrimValue::U64(_) if wide => {
            let x = v.as_i128().unwrap_or(0) as u64;
            format!("vec2<u32>({}u, {}u)", x as u32, (x >> 32) as u32)
        }
        PrimValue::Bool(b) => b.to_string(),
        PrimValue::F16(x) => float_literal(x.to_f32()),
        PrimValue::F32(x) => float_literal(x),
        PrimValue::F64(x) => float_literal(x as f32),
        PrimValue::I8(_) | PrimValue::I16(_) | PrimValue::I32(_) | PrimValue::I64(_) => {
            let x = v.as_i128().unwrap_or(0) as i32;
            format!("i32({x})")
        }
        _ => {
            let x = v.as_i128().unwrap_or(0) as u32;
            format!("{x}u")
        }
    }
}

fn float_literal(x: f32) -> String {
    if x.is_finite() {
        format!("bitcast<f32>({:#x}u)", x.to_bits())
    } else {
        format!("ogm_f32_bits({:#x}u)", x.to_bits())
    }
}

/// `e` wrapped to the width of `t` (a no-op for 32-bit and narrowed 64-bit types).
pub fn wrap(e: String, t: PrimType) -> String {
    match t {
        PrimType::Int(IntType::I8) => format!("(({e} << 24u) >> 24u)"),
        PrimType::Int(IntType::I16) => format!("(({e} << 16u) >> 16u)"),
        PrimType::Int(IntType::U8) => format!("({e} & 0xffu)"),
        PrimType::Int(IntType::U16) => format!("({e} & 0xffffu)"),
        _ => e,
    }
}

/// `e` rounded to the precision of `t`: f16 values are computed in f32 and rounded after each
/// operation (a no-op for other types).
pub fn round_to(e: String, t: PrimType) -> String {
    match t {
        PrimType::Float(FloatType::F16) => format!("ogm_f16({e})"),
        _ => e,
    }
}

fn bits(t: PrimType) -> u32 {
    match t {
        PrimType::Int(i) => i.bits().min(32),
        _ => 32,
    }
}

fn mask_u32(a: &str, t: PrimType) -> String {
    match bits(t) {
        32 => format!("bitcast<u32>({a})"),
        b => format!("(bitcast<u32>({a}) & {:#x}u)", (1u32 << b) - 1),
    }
}

/// Does this integer operation divide (and so fail on a zero divisor)?
pub fn divides(op: BinOp) -> bool {
    matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem)
}

pub fn binop(op: BinOp, t: PrimType, a: &str, b: &str, wide: bool) -> Option<String> {
    use BinOp as B;
    if wide && narrowed(t) {
        return wide_binop(op, t, a, b);
    }
    Some(match t {
        PrimType::Float(_) => round_to(
            match op {
                B::Add => format!("({a} + {b})"),
                B::Sub => format!("({a} - {b})"),
                B::Mul => format!("({a} * {b})"),
                B::Div => format!("({a} / {b})"),
                B::Mod => format!("ogm_fmod({a}, {b})"),
                B::Quot => format!("trunc({a} / {b})"),
                B::Rem => format!("ogm_frem({a}, {b})"),
                B::Pow => format!("ogm_powf({a}, {b})"),
                B::Min => format!("ogm_fmin({a}, {b})"),
                B::Max => format!("ogm_fmax({a}, {b})"),
                _ => return None,
            },
            t,
        ),
        PrimType::Bool => match op {
            B::LogAnd | B::And | B::Min => format!("({a} && {b})"),
            B::LogOr | B::Or | B::Max => format!("({a} || {b})"),
            B::Xor => format!("({a} != {b})"),
            _ => return None,
        },
        PrimType::Int(i) => {
            let w = if i.signed() { "i32" } else { "u32" };
            let n = bits(t);
            let e = match op {
                B::Add => format!("({a} + {b})"),
                B::Sub => format!("({a} - {b})"),
                B::Mul => format!("({a} * {b})"),
                B::Div => format!("ogm_div_{w}({a}, {b})"),
                B::Mod => format!("ogm_mod_{w}({a}, {b})"),
                B::Quot if i.signed() => format!("ogm_quot_i32({a}, {b})"),
                B::Rem if i.signed() => format!("ogm_rem_i32({a}, {b})"),
                B::Quot => format!("ogm_div_u32({a}, {b})"),
                B::Rem => format!("ogm_mod_u32({a}, {b})"),
                B::Pow => format!("ogm_pow_{w}({a}, {b})"),
                B::Min => format!("min({a}, {b})"),
                B::Max => format!("max({a}, {b})"),
                B::And => format!("({a} & {b})"),
                B::Or => format!("({a} | {b})"),
                B::Xor => format!("({a} ^ {b})"),
                B::Shl => format!("ogm_shl_{w}({a}, {b}, {n}u)"),
                B::Shr => format!("ogm_shr_{w}({a}, {}, {n}u)", shift_amount(b, t)),
                B::LogAnd | B::LogOr => return None,
            };
            wrap(e, t)
        }
    })
}

/// Is `t` a 64-bit integer type? The GPU computes those in 32 bits (see the module docs of
/// `wgsl`), so each operation on one that can leave the 32-bit range is checked.
pub fn narrowed(t: PrimType) -> bool {
    matches!(t, PrimType::Int(IntType::I64 | IntType::U64))
}

/// When the 32-bit result `r` of `a op b` on a narrowed 64-bit type differs from the 64-bit
/// result: a WGSL condition, or `None` where it never does (the operands fit in 32 bits).
pub fn binop_overflow(op: BinOp, t: PrimType, a: &str, b: &str, r: &str) -> Option<String> {
    use BinOp as B;
    if !narrowed(t) {
        return None;
    }
    let signed = t == PrimType::Int(IntType::I64);
    Some(match (op, signed) {
        // Signed: the result's sign is wrong exactly when both operands' signs differ from it.
        (B::Add, true) => format!("((({a} ^ {r}) & ({b} ^ {r})) < 0)"),
        (B::Sub, true) => format!("((({a} ^ {b}) & ({a} ^ {r})) < 0)"),
        (B::Add, false) => format!("({r} < {a})"),
        // The 64-bit difference wraps to at least 2^64 - 2^32.
        (B::Sub, false) => format!("({a} < {b})"),
        (B::Mul, true) => format!("ogm_mul_ovf_i32({a}, {b})"),
        (B::Mul, false) => format!("ogm_mul_ovf_u32({a}, {b})"),
        (B::Div | B::Quot, true) => format!("({a} == i32(-2147483647 - 1) && {b} == -1)"),
        (B::Pow, true) => format!("ogm_pow_ovf_i32({a}, {b})"),
        (B::Pow, false) => format!("ogm_pow_ovf_u32({a}, {b})"),
        (B::Shl, true) => format!("ogm_shl_ovf_u32(bitcast<u32>({a}), bitcast<u32>({b}), true)"),
        (B::Shl, false) => format!("ogm_shl_ovf_u32({a}, {b}, false)"),
        _ => return None,
    })
}

/// As [`binop_overflow`], for a unary operation.
pub fn unop_overflow(op: UnOp, t: PrimType, a: &str) -> Option<String> {
    if !narrowed(t) {
        return None;
    }
    let signed = t == PrimType::Int(IntType::I64);
    Some(match (op, signed) {
        (UnOp::Neg | UnOp::Abs, true) => format!("({a} == i32(-2147483647 - 1))"),
        // -a and !a of a u64 wrap to at least 2^64 - 2^32.
        (UnOp::Neg, false) => format!("({a} != 0u)"),
        (UnOp::Not, false) => "true".to_string(),
        _ => return None,
    })
}

/// As [`binop_overflow`], for a conversion to a narrowed type: the 64-bit value does not fit.
pub fn convert_overflow(from: PrimType, to: PrimType, a: &str) -> Option<String> {
    let to_signed = match to {
        PrimType::Int(IntType::I64) => true,
        PrimType::Int(IntType::U64) => false,
        _ => return None,
    };
    Some(match (from, to_signed) {
        (PrimType::Int(IntType::U32 | IntType::U64), true) => format!("({a} > 0x7fffffffu)"),
        (PrimType::Int(i), false) if i.signed() => format!("({a} < 0)"),
        (PrimType::Float(_), _) => format!("ogm_f2w_ovf({a}, {to_signed})"),
        _ => return None,
    })
}

/// A right shift's amount is read as an unsigned number of the operand's width.
fn shift_amount(b: &str, t: PrimType) -> String {
    match t {
        PrimType::Int(i) if i.signed() && i.bits() < 32 => {
            format!("bitcast<i32>({})", mask_u32(b, t))
        }
        _ => b.to_string(),
    }
}

pub fn unop(op: UnOp, t: PrimType, a: &str, wide: bool) -> Option<String> {
    if wide && narrowed(t) {
        let signed = t == PrimType::Int(IntType::I64);
        return Some(match op {
            UnOp::Neg => format!("ogm_w_neg({a})"),
            UnOp::Not => format!("(~{a})"),
            UnOp::Abs if signed => format!("ogm_w_abs({a})"),
            UnOp::Abs => a.to_string(),
            UnOp::Sgn if signed => format!("ogm_w_sgn({a})"),
            UnOp::Sgn => format!("vec2<u32>(select(0u, 1u, any({a} != vec2<u32>(0u))), 0u)"),
        });
    }
    Some(match (op, t) {
        (UnOp::Neg, PrimType::Float(_)) => format!("(-{a})"),
        (UnOp::Neg, PrimType::Int(i)) if i.signed() => wrap(format!("(-{a})"), t),
        (UnOp::Neg, PrimType::Int(_)) => wrap(format!("(0u - {a})"), t),
        (UnOp::Not, PrimType::Bool) => format!("(!{a})"),
        (UnOp::Not, PrimType::Int(_)) => wrap(format!("(~{a})"), t),
        (UnOp::Abs, PrimType::Float(_)) => format!("abs({a})"),
        (UnOp::Abs, PrimType::Int(i)) if i.signed() => wrap(format!("abs({a})"), t),
        (UnOp::Abs, PrimType::Int(_)) => a.to_string(),
        (UnOp::Sgn, PrimType::Float(_)) => format!("ogm_fsgn({a})"),
        (UnOp::Sgn, PrimType::Int(i)) if i.signed() => format!("sign({a})"),
        (UnOp::Sgn, PrimType::Int(_)) => format!("select(0u, 1u, {a} > 0u)"),
        (UnOp::Abs | UnOp::Sgn, PrimType::Bool) => a.to_string(),
        (UnOp::Neg, PrimType::Bool) => a.to_string(),
        (UnOp::Not, PrimType::Float(_)) => return None,
    })
}

pub fn cmp(op: CmpOp, t: PrimType, a: &str, b: &str, wide: bool) -> String {
    if wide && narrowed(t) {
        let lt = if t == PrimType::Int(IntType::I64) { "ogm_w_lt_i" } else { "ogm_w_lt_u" };
        return match op {
            CmpOp::Eq => format!("all({a} == {b})"),
            CmpOp::Neq => format!("any({a} != {b})"),
            CmpOp::Lt => format!("{lt}({a}, {b})"),
            CmpOp::Le => format!("(!{lt}({b}, {a}))"),
            CmpOp::Gt => format!("{lt}({b}, {a})"),
            CmpOp::Ge => format!("(!{lt}({a}, {b}))"),
        };
    }
    let (a, b) = match t {
        PrimType::Bool => (format!("u32({a})"), format!("u32({b})")),
        _ => (a.to_string(), b.to_string()),
    };
    let o = match op {
        CmpOp::Eq => "==",
        CmpOp::Neq => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    };
    format!("({a} {o} {b})")
}

pub fn convert(from: PrimType, to: PrimType, a: &str, wide: bool) -> String {
    if wide && (narrowed(from) || narrowed(to)) {
        return wide_convert(from, to, a);
    }
    match (from, to) {
        (PrimType::Bool, PrimType::Bool) => a.to_string(),
        (PrimType::Int(i), PrimType::Bool) if i.signed() => format!("({a} != 0)"),
        (PrimType::Int(_), PrimType::Bool) => format!("({a} != 0u)"),
        (PrimType::Float(_), PrimType::Bool) => format!("({a} != 0.0)"),
        (PrimType::Bool, PrimType::Int(i)) if i.signed() => format!("select(0, 1, {a})"),
        (PrimType::Bool, PrimType::Int(_)) => format!("select(0u, 1u, {a})"),
        (PrimType::Int(f), PrimType::Int(t)) => {
            let e = if f.signed() == t.signed() {
                a.to_string()
            } else {
                format!("bitcast<{}>({a})", wgsl_type(to, false))
            };
            wrap(e, to)
        }
        (PrimType::Float(_), PrimType::Int(i)) if i.signed() => wrap(format!("ogm_f2i({a})"), to),
        (PrimType::Float(_), PrimType::Int(_)) => wrap(format!("ogm_f2u({a})"), to),
        (PrimType::Bool, PrimType::Float(_)) => format!("select(0.0, 1.0, {a})"),
        (PrimType::Int(_), PrimType::Float(_)) => round_to(format!("f32({a})"), to),
        (PrimType::Float(_), PrimType::Float(_)) => round_to(a.to_string(), to),
    }
}

/// An elementary function of the float type `t` (the operands' type, but the result's for
/// `from_bits`), or of the integer type `t` for `clz`/`ctz`/`popc`.
pub fn math(f: MathFn, t: PrimType, args: &[String], wide: bool) -> Option<String> {
    use MathFn as M;
    if wide && narrowed(t) {
        let a = args.first()?;
        return match f {
            M::Clz => Some(format!("ogm_w_clz({a})")),
            M::Ctz => Some(format!("ogm_w_ctz({a})")),
            M::Popc => Some(format!("ogm_w_popc({a})")),
            _ => None,
        };
    }
    let half = t == PrimType::Float(FloatType::F16);
    match f {
        M::ToBits if half => return Some(format!("ogm_f16_to_bits({})", args.first()?)),
        M::FromBits if half => {
            let b = mask_u32(args.first()?, PrimType::Int(IntType::U16));
            return Some(format!("ogm_f16_from_bits({b})"));
        }
        M::Floor | M::Ceil | M::Round | M::Trunc | M::IsNan | M::IsInf | M::ToBits => {}
        M::CopySign | M::FromBits | M::Clz | M::Ctz | M::Popc => {}
        _ if half => {
            return math(f, PrimType::Float(FloatType::F32), args, wide).map(|e| round_to(e, t))
        }
        _ => {}
    }
    let a = args.first()?;
    let b = || args.get(1);
    let one = |name: &str| format!("{name}({a})");
    Some(match f {
        M::Sqrt => one("sqrt"),
        M::Exp => one("exp"),
        M::Log => one("log"),
        M::Log2 => one("log2"),
        M::Log10 => format!("(log2({a}) * 0.30102999566398120)"),
        M::Sin => one("sin"),
        M::Cos => one("cos"),
        M::Tan => one("tan"),
        M::Asin => one("asin"),
        M::Acos => one("acos"),
        M::Atan => one("atan"),
        M::Atan2 => format!("atan2({a}, {})", b()?),
        M::Sinh => one("sinh"),
        M::Cosh => one("cosh"),
        M::Tanh => one("tanh"),
        M::Cbrt => one("ogm_cbrt"),
        M::Log1p => one("ogm_log1p"),
        M::Asinh => one("asinh"),
        M::Acosh => one("acosh"),
        M::Atanh => one("atanh"),
        M::Hypot => format!("length(vec2<f32>({a}, {}))", b()?),
        M::Floor => one("floor"),
        M::Ceil => one("ceil"),
        M::Round => one("round"),
        M::Trunc => one("trunc"),
        M::IsNan => one("ogm_isnan"),
        M::IsInf => one("ogm_isinf"),
        M::CopySign => format!("ogm_copysign({a}, {})", b()?),
        M::Fma => format!("fma({a}, {}, {})", b()?, args.get(2)?),
        M::ToBits => format!("bitcast<u32>({a})"),
        M::FromBits => format!("bitcast<f32>({a})"),
        // A narrowed 64-bit value's upper word is its sign extension (i64) or zero (u64).
        M::Clz if t == PrimType::Int(IntType::I64) => {
            format!("select(32 + i32(countLeadingZeros({a})), 0, {a} < 0)")
        }
        M::Clz if narrowed(t) => format!("(32 + i32(countLeadingZeros({a})))"),
        M::Clz => {
            let n = bits(t);
            format!("(i32(countLeadingZeros({})) - {})", mask_u32(a, t), 32 - n)
        }
        M::Ctz if narrowed(t) => {
            format!("select(i32(countTrailingZeros({w})), 64, {w} == 0u)", w = mask_u32(a, t))
        }
        M::Ctz => format!("i32(min(countTrailingZeros({}), {}u))", mask_u32(a, t), bits(t)),
        M::Popc if t == PrimType::Int(IntType::I64) => {
            format!("(i32(countOneBits({a})) + select(0, 32, {a} < 0))")
        }
        M::Popc => format!("i32(countOneBits({}))", mask_u32(a, t)),
    })
}

/// A binary operation on 64-bit integers held as `vec2<u32>` (see `ogm_w_*` in the prelude).
fn wide_binop(op: BinOp, t: PrimType, a: &str, b: &str) -> Option<String> {
    use BinOp as B;
    let signed = t == PrimType::Int(IntType::I64);
    let lt = if signed { "ogm_w_lt_i" } else { "ogm_w_lt_u" };
    Some(match op {
        B::Add => format!("ogm_w_add({a}, {b})"),
        B::Sub => format!("ogm_w_sub({a}, {b})"),
        B::Mul => format!("ogm_w_mul({a}, {b})"),
        B::Div if signed => format!("ogm_w_div_i({a}, {b})"),
        B::Mod if signed => format!("ogm_w_mod_i({a}, {b})"),
        B::Quot if signed => format!("ogm_w_quot_i({a}, {b})"),
        B::Rem if signed => format!("ogm_w_rem_i({a}, {b})"),
        B::Div | B::Quot => format!("ogm_w_divmod_u({a}, {b}).xy"),
        B::Mod | B::Rem => format!("ogm_w_divmod_u({a}, {b}).zw"),
        B::Pow => format!("ogm_w_pow({a}, {b})"),
        B::Min => format!("select({a}, {b}, {lt}({b}, {a}))"),
        B::Max => format!("select({a}, {b}, {lt}({a}, {b}))"),
        B::And => format!("({a} & {b})"),
        B::Or => format!("({a} | {b})"),
        B::Xor => format!("({a} ^ {b})"),
        B::Shl => format!("ogm_w_shl({a}, ogm_w_amount({b}))"),
        B::Shr if signed => format!("ogm_w_shr_i({a}, ogm_w_amount({b}))"),
        B::Shr => format!("ogm_w_shr_u({a}, ogm_w_amount({b}))"),
        B::LogAnd | B::LogOr => return None,
    })
}

/// A conversion from or to a 64-bit integer type held as `vec2<u32>`.
fn wide_convert(from: PrimType, to: PrimType, a: &str) -> String {
    let signed = |t: PrimType| matches!(t, PrimType::Int(i) if i.signed());
    match (from, to) {
        (f, t) if narrowed(f) && narrowed(t) => a.to_string(),
        (PrimType::Bool, _) => format!("vec2<u32>(select(0u, 1u, {a}), 0u)"),
        (_, PrimType::Bool) => format!("any({a} != vec2<u32>(0u))"),
        (PrimType::Float(_), _) => format!("ogm_w_from_f32({a})"),
        (_, PrimType::Float(_)) if signed(from) => round_to(format!("ogm_w_to_f32_i({a})"), to),
        (_, PrimType::Float(_)) => round_to(format!("ogm_w_to_f32_u({a})"), to),
        // Smaller integers to 64 bits: i8/i16/i32 registers hold the value sign-extended.
        (f, _) if narrowed(to) && signed(f) => format!("ogm_w_i32({a})"),
        (_, _) if narrowed(to) => format!("vec2<u32>({a}, 0u)"),
        // 64 bits to a smaller integer: the low word, wrapped to the target's width.
        (_, t) if signed(t) => wrap(format!("bitcast<i32>({a}.x)"), to),
        _ => wrap(format!("{a}.x"), to),
    }
}
