//! Run-time values: scalars and arrays. An array is a shape and a view (offset) into one flat,
//! row-major buffer typed by element (a `Vec<f32>`, not boxed scalars). Buffers are shared by
//! reference counting: taking a row or reshaping is O(1), and a write copies the buffer only when
//! someone else still holds it (copy-on-write), so an update of an array nobody else uses happens
//! in place.
//!
//! Every allocation is counted by a [`Meter`], which refuses to let the live elements exceed a
//! limit, so a program cannot exhaust the host's memory.

use std::cell::Cell;
use std::ops::Range;
use std::rc::Rc;

pub(crate) use super::data::Data;
use crate::prim::{IntType, PrimType, PrimValue};
use crate::value::ArrayValue;

/// Counts live elements against a limit.
#[derive(Debug)]
pub(crate) struct Meter {
    live: Cell<u64>,
    limit: u64,
}

impl Meter {
    pub fn new(limit: u64) -> Rc<Meter> {
        Rc::new(Meter { live: Cell::new(0), limit })
    }

    #[cfg(test)]
    pub fn live(&self) -> u64 {
        self.live.get()
    }
}

/// A reservation of elements, released when dropped (with the buffer that holds it).
#[derive(Debug)]
pub(crate) struct Ticket {
    meter: Rc<Meter>,
    n: u64,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.meter.live.set(self.meter.live.get().saturating_sub(self.n));
    }
}

/// `[3][4]`-style text for a shape.
pub(crate) fn shape_str(shape: &[i64]) -> String {
    if shape.is_empty() {
        return "[]".to_string();
    }
    shape.iter().map(|d| format!("[{d}]")).collect()
}

/// Reserve room for an array of `shape`: sizes must be non-negative and the live total must stay
/// within the meter's limit. Returns the ticket and the element count.
pub(crate) fn reserve(meter: &Rc<Meter>, shape: &[i64]) -> Result<(Ticket, usize), String> {
    if shape.iter().any(|&d| d < 0) {
        return Err(format!("negative size: cannot create an array of shape {}", shape_str(shape)));
    }
    let n = shape.iter().fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
    let fits = u64::try_from(n)
        .ok()
        .filter(|&n| n <= meter.limit.saturating_sub(meter.live.get()))
        .and_then(|n| usize::try_from(n).ok().map(|u| (n, u)));
    match fits {
        Some((n64, n)) => {
            meter.live.set(meter.live.get() + n64);
            Ok((Ticket { meter: meter.clone(), n: n64 }, n))
        }
        None => Err(format!(
            "out of memory: allocating an array of shape {} ({n} elements) exceeds the \
             interpreter's limit of {} live elements",
            shape_str(shape),
            meter.limit
        )),
    }
}

#[derive(Debug)]
struct Buffer {
    data: Data,
    _ticket: Ticket,
}

/// An array: `shape` over `n` elements of `buf` starting at `off`.
#[derive(Clone, Debug)]
pub(crate) struct Array {
    shape: Vec<i64>,
    n: usize,
    off: usize,
    buf: Rc<Buffer>,
}

/// A run-time value.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Prim(PrimValue),
    Arr(Array),
}

impl Val {
    pub fn shape(&self) -> &[i64] {
        match self {
            Val::Prim(_) => &[],
            Val::Arr(a) => &a.shape,
        }
    }

    pub fn elem(&self) -> PrimType {
        match self {
            Val::Prim(p) => p.ty(),
            Val::Arr(a) => a.elem(),
        }
    }

    /// `[3][4]f32`-style description of the value's type.
    pub fn type_str(&self) -> String {
        match self {
            Val::Prim(p) => p.ty().to_string(),
            Val::Arr(a) => format!("{}{}", shape_str(&a.shape), a.elem()),
        }
    }
}

/// One position of an index: a fixed index or a slice of `len` elements from `start` by `stride`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Ix {
    Fix(i64),
    Slice { start: i64, len: i64, stride: i64 },
}

