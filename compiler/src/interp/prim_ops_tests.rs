use super::*;
use crate::prim::PrimValue as P;

fn bin(op: BinOp, a: P, b: P) -> P {
    binop(op, a, b).unwrap_or_else(|e| panic!("{op:?} {a:?} {b:?}: {e}"))
}

fn bin_err(op: BinOp, a: P, b: P) -> String {
    binop(op, a, b).expect_err("expected an error")
}

/// Run `op` on `a` and `b` converted to every integer type, expecting `want` (wrapped).
fn all_ints(op: BinOp, a: i128, b: i128, want: i128) {
    for t in IntType::ALL {
        let got = bin(op, P::int(t, a), P::int(t, b));
        assert_eq!(got, P::int(t, want), "{op:?} {a} {b} on {}", t.name());
    }
}

fn signed_ints(op: BinOp, a: i128, b: i128, want: i128) {
    for t in IntType::ALL.into_iter().filter(|t| t.signed()) {
        let got = bin(op, P::int(t, a), P::int(t, b));
        assert_eq!(got, P::int(t, want), "{op:?} {a} {b} on {}", t.name());
    }
}

#[test]
fn integer_arithmetic_wraps_in_every_width() {
    all_ints(BinOp::Add, 3, 4, 7);
    all_ints(BinOp::Sub, 3, 4, -1);
    all_ints(BinOp::Mul, 6, 7, 42);
    assert_eq!(bin(BinOp::Add, P::I8(127), P::I8(1)), P::I8(-128));
    assert_eq!(bin(BinOp::Add, P::U8(255), P::U8(1)), P::U8(0));
    assert_eq!(bin(BinOp::Sub, P::U16(0), P::U16(1)), P::U16(u16::MAX));
    assert_eq!(bin(BinOp::Mul, P::I32(1 << 30), P::I32(4)), P::I32(0));
    assert_eq!(bin(BinOp::Mul, P::I64(i64::MAX), P::I64(2)), P::I64(-2));
    assert_eq!(bin(BinOp::Add, P::U64(u64::MAX), P::U64(2)), P::U64(1));
    assert_eq!(bin(BinOp::Mul, P::U32(65536), P::U32(65536)), P::U32(0));
}

#[test]
fn flooring_versus_truncating_division() {
    // `/` and `%` floor; the remainder has the divisor's sign.
    signed_ints(BinOp::Div, 7, 2, 3);
    signed_ints(BinOp::Div, -7, 2, -4);
    signed_ints(BinOp::Div, 7, -2, -4);
    signed_ints(BinOp::Div, -7, -2, 3);
    signed_ints(BinOp::Mod, 7, 2, 1);
    signed_ints(BinOp::Mod, -7, 2, 1);
    signed_ints(BinOp::Mod, 7, -2, -1);
    signed_ints(BinOp::Mod, -7, -2, -1);
    signed_ints(BinOp::Div, -6, 3, -2);
    signed_ints(BinOp::Mod, -6, 3, 0);
    // `//` and `%%` truncate.
    signed_ints(BinOp::Quot, -7, 2, -3);
    signed_ints(BinOp::Quot, 7, -2, -3);
    signed_ints(BinOp::Rem, -7, 2, -1);
    signed_ints(BinOp::Rem, 7, -2, 1);
    // Unsigned division is plain.
    for t in IntType::ALL.into_iter().filter(|t| !t.signed()) {
        for op in [BinOp::Div, BinOp::Quot] {
            assert_eq!(bin(op, P::int(t, 200), P::int(t, 7)), P::int(t, 28));
        }
        for op in [BinOp::Mod, BinOp::Rem] {
            assert_eq!(bin(op, P::int(t, 200), P::int(t, 7)), P::int(t, 4));
        }
    }
    // The one overflowing case wraps.
    assert_eq!(bin(BinOp::Div, P::I32(i32::MIN), P::I32(-1)), P::I32(i32::MIN));
    assert_eq!(bin(BinOp::Mod, P::I32(i32::MIN), P::I32(-1)), P::I32(0));
    assert_eq!(bin(BinOp::Quot, P::I8(i8::MIN), P::I8(-1)), P::I8(i8::MIN));
    assert_eq!(bin(BinOp::Rem, P::I64(i64::MIN), P::I64(-1)), P::I64(0));
}

