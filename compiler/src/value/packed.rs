//! Values in the byte layout that compiled code reads and writes: a scalar, or an array's shape
//! and its elements' little-endian bytes. Hosts whose data is already bytes (typed arrays in JS)
//! pass arrays to the wasm module and the GPU executor this way, without a [`Value`] built
//! element by element.

use super::{ArrayValue, Value};
use crate::prim::{f16, FloatType, IntType, PrimType, PrimValue};

/// The bytes of one element of type `t` (a `bool` is one byte).
pub fn elem_size(t: PrimType) -> usize {
    match t {
        PrimType::Bool => 1,
        PrimType::Int(i) => i.bits() as usize / 8,
        PrimType::Float(f) => f.bits() as usize / 8,
    }
}

/// A scalar, or an array's shape and its elements' little-endian bytes (a `bool` is one byte, 0
/// or 1; an `f16` its 16 bits).
#[derive(Clone, Debug, PartialEq)]
pub enum Packed {
    Prim(PrimValue),
    Array { elem: PrimType, shape: Vec<i64>, bytes: Vec<u8> },
}

impl crate::ir::ArgShape for Packed {
    fn elem_type(&self) -> PrimType {
        match self {
            Packed::Prim(p) => p.ty(),
            Packed::Array { elem, .. } => *elem,
        }
    }

    fn shape(&self) -> &[i64] {
        match self {
            Packed::Prim(_) => &[],
            Packed::Array { shape, .. } => shape,
        }
    }
}

impl From<&Value> for Packed {
    fn from(v: &Value) -> Packed {
        match v {
            Value::Prim(p) => Packed::Prim(*p),
            Value::Array(av) => {
                let mut bytes = Vec::with_capacity(av.data.len() * elem_size(av.elem));
                for p in &av.data {
                    put_scalar(*p, &mut bytes);
                }
                Packed::Array { elem: av.elem, shape: av.shape.clone(), bytes }
            }
        }
    }
}

impl Packed {
    /// The value, element by element; an error if the bytes do not hold the shape's elements.
    pub fn to_value(&self) -> Result<Value, String> {
        match self {
            Packed::Prim(p) => Ok(Value::Prim(*p)),
            Packed::Array { elem, shape, bytes } => {
                let es = elem_size(*elem);
                let n = elem_count(shape).ok_or("bad array shape")?;
                if Some(bytes.len()) != n.checked_mul(es) {
                    return Err("an array's bytes do not match its shape".into());
                }
                let data: Vec<PrimValue> = bytes
                    .chunks_exact(es)
                    .map(|c| read_scalar(*elem, c))
                    .collect::<Option<_>>()
                    .ok_or("bad array element")?;
                ArrayValue::new(*elem, shape.clone(), data)
                    .map(Value::Array)
                    .ok_or_else(|| "an array does not match its shape".into())
            }
        }
    }
}

/// The number of elements of an array of `shape`, if it is a valid one.
pub fn elem_count(shape: &[i64]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
}

/// Append one element's little-endian bytes (no allocation per element: arguments can have
/// millions).
pub fn put_scalar(p: PrimValue, out: &mut Vec<u8>) {
    match p {
        PrimValue::Bool(b) => out.push(b as u8),
        PrimValue::I8(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::I16(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::I32(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::I64(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::U8(x) => out.push(x),
        PrimValue::U16(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::U64(x) => out.extend_from_slice(&x.to_le_bytes()),
        PrimValue::F16(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        PrimValue::F32(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        PrimValue::F64(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
    }
}

/// Read one element of type `t` from `bytes` (at least `elem_size(t)` long).
pub fn read_scalar(t: PrimType, b: &[u8]) -> Option<PrimValue> {
    let a = |n: usize| b.get(..n);
    Some(match t {
        PrimType::Bool => PrimValue::Bool(*b.first()? != 0),
        PrimType::Int(IntType::I8) => PrimValue::I8(i8::from_le_bytes(a(1)?.try_into().ok()?)),
        PrimType::Int(IntType::U8) => PrimValue::U8(*b.first()?),
        PrimType::Int(IntType::I16) => PrimValue::I16(i16::from_le_bytes(a(2)?.try_into().ok()?)),
        PrimType::Int(IntType::U16) => PrimValue::U16(u16::from_le_bytes(a(2)?.try_into().ok()?)),
        PrimType::Int(IntType::I32) => PrimValue::I32(i32::from_le_bytes(a(4)?.try_into().ok()?)),
        PrimType::Int(IntType::U32) => PrimValue::U32(u32::from_le_bytes(a(4)?.try_into().ok()?)),
        PrimType::Int(IntType::I64) => PrimValue::I64(i64::from_le_bytes(a(8)?.try_into().ok()?)),
        PrimType::Int(IntType::U64) => PrimValue::U64(u64::from_le_bytes(a(8)?.try_into().ok()?)),
        PrimType::Float(FloatType::F16) => {
            PrimValue::F16(f16::from_bits(u16::from_le_bytes(a(2)?.try_into().ok()?)))
        }
        PrimType::Float(FloatType::F32) => {
            PrimValue::F32(f32::from_bits(u32::from_le_bytes(a(4)?.try_into().ok()?)))
        }
        PrimType::Float(FloatType::F64) => {
            PrimValue::F64(f64::from_bits(u64::from_le_bytes(a(8)?.try_into().ok()?)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::text::parse_values;

    #[test]
    fn packing_round_trips_every_element_type() {
        let text = "[[1.5f32, -2f32], [0f32, 3e30f32]] [true, false, true] [1.5f16, -0.25f16] \
                    [-1i8, 127i8] [65535u16] [-9223372036854775808i64] [18446744073709551615u64] \
                    [0.1f64] empty([0][3]i32) 7i32 false";
        for v in parse_values(text).unwrap() {
            let p = Packed::from(&v);
            assert_eq!(p.to_value().unwrap(), v);
        }
    }

    #[test]
    fn packed_layout_is_the_modules() {
        let v = &parse_values("[[1f32, 2f32]] [true, false]").unwrap();
        match Packed::from(&v[0]) {
            Packed::Array { shape, bytes, .. } => {
                assert_eq!(shape, vec![1, 2]);
                assert_eq!(bytes, [1f32.to_le_bytes(), 2f32.to_le_bytes()].concat());
            }
            p => panic!("{p:?}"),
        }
        assert!(matches!(Packed::from(&v[1]), Packed::Array { bytes, .. } if bytes == [1, 0]));
    }

    #[test]
    fn bytes_that_do_not_hold_the_shape_are_an_error() {
        let f32 = PrimType::Float(FloatType::F32);
        let short = Packed::Array { elem: f32, shape: vec![2, 2], bytes: vec![0; 12] };
        assert!(short.to_value().unwrap_err().contains("do not match"));
        let negative = Packed::Array { elem: f32, shape: vec![-1], bytes: vec![] };
        assert!(negative.to_value().is_err());
    }
}