/// `[2, 1:7:2]`: an index as Futhark writes it (a slice as `start:end:stride`).
pub(crate) fn index_str(idx: &[Ix]) -> String {
    let parts: Vec<String> = idx
        .iter()
        .map(|ix| match *ix {
            Ix::Fix(i) => i.to_string(),
            Ix::Slice { start, len, stride } => {
                let end = (start as i128) + (len as i128) * (stride as i128);
                format!("{start}:{end}:{stride}")
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Check `idx` against `shape`: every fixed index inside its dimension, every non-empty slice's
/// first and last element inside (an empty slice is always allowed), no negative slice length.
pub(crate) fn check_index(shape: &[i64], idx: &[Ix]) -> Result<(), String> {
    let oob = || {
        format!("index {} out of bounds for array of shape {}", index_str(idx), shape_str(shape))
    };
    if idx.len() > shape.len() {
        return Err(format!(
            "internal error: index {} has more positions than the array of shape {} has dimensions",
            index_str(idx),
            shape_str(shape)
        ));
    }
    for (ix, &d) in idx.iter().zip(shape) {
        let ok = match *ix {
            Ix::Fix(i) => 0 <= i && i < d,
            Ix::Slice { start, len, stride } => {
                let last = start as i128 + (len as i128 - 1) * stride as i128;
                len == 0 || (len > 0 && 0 <= start && start < d && 0 <= last && last < d as i128)
            }
        };
        if !ok {
            return Err(oob());
        }
    }
    Ok(())
}

/// Row-major strides of `shape` (in elements).
fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1] as usize;
    }
    s
}

/// The starting offsets (relative to the array's first element) of the contiguous blocks an
/// index selects, in row-major order of the result; each block has the size of the dimensions
/// after the indexed ones. `idx` must have been checked.
fn block_offsets(shape: &[i64], idx: &[Ix]) -> Vec<usize> {
    let st = strides(shape);
    // Per indexed position: first coordinate, count, step.
    let axes: Vec<(i64, i64, i64)> = idx
        .iter()
        .map(|ix| match *ix {
            Ix::Fix(i) => (i, 1, 0),
            Ix::Slice { start, len, stride } => (start, len, stride),
        })
        .collect();
    if axes.iter().any(|a| a.1 == 0) {
        return Vec::new();
    }
    let total: usize = axes.iter().map(|a| a.1 as usize).product();
    let mut out = Vec::with_capacity(total);
    let mut counter = vec![0i64; axes.len()];
    loop {
        let off: i64 = axes
            .iter()
            .zip(&counter)
            .zip(&st)
            .map(|((a, &c), &s)| (a.0 + c * a.2) * s as i64)
            .sum();
        out.push(off as usize);
        // Advance the odometer, last position fastest.
        let mut k = axes.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            counter[k] += 1;
            if counter[k] < axes[k].1 {
                break;
            }
            counter[k] = 0;
        }
    }
}

impl Array {
    /// An array of `shape` over `data`, which holds exactly its elements.
    pub fn new(ticket: Ticket, data: Data, shape: Vec<i64>) -> Array {
        let n = data.len();
        Array { shape, n, off: 0, buf: Rc::new(Buffer { data, _ticket: ticket }) }
    }

    /// An array filled by `fill`, which must push exactly the shape's element count.
    pub fn build(
        meter: &Rc<Meter>,
        elem: PrimType,
        shape: Vec<i64>,
        fill: impl FnOnce(&mut Data, usize),
    ) -> Result<Array, String> {
        let (ticket, n) = reserve(meter, &shape)?;
        let mut data = Data::with_capacity(elem, n);
        fill(&mut data, n);
        if data.len() != n || data.elem() != elem {
            return Err("internal error: array construction produced the wrong elements".into());
        }
        Ok(Array::new(ticket, data, shape))
    }

    pub fn elem(&self) -> PrimType {
        self.buf.data.elem()
    }

