//! Elements of one type in one contiguous vector: the storage of every run-time array.

use std::ops::Range;

use crate::prim::{f16, PrimType, PrimValue};

/// Elements of one type, contiguous.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// Expand `$m!(args; Bool, I8, ...)`: one arm per element type, with `Data` and `PrimValue`
/// sharing variant names.
macro_rules! each_variant {
    ($m:ident!($($args:tt)*)) => {
        $m!($($args)*; Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64)
    };
}

/// `each!(data, v => expr)`: `expr` for whichever vector `data` holds.
macro_rules! each {
    ($d:expr, $v:ident => $e:expr) => {
        each_variant!(each_arms!($d, $v, $e))
    };
}
macro_rules! each_arms {
    ($d:expr, $v:ident, $e:expr; $($V:ident),*) => {
        match $d { $(Data::$V($v) => $e,)* }
    };
}

/// `map_data!(data, v => vec)`: a new `Data` of the same type from each vector.
macro_rules! map_data {
    ($d:expr, $v:ident => $e:expr) => {
        each_variant!(map_arms!($d, $v, $e))
    };
}
macro_rules! map_arms {
    ($d:expr, $v:ident, $e:expr; $($V:ident),*) => {
        match $d { $(Data::$V($v) => Data::$V($e),)* }
    };
}

/// `pair!(a, b, x, y => expr, else other)`: `expr` when both hold the same type.
macro_rules! pair {
    ($a:expr, $b:expr, $x:ident, $y:ident => $e:expr, else $f:expr) => {
        each_variant!(pair_arms!($a, $b, $x, $y, $e, $f))
    };
}
macro_rules! pair_arms {
    ($a:expr, $b:expr, $x:ident, $y:ident, $e:expr, $f:expr; $($V:ident),*) => {
        match ($a, $b) { $((Data::$V($x), Data::$V($y)) => $e,)* _ => $f }
    };
}

macro_rules! get_arms {
    ($d:expr, $i:expr; $($V:ident),*) => {
        match $d { $(Data::$V(v) => v.get($i).map(|&x| PrimValue::$V(x)),)* }
    };
}
macro_rules! set_arms {
    ($d:expr, $i:expr, $p:expr; $($V:ident),*) => {
        match ($d, $p) {
            $((Data::$V(v), PrimValue::$V(x)) => match v.get_mut($i) {
                Some(slot) => { *slot = x; true }
                None => false,
            },)*
            _ => false,
        }
    };
}
macro_rules! push_arms {
    ($d:expr, $p:expr; $($V:ident),*) => {
        match ($d, $p) { $((Data::$V(v), PrimValue::$V(x)) => { v.push(x); true })* _ => false }
    };
}
macro_rules! filled_arms {
    ($p:expr, $n:expr; $($V:ident),*) => {
        match $p { $(PrimValue::$V(x) => Data::$V(vec![x; $n]),)* }
    };
}
macro_rules! new_arms {
    ($t:expr, $n:expr; $($V:ident),*) => {
        match PrimValue::zero($t) { $(PrimValue::$V(_) => Data::$V(Vec::with_capacity($n)),)* }
    };
}

impl Data {
    pub fn with_capacity(elem: PrimType, n: usize) -> Data {
        each_variant!(new_arms!(elem, n))
    }

    pub fn filled(p: PrimValue, n: usize) -> Data {
        each_variant!(filled_arms!(p, n))
    }

    pub fn elem(&self) -> PrimType {
        use crate::prim::{FloatType as F, IntType as I};
        match self {
            Data::Bool(_) => PrimType::Bool,
            Data::I8(_) => PrimType::Int(I::I8),
            Data::I16(_) => PrimType::Int(I::I16),
            Data::I32(_) => PrimType::Int(I::I32),
            Data::I64(_) => PrimType::Int(I::I64),
            Data::U8(_) => PrimType::Int(I::U8),
            Data::U16(_) => PrimType::Int(I::U16),
            Data::U32(_) => PrimType::Int(I::U32),
            Data::U64(_) => PrimType::Int(I::U64),
            Data::F16(_) => PrimType::Float(F::F16),
            Data::F32(_) => PrimType::Float(F::F32),
            Data::F64(_) => PrimType::Float(F::F64),
        }
    }

    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    pub fn get(&self, i: usize) -> Option<PrimValue> {
        each_variant!(get_arms!(self, i))
    }