#[test]
fn division_by_zero_is_an_error_for_all_integer_division_operators() {
    for t in IntType::ALL {
        for op in [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem] {
            assert_eq!(bin_err(op, P::int(t, 5), P::int(t, 0)), "division by zero");
        }
    }
}

#[test]
fn integer_power() {
    all_ints(BinOp::Pow, 3, 4, 81);
    all_ints(BinOp::Pow, 0, 0, 1);
    all_ints(BinOp::Pow, 7, 1, 7);
    all_ints(BinOp::Pow, 2, 3, 8);
    signed_ints(BinOp::Pow, -2, 3, -8);
    // Wrapping: 3^5 = 243 = -13 in i8; 2^64 = 0 in u64.
    assert_eq!(bin(BinOp::Pow, P::I8(3), P::I8(5)), P::I8(-13));
    assert_eq!(bin(BinOp::Pow, P::U64(2), P::U64(64)), P::U64(0));
    assert_eq!(bin(BinOp::Pow, P::I32(3), P::I32(40)), P::I32(3i32.wrapping_pow(40)));
    // An unsigned exponent is never negative.
    assert_eq!(bin(BinOp::Pow, P::U8(1), P::U8(255)), P::U8(1));
    assert_eq!(bin_err(BinOp::Pow, P::I32(2), P::I32(-1)), "negative exponent: 2 ** -1");
}

#[test]
fn min_max_and_bitwise() {
    signed_ints(BinOp::Min, -3, 2, -3);
    signed_ints(BinOp::Max, -3, 2, 2);
    // Unsigned comparison: 255u8 is the largest.
    assert_eq!(bin(BinOp::Min, P::U8(255), P::U8(1)), P::U8(1));
    assert_eq!(bin(BinOp::Max, P::U32(u32::MAX), P::U32(1)), P::U32(u32::MAX));
    all_ints(BinOp::And, 0b1100, 0b1010, 0b1000);
    all_ints(BinOp::Or, 0b1100, 0b1010, 0b1110);
    all_ints(BinOp::Xor, 0b1100, 0b1010, 0b0110);
    assert_eq!(bin(BinOp::And, P::I8(-1), P::I8(0x55)), P::I8(0x55));
}

#[test]
fn shifts_arithmetic_logical_and_out_of_range_amounts() {
    all_ints(BinOp::Shl, 1, 3, 8);
    all_ints(BinOp::Shr, 64, 3, 8);
    assert_eq!(bin(BinOp::Shl, P::I8(1), P::I8(7)), P::I8(-128));
    assert_eq!(bin(BinOp::Shl, P::U8(0x81), P::U8(1)), P::U8(2));
    // Signed `>>` is arithmetic, unsigned logical.
    assert_eq!(bin(BinOp::Shr, P::I32(-16), P::I32(2)), P::I32(-4));
    assert_eq!(bin(BinOp::Shr, P::U32(0x8000_0000), P::U32(31)), P::U32(1));
    assert_eq!(bin(BinOp::Shr, P::I8(-128), P::I8(7)), P::I8(-1));
    assert_eq!(bin(BinOp::Shr, P::U8(128), P::U8(7)), P::U8(1));
    // Amounts at or beyond the width shift everything out (sign-filling for `>>` on signed).
    for t in IntType::ALL {
        let w = t.bits() as i128;
        assert_eq!(bin(BinOp::Shl, P::int(t, 1), P::int(t, w)), P::int(t, 0), "{t:?}");
        assert_eq!(bin(BinOp::Shr, P::int(t, 5), P::int(t, w)), P::int(t, 0), "{t:?}");
    }
    assert_eq!(bin(BinOp::Shl, P::I32(1), P::I32(40)), P::I32(0));
    assert_eq!(bin(BinOp::Shr, P::I32(-8), P::I32(40)), P::I32(-1));
    assert_eq!(bin(BinOp::Shr, P::I64(-8), P::I64(64)), P::I64(-1));
    assert_eq!(bin(BinOp::Shr, P::U8(200), P::U8(9)), P::U8(0));
    // A negative amount reads as a huge unsigned one.
    assert_eq!(bin(BinOp::Shl, P::I32(1), P::I32(-1)), P::I32(0));
    assert_eq!(bin(BinOp::Shr, P::I16(-1), P::I16(-1)), P::I16(-1));
}