    pub fn shape(&self) -> &[i64] {
        &self.shape
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// The outer size.
    pub fn outer(&self) -> i64 {
        self.shape.first().copied().unwrap_or(0)
    }

    /// The buffer and the range of this array's elements in it.
    pub fn data(&self) -> (&Data, Range<usize>) {
        (&self.buf.data, self.off..self.off + self.n)
    }

    /// Element `i` in row-major order.
    pub fn get(&self, i: usize) -> Option<PrimValue> {
        if i < self.n {
            self.buf.data.get(self.off + i)
        } else {
            None
        }
    }

    /// Every element, boxed (for the outside world).
    pub fn to_value(&self) -> ArrayValue {
        ArrayValue {
            elem: self.elem(),
            shape: self.shape.clone(),
            data: self.buf.data.to_prims(self.off..self.off + self.n),
        }
    }

    pub fn from_value(meter: &Rc<Meter>, v: &ArrayValue) -> Result<Array, String> {
        let (ticket, n) = reserve(meter, &v.shape)?;
        if n != v.data.len() {
            return Err(format!(
                "an array of shape {} needs {n} elements, but {} were given",
                shape_str(&v.shape),
                v.data.len()
            ));
        }
        let mut data = Data::with_capacity(v.elem, n);
        for p in &v.data {
            if !data.push(*p) {
                return Err(format!("array of {} contains a value of type {}", v.elem, p.ty()));
            }
        }
        Ok(Array::new(ticket, data, v.shape.clone()))
    }

    /// Row `j` of the outer dimension (a scalar for a one-dimensional array); `j` must be inside.
    pub fn row(&self, j: usize) -> Option<Val> {
        let inner_shape = self.shape.get(1..)?;
        if inner_shape.is_empty() {
            return self.get(j).map(Val::Prim);
        }
        let inner: usize = inner_shape.iter().map(|&d| d as usize).product();
        if j >= self.outer() as usize {
            return None;
        }
        Some(Val::Arr(Array {
            shape: inner_shape.to_vec(),
            n: inner,
            off: self.off + j * inner,
            buf: self.buf.clone(),
        }))
    }

    /// The same elements with another shape (the element counts must agree).
    pub fn reshape(&self, shape: Vec<i64>) -> Result<Array, String> {
        let n =
            shape.iter().try_fold(1u128, |acc, &d| (d >= 0).then(|| acc.saturating_mul(d as u128)));
        if n != Some(self.n as u128) {
            return Err(format!(
                "size mismatch: cannot reshape an array of shape {} to {}",
                shape_str(&self.shape),
                shape_str(&shape)
            ));
        }
        Ok(Array { shape, n: self.n, off: self.off, buf: self.buf.clone() })
    }

    pub fn shares_buffer(&self, other: &Array) -> bool {
        Rc::ptr_eq(&self.buf, &other.buf)
    }

    /// A copy of the elements in a buffer of their own.
    pub fn materialize(&self, meter: &Rc<Meter>) -> Result<Array, String> {
        let (ticket, _) = reserve(meter, &self.shape)?;
        let data = self.buf.data.slice(self.off..self.off + self.n);
        Ok(Array::new(ticket, data, self.shape.clone()))
    }

    /// The elements, writable: in place when nobody else holds the buffer, else on a fresh copy.
    pub fn make_mut(&mut self, meter: &Rc<Meter>) -> Result<(&mut Data, usize), String> {
        if Rc::get_mut(&mut self.buf).is_none() {
            let (ticket, _) = reserve(meter, &self.shape)?;
            let data = self.buf.data.slice(self.off..self.off + self.n);
            *self = Array::new(ticket, data, std::mem::take(&mut self.shape));
        }
        let off = self.off;
        match Rc::get_mut(&mut self.buf) {
            Some(b) => Ok((&mut b.data, off)),
            None => Err("internal error: a fresh buffer is shared".into()),
        }
    }

    /// `self[idx]`: a scalar for a full index, a view when the selected elements are contiguous,
    /// else a copy; an out-of-bounds index is an error.
    pub fn index(&self, meter: &Rc<Meter>, idx: &[Ix]) -> Result<Val, String> {
        check_index(&self.shape, idx)?;
        let st = strides(&self.shape);
        if idx.len() == self.shape.len() && idx.iter().all(|ix| matches!(ix, Ix::Fix(_))) {
            let off: usize = idx
                .iter()
                .zip(&st)
                .map(|(ix, s)| if let Ix::Fix(i) = ix { *i as usize * s } else { 0 })
                .sum();
            return self.get(off).map(Val::Prim).ok_or_else(|| "internal error: index".into());
        }
        let mut shape: Vec<i64> = idx
            .iter()
            .filter_map(|ix| if let Ix::Slice { len, .. } = ix { Some(*len) } else { None })
            .collect();
        shape.extend_from_slice(self.shape.get(idx.len()..).unwrap_or(&[]));
        // Fixed indices, then at most one slice with unit stride, select a contiguous range.
        let slices = idx.iter().position(|ix| matches!(ix, Ix::Slice { .. }));
        let contiguous = match slices {
            None => true,
            Some(k) => {
                k + 1 == idx.len()
                    && matches!(idx[k], Ix::Slice { stride, len, .. } if stride == 1 || len <= 1)
            }
        };
        if contiguous {
            let off: usize = idx
                .iter()
                .zip(&st)
                .map(|(ix, s)| match *ix {
                    Ix::Fix(i) => i as usize * s,
                    Ix::Slice { start, len, .. } if len > 0 => start as usize * s,
                    Ix::Slice { .. } => 0,
                })
                .sum();
            let n = shape.iter().map(|&d| d as usize).product();
            return Ok(Val::Arr(Array { shape, n, off: self.off + off, buf: self.buf.clone() }));
        }
        let inner: usize =
            self.shape.get(idx.len()..).unwrap_or(&[]).iter().map(|&d| d as usize).product();
        let offsets: Vec<usize> =
            block_offsets(&self.shape, idx).into_iter().map(|o| o + self.off).collect();
        let (ticket, _) = reserve(meter, &shape)?;
        let data = self
            .buf
            .data
            .gather(&offsets, inner)
            .ok_or_else(|| "internal error: slice outside its buffer".to_string())?;
        Ok(Val::Arr(Array::new(ticket, data, shape)))
    }

    /// Replace `self[idx]` by `value`, whose shape must be that of `self[idx]`; an out-of-bounds
    /// index is an error.
    pub fn update(&mut self, meter: &Rc<Meter>, idx: &[Ix], value: &Val) -> Result<(), String> {
        check_index(&self.shape, idx)?;
        let mut region: Vec<i64> = idx
            .iter()
            .filter_map(|ix| if let Ix::Slice { len, .. } = ix { Some(*len) } else { None })
            .collect();
        region.extend_from_slice(self.shape.get(idx.len()..).unwrap_or(&[]));
        if region != value.shape() {
            return Err(format!(
                "size mismatch: cannot write a value of shape {} to {} of shape {}",
                shape_str(value.shape()),
                if idx.iter().any(|ix| matches!(ix, Ix::Slice { .. })) {
                    "a slice"
                } else {
                    "a row"
                },
                shape_str(&region)
            ));
        }
        if value.elem() != self.elem() {
            return Err(format!(
                "internal error: cannot write a {} into an array of {}",
                value.elem(),
                self.elem()
            ));
        }
        let inner: usize =
            self.shape.get(idx.len()..).unwrap_or(&[]).iter().map(|&d| d as usize).product();
        let offsets = block_offsets(&self.shape, idx);
        let (data, base) = self.make_mut(meter)?;
        let ok = match value {
            Val::Prim(p) => offsets.first().is_some_and(|&o| data.set(base + o, *p)),
            Val::Arr(src) => {
                let (sdata, srange) = src.data();
                offsets.iter().enumerate().all(|(k, &o)| {
                    let from = srange.start + k * inner;
                    data.write_from(base + o, sdata, from..from + inner)
                })
            }
        };
        if ok {
            Ok(())
        } else {
            Err("internal error: update outside its buffer".into())
        }
    }

    /// Permute the dimensions: result dimension `i` is dimension `perm[i]`.
    pub fn rearrange(&self, meter: &Rc<Meter>, perm: &[usize]) -> Result<Array, String> {
        let rank = self.shape.len();
        let mut seen = vec![false; rank];
        for &p in perm {
            match seen.get_mut(p) {
                Some(s) if !*s => *s = true,
                _ => return Err(format!("internal error: {perm:?} is not a permutation")),
            }
        }
        if perm.len() != rank {
            return Err(format!("internal error: {perm:?} is not a permutation of {rank} dims"));
        }
        let shape: Vec<i64> = perm.iter().map(|&p| self.shape[p]).collect();
        let st = strides(&self.shape);
        let pst: Vec<usize> = perm.iter().map(|&p| st[p]).collect();
        // Offsets of the result's elements, walking the result in row-major order.
        let mut offsets = Vec::with_capacity(self.n);
        if self.n > 0 {
            let mut counter = vec![0i64; rank];
            let mut off = self.off;
            'walk: loop {
                offsets.push(off);
                let mut k = rank;
                loop {
                    if k == 0 {
                        break 'walk;
                    }
                    k -= 1;
                    counter[k] += 1;
                    off += pst[k];
                    if counter[k] < shape[k] {
                        break;
                    }
                    off -= pst[k] * shape[k] as usize;
                    counter[k] = 0;
                }
            }
        }
        let (ticket, _) = reserve(meter, &shape)?;
        let data = self
            .buf
            .data
            .gather(&offsets, 1)
            .ok_or_else(|| "internal error: rearrange outside its buffer".to_string())?;
        Ok(Array::new(ticket, data, shape))
    }
}

