//! Arguments given as JavaScript values (numbers, BigInts, booleans, typed arrays with shapes)
//! turned into the compiler's values, typed by the entry point's parameters. Pure Rust: the
//! wasm-bindgen layer copies each typed array out in one piece ([`Data`]) and this module does
//! the rest, so it is tested natively.

use ogham::ir::EntryType;
use ogham::prim::{f16, FloatType, IntType, PrimType, PrimValue};
use ogham::value::{ArrayValue, Value};
use ogham_runtime::abi::Packed;

/// The elements of one typed array (or of a plain array of numbers, as `F64`), in its own type.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// A scalar as JavaScript has it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Number(f64),
    /// A BigInt that fits in 64 bits (signed or unsigned).
    BigInt(i128),
    Bool(bool),
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::I8(v) => v.len(),
            Data::I16(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::U8(v) => v.len(),
            Data::U16(v) => v.len(),
            Data::U32(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
        }
    }

    /// The element type these values have without other information.
    fn natural(&self) -> PrimType {
        use FloatType as F;
        use IntType as I;
        match self {
            Data::I8(_) => PrimType::Int(I::I8),
            Data::I16(_) => PrimType::Int(I::I16),
            Data::I32(_) => PrimType::Int(I::I32),
            Data::I64(_) => PrimType::Int(I::I64),
            Data::U8(_) => PrimType::Int(I::U8),
            Data::U16(_) => PrimType::Int(I::U16),
            Data::U32(_) => PrimType::Int(I::U32),
            Data::U64(_) => PrimType::Int(I::U64),
            Data::F32(_) => PrimType::Float(F::F32),
            Data::F64(_) => PrimType::Float(F::F64),
        }
    }
}