#[test]
fn bool_operators() {
    assert_eq!(bin(BinOp::LogAnd, P::Bool(true), P::Bool(false)), P::Bool(false));
    assert_eq!(bin(BinOp::LogOr, P::Bool(true), P::Bool(false)), P::Bool(true));
    assert_eq!(bin(BinOp::Xor, P::Bool(true), P::Bool(true)), P::Bool(false));
    assert_eq!(bin(BinOp::And, P::Bool(true), P::Bool(true)), P::Bool(true));
    assert_eq!(bin(BinOp::Min, P::Bool(true), P::Bool(false)), P::Bool(false));
    assert_eq!(bin(BinOp::Max, P::Bool(true), P::Bool(false)), P::Bool(true));
    assert!(bin_err(BinOp::Add, P::Bool(true), P::Bool(false)).starts_with("internal error"));
    assert!(bin_err(BinOp::LogAnd, P::I32(1), P::I32(1)).starts_with("internal error"));
    assert!(bin_err(BinOp::Add, P::I32(1), P::I64(1)).contains("(i32, i64)"));
}

fn f64s(op: BinOp, a: f64, b: f64) -> f64 {
    match bin(op, P::F64(a), P::F64(b)) {
        P::F64(x) => x,
        v => panic!("{v:?}"),
    }
}

/// `op` on every float type, compared through f64 (all test values are exact in f16).
fn all_floats(op: BinOp, a: f64, b: f64, want: f64) {
    for t in FloatType::ALL {
        let got = bin(op, P::float(t, a), P::float(t, b)).as_f64().expect("float");
        assert!(
            got == want || (got.is_nan() && want.is_nan()),
            "{op:?} {a} {b} on {}: got {got}, want {want}",
            t.name()
        );
        if want == 0.0 {
            assert_eq!(got.is_sign_negative(), want.is_sign_negative(), "{op:?} {a} {b} {t:?}");
        }
    }
}

#[test]
fn float_arithmetic_is_ieee_in_every_precision() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    all_floats(BinOp::Add, 1.5, 2.25, 3.75);
    all_floats(BinOp::Sub, 1.5, 2.25, -0.75);
    all_floats(BinOp::Mul, 1.5, -2.0, -3.0);
    all_floats(BinOp::Div, 1.0, 4.0, 0.25);
    all_floats(BinOp::Div, 1.0, 0.0, inf);
    all_floats(BinOp::Div, -1.0, 0.0, -inf);
    all_floats(BinOp::Div, 0.0, 0.0, nan);
    all_floats(BinOp::Add, inf, -inf, nan);
    all_floats(BinOp::Mul, nan, 1.0, nan);
    all_floats(BinOp::Pow, 2.0, 10.0, 1024.0);
    all_floats(BinOp::Pow, -8.0, 0.5, nan);
    // f32 keeps single precision: 0.1 + 0.2 rounds differently from f64.
    assert_eq!(bin(BinOp::Add, P::F32(0.1), P::F32(0.2)), P::F32(0.1f32 + 0.2f32));
    assert_eq!(f64s(BinOp::Add, 0.1, 0.2), 0.1 + 0.2);
    // f16 overflows at 65504.
    let big = P::F16(f16::from_f32(60000.0));
    assert_eq!(bin(BinOp::Add, big, big).as_f64(), Some(inf));
}

