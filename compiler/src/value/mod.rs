//! Run-time values as the outside world sees them: scalars and regular arrays of scalars, and
//! Futhark's textual value format (`text`) for reading arguments and printing results.

pub mod packed;
pub mod text;

use crate::prim::{PrimType, PrimValue};

/// A regular, row-major array of primitives.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayValue {
    pub elem: PrimType,
    pub shape: Vec<i64>,
    /// `shape.iter().product()` elements, all of type `elem`.
    pub data: Vec<PrimValue>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Prim(PrimValue),
    Array(ArrayValue),
}

impl ArrayValue {
    /// An array of `shape` filled from `data` (row-major); `None` if the sizes or types disagree.
    pub fn new(elem: PrimType, shape: Vec<i64>, data: Vec<PrimValue>) -> Option<ArrayValue> {
        let n =
            shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
        (n == data.len() && data.iter().all(|p| p.ty() == elem)).then_some(ArrayValue {
            elem,
            shape,
            data,
        })
    }
}

impl Value {
    /// The shape (`[]` for a scalar).
    pub fn shape(&self) -> &[i64] {
        match self {
            Value::Prim(_) => &[],
            Value::Array(a) => &a.shape,
        }
    }

    /// The scalars, row-major (one for a scalar).
    pub fn elems(&self) -> &[PrimValue] {
        match self {
            Value::Prim(p) => std::slice::from_ref(p),
            Value::Array(a) => &a.data,
        }
    }

    pub fn elem_type(&self) -> PrimType {
        match self {
            Value::Prim(p) => p.ty(),
            Value::Array(a) => a.elem,
        }
    }

    pub fn rank(&self) -> usize {
        match self {
            Value::Prim(_) => 0,
            Value::Array(a) => a.shape.len(),
        }
    }

    /// The value with `f64` elements rounded to `f32` (as `--f64-as-f32` computes; see
    /// [`crate::ir::demote`]); other values unchanged.
    pub fn f64_as_f32(&self) -> Value {
        let demote = |p: &PrimValue| match p {
            PrimValue::F64(x) => PrimValue::F32(*x as f32),
            p => *p,
        };
        match self {
            Value::Prim(p) => Value::Prim(demote(p)),
            Value::Array(a) if a.elem == PrimType::F64 => Value::Array(ArrayValue {
                elem: PrimType::F32,
                shape: a.shape.clone(),
                data: a.data.iter().map(demote).collect(),
            }),
            v => v.clone(),
        }
    }

    /// `[2][3]f32`-style description of the value's type (its shape and element type).
    pub fn type_string(&self) -> String {
        match self {
            Value::Prim(p) => p.ty().to_string(),
            Value::Array(a) => {
                let dims: String = a.shape.iter().map(|d| format!("[{d}]")).collect();
                format!("{dims}{}", a.elem)
            }
        }
    }
}