fn int_range(t: IntType) -> (i128, i128) {
    let bits = t.bits();
    if t.signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// One element converted to `t`: floats take any number (rounded to the type), integers only
/// integral values in their range, bools only 0 and 1 (a `Uint8Array` of flags).
fn convert_int(x: i128, t: PrimType) -> Result<PrimValue, String> {
    match t {
        PrimType::Float(f) => Ok(PrimValue::float(f, x as f64)),
        PrimType::Int(i) => {
            let (lo, hi) = int_range(i);
            if x < lo || x > hi {
                return Err(format!("{x} does not fit in `{}`", i.name()));
            }
            Ok(PrimValue::int(i, x))
        }
        PrimType::Bool => match x {
            0 => Ok(PrimValue::Bool(false)),
            1 => Ok(PrimValue::Bool(true)),
            _ => Err(format!("{x} is not a `bool` (0 or 1)")),
        },
    }
}

fn convert_float(x: f64, t: PrimType) -> Result<PrimValue, String> {
    match t {
        PrimType::Float(FloatType::F32) => Ok(PrimValue::F32(x as f32)),
        PrimType::Float(f) => Ok(PrimValue::float(f, x)),
        PrimType::Int(i) => {
            // Every integer up to 2^64 in magnitude converts exactly to i128.
            if x.fract() != 0.0 || !x.is_finite() || x.abs() > 1.9e19 {
                return Err(format!("{x} is not an integer of type `{}`", i.name()));
            }
            convert_int(x as i128, t)
        }
        PrimType::Bool => Err(format!("{x} is not a `bool`")),
    }
}

/// The element type an argument becomes: the one named with the data, else the parameter's, else
/// the data's own.
pub fn target(
    declared: Option<PrimType>,
    param: Option<&EntryType>,
    natural: PrimType,
) -> PrimType {
    declared.or(param.map(|p| p.elem)).unwrap_or(natural)
}

/// A scalar argument for `param` (none when there are more arguments than parameters: the
/// count check reports that).
pub fn scalar(x: Scalar, param: Option<&EntryType>) -> Result<Value, String> {
    let p = match x {
        Scalar::Number(v) => {
            convert_float(v, target(None, param, PrimType::Float(FloatType::F64)))?
        }
        Scalar::BigInt(v) => convert_int(v, target(None, param, PrimType::Int(IntType::I64)))?,
        Scalar::Bool(b) => PrimValue::Bool(b),
    };
    Ok(Value::Prim(p))
}

/// An array argument: `data` (row-major) with `shape` (default: one dimension of its length),
/// converted element by element to its declared type, the parameter's element type, or its own.
pub fn array(
    data: Data,
    shape: Option<Vec<i64>>,
    declared: Option<PrimType>,
    param: Option<&EntryType>,
) -> Result<Value, String> {
    let n = data.len();
    let shape = shape.unwrap_or_else(|| vec![n as i64]);
    check_shape(&shape, n)?;
    let t = target(declared, param, data.natural());
    // The common case, data already of the element type, is a plain copy.
    let elems: Result<Vec<PrimValue>, String> = match (data, t) {
        (Data::F32(v), PrimType::Float(FloatType::F32)) => {
            Ok(v.into_iter().map(PrimValue::F32).collect())
        }
        (Data::F32(v), PrimType::Float(FloatType::F16)) => {
            Ok(v.into_iter().map(|x| PrimValue::F16(f16::from_f32(x))).collect())
        }
        (Data::F64(v), PrimType::Float(FloatType::F64)) => {
            Ok(v.into_iter().map(PrimValue::F64).collect())
        }
        (Data::I32(v), PrimType::Int(IntType::I32)) => {
            Ok(v.into_iter().map(PrimValue::I32).collect())
        }
        (Data::I64(v), PrimType::Int(IntType::I64)) => {
            Ok(v.into_iter().map(PrimValue::I64).collect())
        }
        (Data::F32(v), t) => v.into_iter().map(|x| convert_float(x as f64, t)).collect(),
        (Data::F64(v), t) => v.into_iter().map(|x| convert_float(x, t)).collect(),
        (Data::I8(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::I16(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::I32(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::I64(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::U8(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::U16(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::U32(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
        (Data::U64(v), t) => v.into_iter().map(|x| convert_int(x as i128, t)).collect(),
    };
    let elems = elems?;
    ArrayValue::new(t, shape, elems)
        .map(Value::Array)
        .ok_or_else(|| "the array's elements do not match its type".to_string())
}

/// An array argument that needs no conversion: `bytes` hold `count` elements of `natural` (a typed
/// array's own type), which is also the type the argument becomes. Its bytes go to the module as
/// they are. `None` when the types differ: [`array`] converts element by element then.
pub fn packed_array(
    natural: PrimType,
    count: usize,
    bytes: Vec<u8>,
    shape: Option<Vec<i64>>,
    declared: Option<PrimType>,
    param: Option<&EntryType>,
) -> Result<Option<Packed>, String> {
    if target(declared, param, natural) != natural {
        return Ok(None);
    }
    let shape = shape.unwrap_or_else(|| vec![count as i64]);
    check_shape(&shape, count)?;
    Ok(Some(Packed::Array { elem: natural, shape, bytes }))
}

fn check_shape(shape: &[i64], n: usize) -> Result<(), String> {
    let want = shape.iter().try_fold(1i64, |acc, &d| if d < 0 { None } else { acc.checked_mul(d) });
    if want != Some(n as i64) {
        let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
        return Err(format!("the shape {dims} does not hold the {n} elements given"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ogham::value::text::format_value_line;

    fn param(elem: &str, rank: usize) -> EntryType {
        EntryType {
            elem: PrimType::from_name(elem).unwrap(),
            rank,
            unique: false,
            display: format!("{}{elem}", "[]".repeat(rank)),
        }
    }

    fn show(v: Result<Value, String>) -> String {
        match v {
            Ok(v) => format_value_line(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn typed_arrays_take_their_shape_and_the_parameters_type() {
        let m = array(Data::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), Some(vec![2, 3]), None, None);
        assert_eq!(show(m), "[[1.0f32, 2.0f32, 3.0f32], [4.0f32, 5.0f32, 6.0f32]]");
        let v = array(Data::I32(vec![1, 2]), None, None, Some(&param("i64", 1)));
        assert_eq!(show(v), "[1i64, 2i64]");
        let f = array(Data::F64(vec![0.5]), None, None, Some(&param("f32", 1)));
        assert_eq!(show(f), "[0.5f32]");
        let h = array(Data::F32(vec![1.5]), None, None, Some(&param("f16", 1)));
        assert_eq!(show(h), "[1.5f16]");
        let b = array(Data::U8(vec![1, 0]), None, None, Some(&param("bool", 1)));
        assert_eq!(show(b), "[true, false]");
        let declared = array(Data::U8(vec![0, 1]), None, PrimType::from_name("bool"), None);
        assert_eq!(show(declared), "[false, true]");
        let empty = array(Data::F32(vec![]), Some(vec![0, 3]), None, None);
        assert_eq!(show(empty), "empty([0][3]f32)");
    }

    #[test]
    fn lossy_conversions_and_bad_shapes_are_errors() {
        let frac = array(Data::F32(vec![1.5]), None, None, Some(&param("i32", 1)));
        assert_eq!(show(frac), "error: 1.5 is not an integer of type `i32`");
        let wide = array(Data::I32(vec![300]), None, None, Some(&param("u8", 1)));
        assert_eq!(show(wide), "error: 300 does not fit in `u8`");
        let neg = array(Data::I64(vec![-1]), None, None, Some(&param("u64", 1)));
        assert_eq!(show(neg), "error: -1 does not fit in `u64`");
        let flag = array(Data::U8(vec![2]), None, None, Some(&param("bool", 1)));
        assert_eq!(show(flag), "error: 2 is not a `bool` (0 or 1)");
        let shape = array(Data::F32(vec![1.0; 5]), Some(vec![2, 3]), None, None);
        assert_eq!(show(shape), "error: the shape [2][3] does not hold the 5 elements given");
    }

    #[test]
    fn arrays_of_the_parameters_type_pass_as_bytes() {
        let f32 = PrimType::from_name("f32").unwrap();
        let bytes: Vec<u8> = [1f32, 2.0, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let p = packed_array(f32, 4, bytes.clone(), Some(vec![2, 2]), None, Some(&param("f32", 2)));
        let expected = Packed::Array { elem: f32, shape: vec![2, 2], bytes: bytes.clone() };
        assert_eq!(p, Ok(Some(expected)));
        let v = packed_array(f32, 4, bytes.clone(), None, None, None).unwrap().unwrap();
        assert_eq!(format_value_line(&v.to_value().unwrap()), "[1.0f32, 2.0f32, 3.0f32, 4.0f32]");
        // Another element type, declared or the parameter's, is converted by `array` instead.
        assert_eq!(
            packed_array(f32, 4, bytes.clone(), None, None, Some(&param("f64", 1))),
            Ok(None)
        );
        let u8 = PrimType::from_name("u8").unwrap();
        assert_eq!(packed_array(u8, 2, vec![1, 0], None, None, Some(&param("bool", 1))), Ok(None));
        let bad = packed_array(f32, 4, bytes, Some(vec![3]), None, None);
        assert_eq!(bad, Err("the shape [3] does not hold the 4 elements given".into()));
    }

    #[test]
    fn scalars_take_the_parameters_type() {
        assert_eq!(show(scalar(Scalar::Number(2.0), Some(&param("f32", 0)))), "2.0f32");
        assert_eq!(show(scalar(Scalar::Number(7.0), Some(&param("i64", 0)))), "7i64");
        assert_eq!(show(scalar(Scalar::BigInt(-3), Some(&param("i8", 0)))), "-3i8");
        assert_eq!(
            show(scalar(Scalar::BigInt(1 << 40), Some(&param("f64", 0)))),
            "1.099511627776e12f64"
        );
        assert_eq!(show(scalar(Scalar::Bool(true), Some(&param("bool", 0)))), "true");
        assert_eq!(show(scalar(Scalar::Number(0.5), None)), "0.5f64");
        assert_eq!(
            show(scalar(Scalar::Number(2.5), Some(&param("i64", 0)))),
            "error: 2.5 is not an integer of type `i64`"
        );
        let big = Scalar::BigInt(u64::MAX as i128);
        assert_eq!(show(scalar(big, Some(&param("u64", 0)))), "18446744073709551615u64");
        assert_eq!(
            show(scalar(big, Some(&param("i64", 0)))),
            "error: 18446744073709551615 does not fit in `i64`"
        );
    }
}