#[test]
fn float_modulo_floors_and_truncating_variants() {
    let inf = f64::INFINITY;
    all_floats(BinOp::Mod, 7.5, 2.0, 1.5);
    all_floats(BinOp::Mod, -7.5, 2.0, 0.5);
    all_floats(BinOp::Mod, 7.5, -2.0, -0.5);
    all_floats(BinOp::Mod, -7.5, -2.0, -1.5);
    all_floats(BinOp::Mod, -1.0, 3.0, 2.0);
    all_floats(BinOp::Mod, 6.0, 3.0, 0.0);
    all_floats(BinOp::Mod, 6.0, -3.0, -0.0);
    all_floats(BinOp::Mod, 1.0, 0.0, f64::NAN);
    all_floats(BinOp::Mod, inf, 2.0, f64::NAN);
    all_floats(BinOp::Mod, 1.0, inf, 1.0);
    all_floats(BinOp::Mod, -1.0, inf, inf);
    all_floats(BinOp::Quot, -7.5, 2.0, -3.0);
    all_floats(BinOp::Rem, -7.5, 2.0, -1.5);
}

#[test]
fn float_min_max_ignore_nan() {
    let nan = f64::NAN;
    all_floats(BinOp::Min, 1.0, 2.0, 1.0);
    all_floats(BinOp::Max, 1.0, 2.0, 2.0);
    all_floats(BinOp::Min, nan, 2.0, 2.0);
    all_floats(BinOp::Min, 2.0, nan, 2.0);
    all_floats(BinOp::Max, nan, -2.0, -2.0);
    all_floats(BinOp::Max, -2.0, nan, -2.0);
    all_floats(BinOp::Max, nan, nan, nan);
    all_floats(BinOp::Min, f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY);
    for op in [BinOp::And, BinOp::Shl, BinOp::LogOr] {
        assert!(bin_err(op, P::F32(1.0), P::F32(1.0)).starts_with("internal error"));
    }
}

#[test]
fn unary_operators() {
    let un = |op, a| unop(op, a).unwrap_or_else(|e| panic!("{e}"));
    for t in IntType::ALL {
        assert_eq!(un(UnOp::Neg, P::int(t, 5)), P::int(t, -5));
        assert_eq!(un(UnOp::Not, P::int(t, 0)), P::int(t, -1));
        assert_eq!(un(UnOp::Sgn, P::int(t, 0)), P::int(t, 0));
        assert_eq!(un(UnOp::Sgn, P::int(t, 9)), P::int(t, 1));
        assert_eq!(un(UnOp::Abs, P::int(t, 9)), P::int(t, 9));
    }
    for t in IntType::ALL.into_iter().filter(|t| t.signed()) {
        assert_eq!(un(UnOp::Abs, P::int(t, -9)), P::int(t, 9));
        assert_eq!(un(UnOp::Sgn, P::int(t, -9)), P::int(t, -1));
    }
    // Unsigned: 255u8 is positive.
    assert_eq!(un(UnOp::Sgn, P::U8(255)), P::U8(1));
    assert_eq!(un(UnOp::Abs, P::U8(255)), P::U8(255));
    // Wrapping at the edge.
    assert_eq!(un(UnOp::Neg, P::I8(-128)), P::I8(-128));
    assert_eq!(un(UnOp::Abs, P::I32(i32::MIN)), P::I32(i32::MIN));
    assert_eq!(un(UnOp::Not, P::U8(0x0f)), P::U8(0xf0));
    assert_eq!(un(UnOp::Not, P::Bool(true)), P::Bool(false));
    assert_eq!(un(UnOp::Neg, P::Bool(false)), P::Bool(true));
    for t in FloatType::ALL {
        let f = |x| P::float(t, x);
        assert_eq!(un(UnOp::Neg, f(1.5)), f(-1.5));
        assert_eq!(un(UnOp::Abs, f(-1.5)), f(1.5));
        assert_eq!(un(UnOp::Sgn, f(-1.5)), f(-1.0));
        assert_eq!(un(UnOp::Sgn, f(0.25)), f(1.0));
        assert_eq!(un(UnOp::Sgn, f(f64::INFINITY)), f(1.0));
        let z = un(UnOp::Sgn, f(-0.0)).as_f64().expect("float");
        assert!(z == 0.0 && z.is_sign_positive());
        assert!(un(UnOp::Sgn, f(f64::NAN)).as_f64().expect("float").is_nan());
        assert!(un(UnOp::Abs, f(f64::NAN)).as_f64().expect("float").is_nan());
        assert!(unop(UnOp::Not, f(1.0)).is_err());
    }
    assert!(unop(UnOp::Abs, P::Bool(true)).is_err());
}