    /// Store `p` at `i`; false if `p` has another type or `i` is outside.
    pub fn set(&mut self, i: usize, p: PrimValue) -> bool {
        each_variant!(set_arms!(self, i, p))
    }

    /// Append `p`; false if it has another type.
    pub fn push(&mut self, p: PrimValue) -> bool {
        each_variant!(push_arms!(self, p))
    }

    /// A copy of the elements in `r` (which must be inside).
    pub fn slice(&self, r: Range<usize>) -> Data {
        map_data!(self, v => v.get(r.clone()).map_or_else(Vec::new, <[_]>::to_vec))
    }

    /// The elements `times` times over.
    pub fn repeat(&self, times: usize) -> Data {
        map_data!(self, v => v.repeat(times))
    }

    /// Append `src[r]`; false on a type mismatch or a range outside `src`.
    pub fn extend_from(&mut self, src: &Data, r: Range<usize>) -> bool {
        pair!(self, src, d, s => match s.get(r) {
            Some(part) => { d.extend_from_slice(part); true }
            None => false,
        }, else false)
    }

    /// Overwrite `self[at..]` with `src[r]`; false on a type mismatch or a range outside.
    pub fn write_from(&mut self, at: usize, src: &Data, r: Range<usize>) -> bool {
        let n = r.len();
        pair!(self, src, d, s => match (d.get_mut(at..at + n), s.get(r)) {
            (Some(dst), Some(part)) => { dst.copy_from_slice(part); true }
            _ => false,
        }, else false)
    }

    /// Gather blocks of `inner` elements starting at each of `offsets`.
    pub fn gather(&self, offsets: &[usize], inner: usize) -> Option<Data> {
        fn go<T: Copy>(v: &[T], offsets: &[usize], inner: usize) -> Option<Vec<T>> {
            if inner == 1 {
                return offsets.iter().map(|&o| v.get(o).copied()).collect();
            }
            let mut out = Vec::with_capacity(offsets.len() * inner);
            for &o in offsets {
                out.extend_from_slice(v.get(o..o + inner)?);
            }
            Some(out)
        }
        Some(map_data!(self, v => go(v, offsets, inner)?))
    }

    pub fn to_prims(&self, r: Range<usize>) -> Vec<PrimValue> {
        r.filter_map(|i| self.get(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_access_refuses_other_types_and_out_of_range_positions() {
        let mut d = Data::with_capacity(PrimType::F32, 2);
        assert!(d.push(PrimValue::F32(1.0)));
        assert!(!d.push(PrimValue::F64(1.0)));
        assert!(d.set(0, PrimValue::F32(2.0)));
        assert!(!d.set(1, PrimValue::F32(2.0)));
        assert!(!d.set(0, PrimValue::I32(2)));
        assert_eq!(d.get(0), Some(PrimValue::F32(2.0)));
        assert_eq!(d.get(1), None);
        assert_eq!(d.elem(), PrimType::F32);
    }

    #[test]
    fn block_copies() {
        let src = Data::I64((0..10).collect());
        assert_eq!(src.slice(2..4), Data::I64(vec![2, 3]));
        assert_eq!(src.gather(&[8, 0, 4], 2), Some(Data::I64(vec![8, 9, 0, 1, 4, 5])));
        assert_eq!(src.gather(&[9], 2), None);
        let mut dst = Data::I64(vec![0; 4]);
        assert!(dst.write_from(1, &src, 7..10));
        assert_eq!(dst, Data::I64(vec![0, 7, 8, 9]));
        assert!(!dst.write_from(2, &src, 7..10));
        assert!(!dst.extend_from(&Data::I32(vec![1]), 0..1));
        assert!(dst.extend_from(&src, 0..1));
        assert_eq!(dst.len(), 5);
        assert_eq!(Data::filled(PrimValue::U8(3), 2).repeat(2), Data::U8(vec![3; 4]));
    }
}
