//! Primitive (scalar) types and values, shared by every stage.
//!
//! The arithmetic semantics of these values (wrapping integers, flooring `/`, IEEE floats) live in
//! `interp::prim_ops`; this module is only the vocabulary.

use std::fmt;

pub use half::f16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatType {
    F16,
    F32,
    F64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrimType {
    Bool,
    Int(IntType),
    Float(FloatType),
}

impl IntType {
    pub const ALL: [IntType; 8] = [
        IntType::I8,
        IntType::I16,
        IntType::I32,
        IntType::I64,
        IntType::U8,
        IntType::U16,
        IntType::U32,
        IntType::U64,
    ];

    pub fn signed(self) -> bool {
        matches!(self, IntType::I8 | IntType::I16 | IntType::I32 | IntType::I64)
    }

    pub fn bits(self) -> u32 {
        match self {
            IntType::I8 | IntType::U8 => 8,
            IntType::I16 | IntType::U16 => 16,
            IntType::I32 | IntType::U32 => 32,
            IntType::I64 | IntType::U64 => 64,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IntType::I8 => "i8",
            IntType::I16 => "i16",
            IntType::I32 => "i32",
            IntType::I64 => "i64",
            IntType::U8 => "u8",
            IntType::U16 => "u16",
            IntType::U32 => "u32",
            IntType::U64 => "u64",
        }
    }
}

impl FloatType {
    pub const ALL: [FloatType; 3] = [FloatType::F16, FloatType::F32, FloatType::F64];

    pub fn bits(self) -> u32 {
        match self {
            FloatType::F16 => 16,
            FloatType::F32 => 32,
            FloatType::F64 => 64,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FloatType::F16 => "f16",
            FloatType::F32 => "f32",
            FloatType::F64 => "f64",
        }
    }
}

impl PrimType {
    pub const I32: PrimType = PrimType::Int(IntType::I32);
    pub const I64: PrimType = PrimType::Int(IntType::I64);
    pub const F32: PrimType = PrimType::Float(FloatType::F32);
    pub const F64: PrimType = PrimType::Float(FloatType::F64);

    /// Every primitive type, in the order Futhark's documentation lists them.
    pub fn all() -> impl Iterator<Item = PrimType> {
        std::iter::once(PrimType::Bool)
            .chain(IntType::ALL.into_iter().map(PrimType::Int))
            .chain(FloatType::ALL.into_iter().map(PrimType::Float))
    }

    pub fn name(self) -> &'static str {
        match self {
            PrimType::Bool => "bool",
            PrimType::Int(t) => t.name(),
            PrimType::Float(t) => t.name(),
        }
    }

    pub fn from_name(s: &str) -> Option<PrimType> {
        PrimType::all().find(|t| t.name() == s)
    }

    pub fn is_numeric(self) -> bool {
        !matches!(self, PrimType::Bool)
    }
}

impl fmt::Display for PrimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scalar value. Floats compare bitwise-insensitively through `PartialEq` (NaN != NaN), as in IEEE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrimValue {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    F32(f32),
    F64(f64),
}

impl PrimValue {
    pub fn ty(self) -> PrimType {
        use FloatType as F;
        use IntType as I;
        match self {
            PrimValue::Bool(_) => PrimType::Bool,
            PrimValue::I8(_) => PrimType::Int(I::I8),
            PrimValue::I16(_) => PrimType::Int(I::I16),
            PrimValue::I32(_) => PrimType::Int(I::I32),
            PrimValue::I64(_) => PrimType::Int(I::I64),
            PrimValue::U8(_) => PrimType::Int(I::U8),
            PrimValue::U16(_) => PrimType::Int(I::U16),
            PrimValue::U32(_) => PrimType::Int(I::U32),
            PrimValue::U64(_) => PrimType::Int(I::U64),
            PrimValue::F16(_) => PrimType::Float(F::F16),
            PrimValue::F32(_) => PrimType::Float(F::F32),
            PrimValue::F64(_) => PrimType::Float(F::F64),
        }
    }

    /// An integer of type `t` from a mathematical integer, wrapping modulo 2^bits.
    pub fn int(t: IntType, v: i128) -> PrimValue {
        match t {
            IntType::I8 => PrimValue::I8(v as i8),
            IntType::I16 => PrimValue::I16(v as i16),
            IntType::I32 => PrimValue::I32(v as i32),
            IntType::I64 => PrimValue::I64(v as i64),
            IntType::U8 => PrimValue::U8(v as u8),
            IntType::U16 => PrimValue::U16(v as u16),
            IntType::U32 => PrimValue::U32(v as u32),
            IntType::U64 => PrimValue::U64(v as u64),
        }
    }

    pub fn float(t: FloatType, v: f64) -> PrimValue {
        match t {
            FloatType::F16 => PrimValue::F16(f16::from_f64(v)),
            FloatType::F32 => PrimValue::F32(v as f32),
            FloatType::F64 => PrimValue::F64(v),
        }
    }

    /// The number one of a numeric type (`true` for `bool`).
    pub fn one(t: PrimType) -> PrimValue {
        match t {
            PrimType::Int(it) => PrimValue::int(it, 1),
            PrimType::Float(ft) => PrimValue::float(ft, 1.0),
            PrimType::Bool => PrimValue::Bool(true),
        }
    }

    /// The zero (or `false`) of a type.
    pub fn zero(t: PrimType) -> PrimValue {
        match t {
            PrimType::Bool => PrimValue::Bool(false),
            PrimType::Int(t) => PrimValue::int(t, 0),
            PrimType::Float(t) => PrimValue::float(t, 0.0),
        }
    }

    /// The value as a mathematical integer, if it is an integer.
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            PrimValue::I8(v) => v as i128,
            PrimValue::I16(v) => v as i128,
            PrimValue::I32(v) => v as i128,
            PrimValue::I64(v) => v as i128,
            PrimValue::U8(v) => v as i128,
            PrimValue::U16(v) => v as i128,
            PrimValue::U32(v) => v as i128,
            PrimValue::U64(v) => v as i128,
            _ => return None,
        })
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            PrimValue::F16(v) => Some(v.to_f64()),
            PrimValue::F32(v) => Some(v as f64),
            PrimValue::F64(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_bool(self) -> Option<bool> {
        match self {
            PrimValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_i64(self) -> Option<i64> {
        match self {
            PrimValue::I64(v) => Some(v),
            _ => None,
        }
    }
}