#[test]
fn comparisons() {
    for t in PrimType::all().filter(|t| t.is_numeric()) {
        let v = |x: f64| match t {
            PrimType::Int(it) => P::int(it, x as i128),
            PrimType::Float(ft) => P::float(ft, x),
            PrimType::Bool => P::Bool(x != 0.0),
        };
        assert_eq!(cmp(CmpOp::Lt, v(1.0), v(2.0)), Ok(true));
        assert_eq!(cmp(CmpOp::Le, v(2.0), v(2.0)), Ok(true));
        assert_eq!(cmp(CmpOp::Gt, v(1.0), v(2.0)), Ok(false));
        assert_eq!(cmp(CmpOp::Ge, v(2.0), v(1.0)), Ok(true));
        assert_eq!(cmp(CmpOp::Eq, v(3.0), v(3.0)), Ok(true));
        assert_eq!(cmp(CmpOp::Neq, v(3.0), v(3.0)), Ok(false));
    }
    // Signed versus unsigned ordering of the same bits.
    assert_eq!(cmp(CmpOp::Lt, P::I8(-1), P::I8(1)), Ok(true));
    assert_eq!(cmp(CmpOp::Lt, P::U8(255), P::U8(1)), Ok(false));
    // NaN is unordered and unequal to itself.
    for t in FloatType::ALL {
        let nan = P::float(t, f64::NAN);
        for op in [CmpOp::Eq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
            assert_eq!(cmp(op, nan, nan), Ok(false));
        }
        assert_eq!(cmp(CmpOp::Neq, nan, nan), Ok(true));
        assert_eq!(cmp(CmpOp::Eq, P::float(t, 0.0), P::float(t, -0.0)), Ok(true));
    }
    assert_eq!(cmp(CmpOp::Lt, P::Bool(false), P::Bool(true)), Ok(true));
    assert!(cmp(CmpOp::Eq, P::I32(1), P::F32(1.0)).is_err());
}

fn conv(to: PrimType, a: P) -> P {
    convert(a.ty(), to, a).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn integer_conversions_wrap_and_extend() {
    let i = |t| PrimType::Int(t);
    assert_eq!(conv(i(IntType::I8), P::I32(300)), P::I8(44));
    assert_eq!(conv(i(IntType::U8), P::I32(-1)), P::U8(255));
    assert_eq!(conv(i(IntType::I64), P::I8(-1)), P::I64(-1));
    assert_eq!(conv(i(IntType::I64), P::U8(255)), P::I64(255));
    assert_eq!(conv(i(IntType::U64), P::I32(-1)), P::U64(u64::MAX));
    assert_eq!(conv(i(IntType::I32), P::U32(u32::MAX)), P::I32(-1));
    assert_eq!(conv(i(IntType::I16), P::U64(0x1_2345)), P::I16(0x2345));
}

#[test]
fn float_to_int_truncates_and_handles_special_values() {
    let i = |t| PrimType::Int(t);
    assert_eq!(conv(i(IntType::I32), P::F64(2.9)), P::I32(2));
    assert_eq!(conv(i(IntType::I32), P::F64(-2.9)), P::I32(-2));
    assert_eq!(conv(i(IntType::I64), P::F32(-0.5)), P::I64(0));
    assert_eq!(conv(i(IntType::U8), P::F32(-1.0)), P::U8(255));
    assert_eq!(conv(i(IntType::U32), P::F64(3e9)), P::U32(3_000_000_000));
    assert_eq!(conv(i(IntType::I8), P::F64(300.0)), P::I8(44));
    assert_eq!(conv(i(IntType::I32), P::F64(4294967297.0)), P::I32(1));
    assert_eq!(conv(i(IntType::I64), P::F64(1e300)), P::I64(0));
    assert_eq!(conv(i(IntType::U64), P::F64(18446744073709551615.0)), P::U64(0));
    for t in IntType::ALL {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for ft in FloatType::ALL {
                assert_eq!(conv(i(t), P::float(ft, x)), P::int(t, 0), "{x} {ft:?} -> {t:?}");
            }
        }
    }
    assert_eq!(conv(i(IntType::I16), P::F16(f16::from_f32(-3.75))), P::I16(-3));
}