/// `[start, start+step, ...]` of length `n` in type `it`, wrapping.
pub(crate) fn iota(
    meter: &Rc<Meter>,
    n: i64,
    start: i128,
    step: i128,
    it: IntType,
) -> Result<Array, String> {
    Array::build(meter, PrimType::Int(it), vec![n], |data, n| {
        let mut x = start;
        for _ in 0..n {
            data.push(PrimValue::int(it, x));
            // Wrapping modulo 2^128 keeps the value modulo 2^bits, which is all `int` reads.
            x = x.wrapping_add(step);
        }
    })
}

/// An array of `shape ++ value's shape`, every row equal to `value`.
pub(crate) fn replicate(meter: &Rc<Meter>, shape: &[i64], value: &Val) -> Result<Array, String> {
    let mut full = shape.to_vec();
    full.extend_from_slice(value.shape());
    let (ticket, n) = reserve(meter, &full)?;
    let data = match value {
        Val::Prim(p) => Data::filled(*p, n),
        Val::Arr(a) => {
            let (src, r) = a.data();
            let times = if a.len() == 0 { 0 } else { n / a.len() };
            let part = src.slice(r);
            part.repeat(times)
        }
    };
    Ok(Array::new(ticket, data, full))
}

/// Concatenate along `axis`; the other dimensions must agree.
pub(crate) fn concat(meter: &Rc<Meter>, axis: usize, arrs: &[&Array]) -> Result<Array, String> {
    let first = arrs.first().ok_or("internal error: concatenation of no arrays")?;
    if axis >= first.shape.len() {
        return Err(format!("internal error: concatenation along missing dimension {axis}"));
    }
    let mut shape = first.shape.clone();
    shape[axis] = 0;
    for a in arrs {
        let same_elsewhere = a.shape.len() == shape.len()
            && a.shape.iter().zip(&first.shape).enumerate().all(|(k, (x, y))| k == axis || x == y);
        if !same_elsewhere {
            return Err(format!(
                "size mismatch: cannot concatenate arrays of shapes {} and {} along dimension {}",
                shape_str(&first.shape),
                shape_str(&a.shape),
                axis
            ));
        }
        shape[axis] += a.shape[axis];
    }
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let elem = first.elem();
    let (ticket, n) = reserve(meter, &shape)?;
    let mut data = Data::with_capacity(elem, n);
    for o in 0..outer {
        for a in arrs {
            let block = a.shape[axis] as usize * inner;
            let (src, r) = a.data();
            let from = r.start + o * block;
            if !data.extend_from(src, from..from + block) {
                return Err("internal error: concatenation of arrays of different types".into());
            }
        }
    }
    Ok(Array::new(ticket, data, shape))
}

