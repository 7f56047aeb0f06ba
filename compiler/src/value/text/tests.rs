use proptest::prelude::*;

use super::*;
use crate::prim::{f16, IntType, PrimType, PrimValue};

fn one(src: &str) -> Value {
    match parse_values(src) {
        Ok(mut vs) if vs.len() == 1 => vs.remove(0),
        other => panic!("{src}: {other:?}"),
    }
}

fn prim(src: &str) -> PrimValue {
    match one(src) {
        Value::Prim(p) => p,
        v => panic!("{src}: not a scalar: {v:?}"),
    }
}

fn err(src: &str) -> Diagnostic {
    match parse_values(src) {
        Err(d) => {
            assert_eq!(d.phase, Phase::Value);
            assert!(d.span.end as usize <= src.len(), "{src}: span {:?} out of range", d.span);
            d
        }
        Ok(v) => panic!("{src}: expected an error, got {v:?}"),
    }
}

/// Parse, print, and check the printed text.
fn show(src: &str) -> String {
    let vs = parse_values(src).unwrap_or_else(|d| panic!("{src}: {}", d.message));
    vs.iter().map(format_value).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_integer_suffix() {
    assert_eq!(prim("1i8"), PrimValue::I8(1));
    assert_eq!(prim("-2i16"), PrimValue::I16(-2));
    assert_eq!(prim("3i32"), PrimValue::I32(3));
    assert_eq!(prim("4i64"), PrimValue::I64(4));
    assert_eq!(prim("5u8"), PrimValue::U8(5));
    assert_eq!(prim("6u16"), PrimValue::U16(6));
    assert_eq!(prim("7u32"), PrimValue::U32(7));
    assert_eq!(prim("2u64"), PrimValue::U64(2));
    assert_eq!(prim("18446744073709551615u64"), PrimValue::U64(u64::MAX));
    assert_eq!(prim("-9223372036854775808i64"), PrimValue::I64(i64::MIN));
    assert_eq!(prim("-128i8"), PrimValue::I8(-128));
}

#[test]
fn every_float_suffix_and_form() {
    assert_eq!(prim("3.5f32"), PrimValue::F32(3.5));
    assert_eq!(prim("1f64"), PrimValue::F64(1.0));
    assert_eq!(prim("1f32"), PrimValue::F32(1.0));
    assert_eq!(prim("-2.25f16"), PrimValue::F16(f16::from_f32(-2.25)));
    assert_eq!(prim("1e3f32"), PrimValue::F32(1000.0));
    assert_eq!(prim("1.5E-2"), PrimValue::F64(0.015));
    assert_eq!(prim("2.5e+1f64"), PrimValue::F64(25.0));
    assert_eq!(prim("1_000.000_1"), PrimValue::F64(1000.0001));
    // Correct rounding straight to f32, not through f64.
    assert_eq!(prim("16777217f32"), PrimValue::F32(16777216.0));
    assert_eq!(prim("0.1f32"), PrimValue::F32(0.1));
}

#[test]
fn special_floats() {
    assert_eq!(prim("f32.inf"), PrimValue::F32(f32::INFINITY));
    assert_eq!(prim("-f32.inf"), PrimValue::F32(f32::NEG_INFINITY));
    assert_eq!(prim("f64.inf"), PrimValue::F64(f64::INFINITY));
    assert_eq!(prim("-f64.inf"), PrimValue::F64(f64::NEG_INFINITY));
    assert_eq!(prim("f16.inf"), PrimValue::F16(f16::INFINITY));
    assert!(matches!(prim("f32.nan"), PrimValue::F32(x) if x.is_nan()));
    assert!(matches!(prim("f64.nan"), PrimValue::F64(x) if x.is_nan()));
    assert!(matches!(prim("f16.nan"), PrimValue::F16(x) if x.is_nan()));
    assert_eq!(one("[f32.inf, 1, -f32.inf]").type_string(), "[3]f32");
}

#[test]
fn unsuffixed_literals_default_as_futhark() {
    assert_eq!(prim("1"), PrimValue::I32(1));
    assert_eq!(prim("-7"), PrimValue::I32(-7));
    assert_eq!(prim("2.5"), PrimValue::F64(2.5));
    assert_eq!(prim("1e2"), PrimValue::F64(100.0));
    assert_eq!(prim("true"), PrimValue::Bool(true));
    assert_eq!(prim("false"), PrimValue::Bool(false));
}

#[test]
fn hex_binary_and_underscores() {
    assert_eq!(prim("-0x1F"), PrimValue::I32(-31));
    assert_eq!(prim("0xffu8"), PrimValue::U8(255));
    assert_eq!(prim("0XFF"), PrimValue::I32(255));
    assert_eq!(prim("0b1010"), PrimValue::I32(10));
    assert_eq!(prim("1_000"), PrimValue::I32(1000));
    assert_eq!(prim("0x7fff_ffffi32"), PrimValue::I32(i32::MAX));
    // Hexadecimal literals are bit patterns of the type's width.
    assert_eq!(prim("0xFFi8"), PrimValue::I8(-1));
    assert_eq!(prim("0xFFFFFFFF"), PrimValue::I32(-1));
    assert_eq!(prim("0x10f64"), PrimValue::I32(0x10f64));
}

#[test]
fn arrays_nested_and_typed_by_first_typed_element() {
    let v = one("[[1, 2, 3], [4, 5, 6]]");
    assert_eq!(v.type_string(), "[2][3]i32");
    assert_eq!(v.elems()[5], PrimValue::I32(6));
    assert_eq!(one("[1f32, 2, 3]").type_string(), "[3]f32");
    assert_eq!(one("[1, 2, 3u8]").type_string(), "[3]u8");
    assert_eq!(one("[1, 2.5]").type_string(), "[2]f64");
    assert_eq!(one("[[1.5f32], [2]]").type_string(), "[2][1]f32");
    assert_eq!(one("[true, false]").type_string(), "[2]bool");
    assert_eq!(one("[1, 2,]").type_string(), "[2]i32");
    assert_eq!(one("[ [ 1 ] , [ 2 ] ]").type_string(), "[2][1]i32");
}

#[test]
fn empty_arrays() {
    let v = one("empty([0][3]f32)");
    assert_eq!(v.type_string(), "[0][3]f32");
    assert_eq!(one("empty([0]i32)").type_string(), "[0]i32");
    assert_eq!(one("empty( [2] [0] bool )").type_string(), "[2][0]bool");
    assert_eq!(one("[empty([0]i64), empty([0]i64)]").type_string(), "[2][0]i64");
    assert_eq!(one("[empty([0]i64), empty([0]i64)]").elems().len(), 0);
}

#[test]
fn strings_are_u8_arrays() {
    assert_eq!(
        one("\"ab\\n\"").elems(),
        &[PrimValue::U8(b'a'), PrimValue::U8(b'b'), PrimValue::U8(b'\n')]
    );
    assert_eq!(one("\"\"").type_string(), "[0]u8");
    assert_eq!(one("[\"ab\", \"cd\"]").type_string(), "[2][2]u8");
}

#[test]
fn several_values_with_comments() {
    let vs = parse_values("-- leading comment\n 1i64 [1,2] -- trailing\n\t true\n--end").unwrap();
    assert_eq!(vs.len(), 3);
    assert_eq!(vs[0], Value::Prim(PrimValue::I64(1)));
    assert_eq!(vs[2], Value::Prim(PrimValue::Bool(true)));
    assert_eq!(parse_values("  \n-- nothing\n").unwrap(), vec![]);
    assert_eq!(parse_values("1 2").unwrap().len(), 2);
}

#[test]
fn irregular_arrays() {
    let d = err("[[1, 2, 3], [4, 5]]");
    assert_eq!(d.message, "irregular array: rows of lengths 3 and 2");
    assert_eq!(&"[[1, 2, 3], [4, 5]]"[d.span.range()], "[4, 5]");
    assert_eq!(d.secondary.len(), 1);
    assert_eq!(
        err("[[[1,2],[3,4]], [[1,2]]]").message,
        "irregular array: rows of shapes [2][2] and [1][2]"
    );
    assert_eq!(err("[1, [2]]").message, "irregular array: elements of rank 0 and 1");
    assert_eq!(err("[[1,2],[3]]").message, "irregular array: rows of lengths 2 and 1");
}

#[test]
fn element_types_must_agree() {
    let d = err("[1i32, 2i64]");
    assert_eq!(d.message, "type mismatch: expected `i32`, found `i64`");
    assert_eq!(&"[1i32, 2i64]"[d.span.range()], "2i64");
    assert_eq!(err("[1.5, 2i32]").message, "type mismatch: expected `i32`, found `f64`");
    assert_eq!(err("[true, 1]").message, "type mismatch: expected `bool`, found `i32`");
    assert_eq!(err("[1f32, f64.inf]").message, "type mismatch: expected `f32`, found `f64`");
    assert_eq!(
        err("[empty([0]i32), empty([0]f32)]").message,
        "type mismatch: expected `i32`, found `f32`"
    );
    assert_eq!(err("[\"a\", [1i32]]").message, "type mismatch: expected `u8`, found `i32`");
}

#[test]
fn negative_unsigned_values_are_twos_complement() {
    assert_eq!(prim("-1u8"), PrimValue::U8(255));
    assert_eq!(prim("-271733879u32"), PrimValue::U32(4023233417));
    assert_eq!(prim("-9223372036854775808u64"), PrimValue::U64(1 << 63));
}

#[test]
fn range_errors() {
    assert_eq!(err("300u8").message, "integer literal 300 is out of range for `u8`");
    assert_eq!(
        err("-2147483649u32").message,
        "integer literal -2147483649 is out of range for `u32`"
    );
    assert_eq!(err("128i8").message, "integer literal 128 is out of range for `i8`");
    assert_eq!(err("3000000000").message, "integer literal 3000000000 is out of range for `i32`");
    assert_eq!(err("0x1FFi8").message, "integer literal 511 is out of range for `i8`");
    assert_eq!(
        err("999999999999999999999999999999999999999999").message,
        "integer literal is too large"
    );
}

#[test]
fn syntax_errors() {
    assert_eq!(err("[1, 2").message, "expected `,` or `]`, found end of input");
    assert_eq!(err("[1 2]").message, "expected `,` or `]`, found `2`");
    assert_eq!(err("]").message, "expected a value, found `]`");
    assert_eq!(err("foo").message, "expected a value, found `foo`");
    assert_eq!(err("1 , 2").message, "expected a value, found `,`");
    assert_eq!(err("- 1").message, "expected a value, found `-`");
    assert_eq!(
        err("1i33").message,
        "unknown suffix `i33` (expected a numeric type such as `i64` or `f32`)"
    );
    assert_eq!(
        err("1bool").message,
        "unknown suffix `bool` (expected a numeric type such as `i64` or `f32`)"
    );
    assert_eq!(
        err("1.").message,
        "unknown suffix `.` (expected a numeric type such as `i64` or `f32`)"
    );
    assert_eq!(err("1.5i32").message, "a decimal literal cannot have type `i32`");
    assert_eq!(err("0x").message, "expected hexadecimal digits");
    assert_eq!(err("0b102").message, "invalid binary literal");
    assert_eq!(err("-f32.nan").message, "unexpected `-f32.nan`: write `f32.nan`");
    assert_eq!(err("truest").message, "expected a value, found `truest`");
    assert_eq!(err("\"abc").message, "unterminated string literal");
    assert!(err("\"\\q\"").message.starts_with("unknown escape"));
    assert_eq!(err("é").message, "expected a value, found `é`");
}

#[test]
fn empty_array_errors() {
    assert!(err("[]").message.starts_with("empty array literal"));
    assert!(err("[[], []]").message.starts_with("empty array literal"));
    assert_eq!(
        err("empty([2][3]i32)").message,
        "`empty` array of shape [2][3] has no zero dimension"
    );
    assert_eq!(err("empty(i32)").message, "`empty` needs the array's shape, as in `empty([0]i32)`");
    assert_eq!(
        err("empty([0]x32)").message,
        "expected a primitive type such as `i32` or `f32`, found `x32`"
    );
    assert_eq!(
        err("empty([]i32)").message,
        "expected a dimension (a non-negative integer), found `]`"
    );
    assert_eq!(err("empty([0]i32").message, "expected `)`, found end of input");
    assert_eq!(err("empty [0]i32").message, "expected `(` after `empty`, found `[`");
    assert_eq!(err("empty([0]i32 ").message, "expected `)`, found end of input");
    assert_eq!(
        err("empty([99999999999999999999]i32)").message,
        "dimension `99999999999999999999` is too large"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = "[".repeat(100_000);
    assert!(err(&src).message.starts_with("array nesting too deep"));
    let ok = format!("{}1{}", "[".repeat(400), "]".repeat(400));
    assert_eq!(one(&ok).rank(), 400);
}

#[test]
fn format_scalars_like_futhark() {
    assert_eq!(show("1"), "1i32");
    assert_eq!(show("-3i8 255u8 7u64 -9i64"), "-3i8 255u8 7u64 -9i64");
    assert_eq!(show("true false"), "true false");
    assert_eq!(show("1.0f32"), "1.0f32");
    assert_eq!(show("2.5f32"), "2.5f32");
    assert_eq!(show("0.1f32"), "0.1f32");
    assert_eq!(show("0.1"), "0.1f64");
    assert_eq!(show("0.01"), "1.0e-2f64");
    assert_eq!(show("0.05f32"), "5.0e-2f32");
    assert_eq!(show("123.456"), "123.456f64");
    assert_eq!(show("100f32"), "100.0f32");
    assert_eq!(show("1234567.0"), "1234567.0f64");
    assert_eq!(show("12345678.0"), "1.2345678e7f64");
    assert_eq!(show("1e7"), "1.0e7f64");
    assert_eq!(show("1e-300"), "1.0e-300f64");
    assert_eq!(show("0f32"), "0.0f32");
    assert_eq!(show("-0.0"), "-0.0f64");
    assert_eq!(show("-1.5f32"), "-1.5f32");
    assert_eq!(show("3.4028235e38f32"), "3.4028235e38f32");
    assert_eq!(show("f32.inf -f32.inf f32.nan"), "f32.inf -f32.inf f32.nan");
    assert_eq!(show("f64.inf -f64.inf f64.nan"), "f64.inf -f64.inf f64.nan");
    assert_eq!(show("f16.inf -f16.inf f16.nan"), "f16.inf -f16.inf f16.nan");
    assert_eq!(show("1.5f16"), "1.5f16");
    // Futhark shows a half through its f32 value.
    assert_eq!(show("0.1f16"), "9.9975586e-2f16");
}

#[test]
fn format_arrays_like_futhark() {
    assert_eq!(show("[1, 2]"), "[1i32, 2i32]");
    assert_eq!(show("[[1, 2], [3, 4]]"), "[[1i32, 2i32],\n [3i32, 4i32]]");
    assert_eq!(
        show("[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"),
        "[[[1i32, 2i32],\n  [3i32, 4i32]],\n [[5i32, 6i32],\n  [7i32, 8i32]]]"
    );
    assert_eq!(show("empty([0]i32)"), "empty([0]i32)");
    assert_eq!(show("empty([2][0]f32)"), "empty([2][0]f32)");
    assert_eq!(show("[empty([0]f32), empty([0]f32)]"), "empty([2][0]f32)");
    assert_eq!(show("[true]"), "[true]");
    let v = one("[[1, 2], [3, 4]]");
    assert_eq!(format_value_line(&v), "[[1i32, 2i32], [3i32, 4i32]]");
    assert_eq!(format_type(&[2, 3], PrimType::F32), "[2][3]f32");
    assert_eq!(format_prim(PrimValue::U16(9)), "9u16");
}

// ---------------------------------------------------------------------------------------------
// Round trip: random values → format → parse → the same values.

fn same_prim(a: PrimValue, b: PrimValue) -> bool {
    match (a, b) {
        (PrimValue::F16(x), PrimValue::F16(y)) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        (PrimValue::F32(x), PrimValue::F32(y)) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        (PrimValue::F64(x), PrimValue::F64(y)) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    a.shape() == b.shape()
        && a.elem_type() == b.elem_type()
        && a.elems().len() == b.elems().len()
        && a.elems().iter().zip(b.elems()).all(|(x, y)| same_prim(*x, *y))
}

fn arb_prim(t: PrimType) -> BoxedStrategy<PrimValue> {
    use crate::prim::FloatType as F;
    match t {
        PrimType::Bool => any::<bool>().prop_map(PrimValue::Bool).boxed(),
        PrimType::Int(IntType::I8) => any::<i8>().prop_map(PrimValue::I8).boxed(),
        PrimType::Int(IntType::I16) => any::<i16>().prop_map(PrimValue::I16).boxed(),
        PrimType::Int(IntType::I32) => any::<i32>().prop_map(PrimValue::I32).boxed(),
        PrimType::Int(IntType::I64) => any::<i64>().prop_map(PrimValue::I64).boxed(),
        PrimType::Int(IntType::U8) => any::<u8>().prop_map(PrimValue::U8).boxed(),
        PrimType::Int(IntType::U16) => any::<u16>().prop_map(PrimValue::U16).boxed(),
        PrimType::Int(IntType::U32) => any::<u32>().prop_map(PrimValue::U32).boxed(),
        PrimType::Int(IntType::U64) => any::<u64>().prop_map(PrimValue::U64).boxed(),
        // Every bit pattern: normal, subnormal, zero of both signs, infinities, NaNs.
        PrimType::Float(F::F16) => {
            any::<u16>().prop_map(|b| PrimValue::F16(f16::from_bits(b))).boxed()
        }
        PrimType::Float(F::F32) => prop_oneof![any::<u32>().prop_map(f32::from_bits), any::<f32>()]
            .prop_map(PrimValue::F32)
            .boxed(),
        PrimType::Float(F::F64) => prop_oneof![any::<u64>().prop_map(f64::from_bits), any::<f64>()]
            .prop_map(PrimValue::F64)
            .boxed(),
    }
}

fn arb_value() -> impl Strategy<Value = Value> {
    let types: Vec<PrimType> = PrimType::all().collect();
    (prop::sample::select(types), prop::collection::vec(0i64..4, 0..4)).prop_flat_map(
        |(t, shape)| {
            let n = shape.iter().product::<i64>() as usize;
            prop::collection::vec(arb_prim(t), n).prop_map(move |data| {
                if shape.is_empty() {
                    Value::Prim(data[0])
                } else {
                    Value::Array(ArrayValue { elem: t, shape: shape.clone(), data })
                }
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn format_then_parse_round_trips(vs in prop::collection::vec(arb_value(), 1..4)) {
        let text: Vec<String> = vs.iter().map(format_value).collect();
        let joined = text.join("\n");
        let back = parse_values(&joined).map_err(|d| TestCaseError::fail(format!("{joined}: {}", d.message)))?;
        prop_assert_eq!(back.len(), vs.len());
        for (a, b) in vs.iter().zip(&back) {
            prop_assert!(same(a, b), "{:?} printed as {} read back as {:?}", a, format_value(a), b);
        }
        // The one-line form reads back the same too.
        let line: Vec<String> = vs.iter().map(format_value_line).collect();
        let back = parse_values(&line.join(" ")).map_err(|d| TestCaseError::fail(d.message))?;
        prop_assert!(vs.iter().zip(&back).all(|(a, b)| same(a, b)));
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(s in "[\\[\\]\\-0-9a-z_.,\" ()xefi]{0,40}") {
        let _ = parse_values(&s);
    }
}