#[test]
fn to_float_conversions_round_to_nearest() {
    let f = |t| PrimType::Float(t);
    assert_eq!(conv(f(FloatType::F64), P::I32(-7)), P::F64(-7.0));
    // 2^24 + 1 is not representable in f32: ties to even gives 2^24.
    assert_eq!(conv(f(FloatType::F32), P::I32(16_777_217)), P::F32(16_777_216.0));
    assert_eq!(conv(f(FloatType::F32), P::I64(16_777_219)), P::F32(16_777_220.0));
    assert_eq!(conv(f(FloatType::F64), P::U64(u64::MAX)), P::F64(18446744073709551616.0));
    assert_eq!(conv(f(FloatType::F32), P::U64(u64::MAX)), P::F32(18446744073709551616.0));
    assert_eq!(conv(f(FloatType::F16), P::I32(2049)), P::F16(f16::from_f32(2048.0)));
    assert_eq!(conv(f(FloatType::F16), P::I32(70000)).as_f64(), Some(f64::INFINITY));
    assert_eq!(conv(f(FloatType::F32), P::F64(0.1)), P::F32(0.1));
    assert_eq!(conv(f(FloatType::F64), P::F32(0.1)), P::F64(0.1f32 as f64));
    assert_eq!(conv(f(FloatType::F16), P::F64(1.0 / 3.0)), P::F16(f16::from_f64(1.0 / 3.0)));
    assert!(conv(f(FloatType::F32), P::F64(f64::NAN)).as_f64().is_some_and(f64::is_nan));
    assert_eq!(conv(f(FloatType::F32), P::F64(1e300)), P::F32(f32::INFINITY));
}

#[test]
fn bool_conversions() {
    for t in PrimType::all() {
        let one = conv(t, P::Bool(true));
        let zero = conv(t, P::Bool(false));
        assert_eq!(zero, P::zero(t));
        assert_eq!(conv(PrimType::Bool, one), P::Bool(true));
        assert_eq!(conv(PrimType::Bool, zero), P::Bool(false));
    }
    assert_eq!(conv(PrimType::Bool, P::I32(-5)), P::Bool(true));
    assert_eq!(conv(PrimType::Bool, P::F32(f32::NAN)), P::Bool(true));
    assert_eq!(conv(PrimType::Bool, P::F64(-0.0)), P::Bool(false));
    assert!(convert(PrimType::I32, PrimType::I64, P::I64(1)).is_err());
}