/// Stacks values of equal shape into an array with a new outer dimension of `w`.
pub(crate) struct Stacker {
    elem: PrimType,
    w: usize,
    inner: Option<Vec<i64>>,
    data: Option<(Data, Ticket)>,
}

/// Why a value could not be stacked.
pub(crate) enum StackError {
    /// The value's shape differs from the earlier ones' (both given).
    Irregular(Vec<i64>, Vec<i64>),
    Other(String),
}

impl Stacker {
    pub fn new(elem: PrimType, w: usize) -> Stacker {
        Stacker { elem, w, inner: None, data: None }
    }

    pub fn push(&mut self, meter: &Rc<Meter>, v: &Val) -> Result<(), StackError> {
        match &self.inner {
            None => {
                let mut shape = vec![self.w as i64];
                shape.extend_from_slice(v.shape());
                let (ticket, n) = reserve(meter, &shape).map_err(StackError::Other)?;
                self.data = Some((Data::with_capacity(self.elem, n), ticket));
                self.inner = Some(v.shape().to_vec());
            }
            Some(inner) if inner.as_slice() != v.shape() => {
                return Err(StackError::Irregular(inner.clone(), v.shape().to_vec()));
            }
            Some(_) => {}
        }
        let ok = match (&mut self.data, v) {
            (Some((d, _)), Val::Prim(p)) => d.push(*p),
            (Some((d, _)), Val::Arr(a)) => {
                let (src, r) = a.data();
                d.extend_from(src, r)
            }
            (None, _) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(StackError::Other(format!(
                "internal error: a value of type {} among elements of type {}",
                v.elem(),
                self.elem
            )))
        }
    }

    /// The stacked array; `inner` gives the element shape when nothing was pushed.
    pub fn finish(self, meter: &Rc<Meter>, inner: &[i64]) -> Result<Array, String> {
        match (self.inner, self.data) {
            (Some(shape_in), Some((data, ticket))) => {
                let mut shape = vec![self.w as i64];
                shape.extend(shape_in);
                let want: usize = shape.iter().map(|&d| d as usize).product();
                if data.len() != want {
                    return Err("internal error: stacked the wrong number of values".into());
                }
                Ok(Array::new(ticket, data, shape))
            }
            _ => {
                let mut shape = vec![self.w as i64];
                shape.extend_from_slice(inner);
                Array::build(meter, self.elem, shape, |_, _| {})
            }
        }
    }
}