fn m(f: MathFn, args: &[P]) -> P {
    math(f, args).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn elementary_functions_in_every_precision() {
    use MathFn as M;
    let unary: &[(MathFn, f64, f64)] = &[
        (M::Sqrt, 4.0, 2.0),
        (M::Exp, 0.0, 1.0),
        (M::Log, 1.0, 0.0),
        (M::Log2, 8.0, 3.0),
        (M::Log10, 100.0, 2.0),
        (M::Sin, 0.0, 0.0),
        (M::Cos, 0.0, 1.0),
        (M::Tan, 0.0, 0.0),
        (M::Asin, 1.0, std::f64::consts::FRAC_PI_2),
        (M::Acos, 1.0, 0.0),
        (M::Atan, 1.0, std::f64::consts::FRAC_PI_4),
        (M::Sinh, 0.0, 0.0),
        (M::Cosh, 0.0, 1.0),
        (M::Tanh, 0.0, 0.0),
        (M::Cbrt, -27.0, -3.0),
        (M::Log1p, 0.0, 0.0),
        (M::Asinh, 0.0, 0.0),
        (M::Acosh, 1.0, 0.0),
        (M::Atanh, 0.0, 0.0),
        (M::Floor, -1.5, -2.0),
        (M::Ceil, -1.5, -1.0),
        (M::Trunc, -1.5, -1.0),
        (M::Round, 2.5, 2.0),
        (M::Round, 3.5, 4.0),
        (M::Round, -2.5, -2.0),
        (M::Round, 2.6, 3.0),
    ];
    for &(f, x, want) in unary {
        for t in FloatType::ALL {
            let got = m(f, &[P::float(t, x)]);
            assert_eq!(got.ty(), PrimType::Float(t));
            let got = got.as_f64().expect("float");
            let tol = if t == FloatType::F16 { 1e-3 } else { 1e-6 };
            assert!((got - want).abs() <= tol, "{f:?}({x}) on {t:?}: {got} != {want}");
        }
    }
    assert!(m(M::Sqrt, &[P::F64(-1.0)]).as_f64().is_some_and(f64::is_nan));
    assert_eq!(m(M::Log, &[P::F32(0.0)]), P::F32(f32::NEG_INFINITY));
    assert_eq!(m(M::Sin, &[P::F32(1.0)]), P::F32(1f32.sin()));
    assert_eq!(m(M::Exp, &[P::F64(1.0)]), P::F64(std::f64::consts::E));
    assert_eq!(m(M::Atan2, &[P::F64(1.0), P::F64(-1.0)]), P::F64(1f64.atan2(-1.0)));
    assert_eq!(m(M::Hypot, &[P::F32(3.0), P::F32(4.0)]), P::F32(5.0));
    assert_eq!(m(M::CopySign, &[P::F64(3.0), P::F64(-0.0)]), P::F64(-3.0));
    assert_eq!(m(M::Fma, &[P::F32(2.0), P::F32(3.0), P::F32(1.0)]), P::F32(7.0));
    let h = |x: f32| P::F16(f16::from_f32(x));
    assert_eq!(m(M::Fma, &[h(2.0), h(3.0), h(1.0)]), h(7.0));
    assert_eq!(m(M::Hypot, &[h(3.0), h(4.0)]), h(5.0));
    assert_eq!(m(M::IsNan, &[P::F32(f32::NAN)]), P::Bool(true));
    assert_eq!(m(M::IsNan, &[h(1.0)]), P::Bool(false));
    assert_eq!(m(M::IsInf, &[P::F64(f64::NEG_INFINITY)]), P::Bool(true));
    assert_eq!(m(M::IsInf, &[P::F64(f64::NAN)]), P::Bool(false));
}

#[test]
fn bit_functions() {
    use MathFn as M;
    assert_eq!(m(M::ToBits, &[P::F32(1.0)]), P::U32(0x3f80_0000));
    assert_eq!(m(M::ToBits, &[P::F32(-1.0)]), P::U32(0xbf80_0000));
    assert_eq!(m(M::ToBits, &[P::F64(1.0)]), P::U64(0x3ff0_0000_0000_0000));
    assert_eq!(m(M::ToBits, &[P::F16(f16::from_f32(1.0))]), P::U16(0x3c00));
    assert_eq!(m(M::FromBits, &[P::U32(0x3f80_0000)]), P::F32(1.0));
    assert_eq!(m(M::FromBits, &[P::I32(0xbf80_0000u32 as i32)]), P::F32(-1.0));
    assert_eq!(m(M::FromBits, &[P::U64(0x3ff0_0000_0000_0000)]), P::F64(1.0));
    assert_eq!(m(M::FromBits, &[P::U16(0x3c00)]), P::F16(f16::from_f32(1.0)));
    assert_eq!(m(M::Clz, &[P::I32(1)]), P::I32(31));
    assert_eq!(m(M::Clz, &[P::U8(1)]), P::I32(7));
    assert_eq!(m(M::Clz, &[P::I64(0)]), P::I32(64));
    assert_eq!(m(M::Clz, &[P::I16(-1)]), P::I32(0));
    assert_eq!(m(M::Ctz, &[P::I32(8)]), P::I32(3));
    assert_eq!(m(M::Ctz, &[P::U16(0)]), P::I32(16));
    assert_eq!(m(M::Popc, &[P::I8(-1)]), P::I32(8));
    assert_eq!(m(M::Popc, &[P::U64(0xff00)]), P::I32(8));
    assert!(math(M::Sqrt, &[P::I32(4)]).is_err());
    assert!(math(M::Clz, &[P::F32(4.0)]).is_err());
    assert!(math(M::FromBits, &[P::I8(4)]).is_err());
    assert!(math(M::Atan2, &[P::F32(1.0)]).is_err());
    assert!(math(M::Hypot, &[P::F32(1.0), P::F64(1.0)]).is_err());
}
