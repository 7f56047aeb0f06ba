//! Runs a [`GpuProgram`]'s host schedule against a [`Device`]: scalars are evaluated here with the
//! interpreter's semantics, arrays stay in device buffers between kernels, and only the scalars
//! the host needs (reductions, single elements) and the entry's results are read back.
//!
//! Every element is one 32-bit word in a buffer (see the module docs of `wgsl`), except i64/u64
//! in a wide program (`GpuProgram::wide`), which take two. In a narrow program a value that does
//! not fit (an i64 outside the i32 range) is an error that `wgsl::is_needs_wide` recognises.
//!
//! The executor is `async`: in a browser, reading a buffer back (and learning whether WebGPU
//! reported an error) can only be awaited, never blocked on. Native hosts block on the future.
//! Nested bodies (`if`, loops, calls) recurse through boxed futures.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use super::{
    BufRef, Dispatch, GpuProgram, HostBody, HostStm, GPU_MAX_GROUPS, HIST_LOCAL_BINS, MAX_ERR_ARGS,
    MAX_GROUPS, SEG_GROUP_MIN, WORKGROUP,
};
use crate::diag::{Diagnostic, Phase, Span};
use crate::interp::prim_ops;
use crate::ir::{self, Atom, Dim, Exp, LoopForm, Param, Type, Var};
use crate::prim::{f16, FloatType, IntType, PrimType, PrimValue};
use crate::value::packed::{self, Packed};
use crate::value::Value;

/// What the host schedule needs from a GPU. Buffers hold 32-bit words. Every operation may
/// wait for the device (GPU errors are reported asynchronously in WebGPU), so all are `async`.
// The executor runs on one thread (browser futures are not `Send`), so the futures need no
// `Send` bound.
#[allow(async_fn_in_trait)]
pub trait Device {
    type Buf: Clone;
    /// Whether the device is a CPU running shaders in software (lavapipe, SwiftShader). There
    /// every workgroup barrier splits the shader and costs more than the work between two, and
    /// a few workgroups fill the cores, so schedules that synchronise less are chosen.
    fn software(&self) -> bool {
        false
    }
    /// How a GPU runs a scan that has a single-pass kernel (`HostStm::Scan::single`; a software
    /// device runs unstaged passes instead): `Some(polls)`, in one pass with a decoupled
    /// look-back whose walk polls a predecessor's record that many times before folding its
    /// tile itself (0: never reads the records, which tests that fallback); `None`, in three
    /// passes. Natively `runtime::gpu` chooses: three passes on a software adapter made to run
    /// a GPU's schedules (lavapipe ends any loop nest after 65535 iterations in all, which a
    /// walk that waits on a slow predecessor can reach), and `OGHAM_GPU_SCAN` to compare.
    fn scan_lookback(&self) -> Option<u32> {
        Some(LOOKBACK_POLLS)
    }
    /// A zero-filled buffer of at least `words` words (at least two: an empty array still binds
    /// as an array of one 64-bit element).
    async fn alloc(&mut self, words: u64) -> Result<Self::Buf, Diagnostic>;
    /// A buffer holding `bytes`: the little-endian bytes of whole words (arrays of 32-bit
    /// elements are uploaded as they are, without a copy into words).
    async fn upload(&mut self, bytes: &[u8]) -> Result<Self::Buf, Diagnostic>;
    /// `words` words of `buf` from word `offset`, as their little-endian bytes.
    async fn download(
        &mut self,
        buf: &Self::Buf,
        offset: u64,
        words: u64,
    ) -> Result<Vec<u8>, Diagnostic>;
    /// Whole buffers' first `words` words, `(buf, words)` each, as [`Device::download`] gives
    /// them. A device that reads them together, with the error record, waits once for all (in
    /// a browser each wait is a round trip), and [`Device::take_error`] then needs no read.
    async fn download_all(
        &mut self,
        regions: &[(&Self::Buf, u64)],
    ) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let mut out = Vec::with_capacity(regions.len());
        for (buf, words) in regions {
            out.push(self.download(buf, 0, *words).await?);
        }
        Ok(out)
    }
    /// A fresh buffer with the first `words` words of `src`.
    async fn copy(&mut self, src: &Self::Buf, words: u64) -> Result<Self::Buf, Diagnostic>;
    /// Copy the first `words` words of `src` into `dst` from word `offset`.
    async fn copy_into(
        &mut self,
        src: &Self::Buf,
        dst: &Self::Buf,
        offset: u64,
        words: u64,
    ) -> Result<(), Diagnostic>;
    async fn write(
        &mut self,
        buf: &Self::Buf,
        offset: u64,
        words: &[u32],
    ) -> Result<(), Diagnostic>;
    /// Run `kernel` with `groups` workgroups (the device may spread them over two dimensions).
    async fn dispatch(
        &mut self,
        kernel: usize,
        args: &[u32],
        bufs: &[&Self::Buf],
        groups: u64,
    ) -> Result<(), Diagnostic>;
    /// The error record (`1 + MAX_ERR_ARGS` words), cleared afterwards.
    async fn take_error(&mut self) -> Result<Vec<u32>, Diagnostic>;
}

#[derive(Clone)]
enum HVal<B> {
    Prim(PrimValue),
    /// An array in a device buffer; `host` is a copy of its words, once a read of one element
    /// has brought the whole (small) array back (see `MIRROR_WORDS`). Values are immutable (an
    /// update in place consumes its array, whose variable is then dead), so the copy stays true.
    Arr {
        buf: B,
        elem: PrimType,
        shape: Vec<i64>,
        host: Option<std::rc::Rc<Vec<u32>>>,
    },
}

impl<B> HVal<B> {
    fn arr(buf: B, elem: PrimType, shape: Vec<i64>) -> HVal<B> {
        HVal::Arr { buf, elem, shape, host: None }
    }
}

/// A read of one element of an array of at most this many words reads the whole array back and
/// keeps it on the host for the reads that follow (reverse mode's sweep over the values a loop
/// saved reads them one at a time). A read back is dominated by its round trip to the device,
/// so 16 KiB cost about what one word does.
const MIRROR_WORDS: u64 = 4096;

type R<T> = Result<T, Diagnostic>;

/// A boxed future: the recursion between statements and bodies goes through it.
type BoxFut<'f, T> = Pin<Box<dyn Future<Output = R<T>> + 'f>>;

fn rt(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::runtime(span, msg)
}

fn unsupported(span: Span, msg: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Runtime, span, format!("unsupported on the GPU backend: {msg}"))
}

/// A scalar as one word; i64/u64 must fit 32 bits.
pub fn to_word(p: PrimValue, span: Span) -> R<u32> {
    let too_big = |v: i128| {
        super::needs_wide(unsupported(
            span,
            format!("the 64-bit value {v} does not fit in 32 bits"),
        ))
    };
    Ok(match p {
        PrimValue::Bool(b) => b as u32,
        PrimValue::I8(x) => x as i32 as u32,
        PrimValue::I16(x) => x as i32 as u32,
        PrimValue::I32(x) => x as u32,
        PrimValue::I64(x) => i32::try_from(x).map_err(|_| too_big(x as i128))? as u32,
        PrimValue::U8(x) => x as u32,
        PrimValue::U16(x) => x as u32,
        PrimValue::U32(x) => x,
        PrimValue::U64(x) => u32::try_from(x).map_err(|_| too_big(x as i128))?,
        PrimValue::F32(x) => x.to_bits(),
        PrimValue::F16(x) => x.to_f32().to_bits(),
        PrimValue::F64(_) => return Err(unsupported(span, "64-bit floats")),
    })
}

/// Is `t` two words in a wide program's buffers, arguments and error records?
fn two_words(wide: bool, t: PrimType) -> bool {
    wide && super::scalar::narrowed(t)
}

/// A scalar as the words a program with `wide` 64-bit integers holds it in.
fn words_of(p: PrimValue, wide: bool, span: Span) -> R<Vec<u32>> {
    Ok(match p {
        PrimValue::I64(x) if wide => vec![x as u32, (x >> 32) as u32],
        PrimValue::U64(x) if wide => vec![x as u32, (x >> 32) as u32],
        p => vec![to_word(p, span)?],
    })
}

/// The value of `t` in the words `w` (as many as [`words_of`] gives).
fn value_of(w: &[u32], t: PrimType, wide: bool) -> PrimValue {
    let word = |k: usize| w.get(k).copied().unwrap_or(0);
    let x = word(0) as u64 | (word(1) as u64) << 32;
    match t {
        PrimType::Int(IntType::I64) if wide => PrimValue::I64(x as i64),
        PrimType::Int(IntType::U64) if wide => PrimValue::U64(x),
        t => from_word(word(0), t),
    }
}

/// The little-endian words of `bytes`.
fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A word read back as a value of `t`.
pub fn from_word(w: u32, t: PrimType) -> PrimValue {
    match t {
        PrimType::Bool => PrimValue::Bool(w != 0),
        PrimType::Int(IntType::I8) => PrimValue::I8(w as i32 as i8),
        PrimType::Int(IntType::I16) => PrimValue::I16(w as i32 as i16),
        PrimType::Int(IntType::I32) => PrimValue::I32(w as i32),
        PrimType::Int(IntType::I64) => PrimValue::I64(w as i32 as i64),
        PrimType::Int(IntType::U8) => PrimValue::U8(w as u8),
        PrimType::Int(IntType::U16) => PrimValue::U16(w as u16),
        PrimType::Int(IntType::U32) => PrimValue::U32(w),
        PrimType::Int(IntType::U64) => PrimValue::U64(w as u64),
        // Kernels round every f16 result, so the conversion is exact.
        PrimType::Float(FloatType::F16) => PrimValue::F16(f16::from_f32(f32::from_bits(w))),
        PrimType::Float(_) => PrimValue::F32(f32::from_bits(w)),
    }
}

fn prim_text(p: PrimValue) -> String {
    match p {
        PrimValue::F16(x) => x.to_f32().to_string(),
        PrimValue::F32(x) => x.to_string(),
        PrimValue::F64(x) => x.to_string(),
        PrimValue::Bool(b) => b.to_string(),
        _ => p.as_i128().map_or_else(String::new, |i| i.to_string()),
    }
}

fn fill(msg: &str, vals: &[PrimValue]) -> String {
    if msg.is_empty() {
        return "assertion failed".to_string();
    }
    let mut out = String::new();
    let mut it = vals.iter();
    let mut rest = msg;
    while let Some(k) = rest.find("{}") {
        out.push_str(&rest[..k]);
        match it.next() {
            Some(v) => out.push_str(&prim_text(*v)),
            None => out.push_str("{}"),
        }
        rest = &rest[k + 2..];
    }
    out.push_str(rest);
    out
}

fn shape_str(shape: &[i64]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}

/// Number of elements of `shape`, if it fits in 32 bits (the GPU's index width).
fn elements(shape: &[i64], span: Span) -> R<u64> {
    let n = shape.iter().try_fold(1u128, |acc, &d| (d >= 0).then(|| acc.saturating_mul(d as u128)));
    match n {
        Some(n) if n <= i32::MAX as u128 => Ok(n as u64),
        Some(_) => Err(unsupported(
            span,
            format!("an array of shape {} (more than 2^31 elements)", shape_str(shape)),
        )),
        None => Err(rt(span, format!("negative size in shape {}", shape_str(shape)))),
    }
}

/// Run entry point `entry` of `prog` on `args`: arguments are uploaded, the host schedule runs,
/// results are downloaded.
pub async fn run_entry<D: Device>(
    prog: &GpuProgram,
    dev: &mut D,
    entry: &str,
    args: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    let packed: Vec<Packed> = args.iter().map(Packed::from).collect();
    let results = run_entry_packed(prog, dev, entry, &packed).await?;
    let span = Span::DUMMY;
    results
        .iter()
        .map(|r| r.to_value().map_err(|m| rt(span, format!("internal error: {m}"))))
        .collect()
}

/// [`run_entry`] on arguments and results as bytes: arrays of 32-bit elements are the buffers'
/// words as they are, with no value built per element.
pub async fn run_entry_packed<D: Device>(
    prog: &GpuProgram,
    dev: &mut D,
    entry: &str,
    args: &[Packed],
) -> Result<Vec<Packed>, Diagnostic> {
    if let Some((_, d)) = prog.rejected.iter().find(|(name, _)| name == entry) {
        return Err(d.clone());
    }
    let ep =
        prog.entries.iter().find(|e| e.name == entry).ok_or_else(|| {
            ir::unknown_entry(entry, prog.entries.iter().map(|e| e.name.as_str()))
        })?;
    ir::check_entry_args(entry, &ep.params, ep.span, args)?;
    let mut vals: Vec<HVal<D::Buf>> = Vec::new();
    for a in args {
        if let Packed::Array { shape, .. } = a {
            vals.extend(shape.iter().map(|&d| HVal::Prim(PrimValue::I64(d))));
        }
    }
    for a in args {
        vals.push(match a {
            Packed::Prim(p) => HVal::Prim(*p),
            Packed::Array { elem, shape, bytes } => {
                elements(shape, ep.span)?;
                // A wide program's 64-bit elements are two little-endian words each, as packed.
                let buf = if packed::elem_size(*elem) == 4 || two_words(prog.wide, *elem) {
                    dev.upload(bytes).await?
                } else {
                    let words = to_words(*elem, bytes, ep.span)?;
                    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    dev.upload(&bytes).await?
                };
                HVal::arr(buf, *elem, shape.clone())
            }
        });
    }
    let mut ex =
        Exec { prog, dev, env: Env(Vec::new()), dead: HashMap::new(), depth: 0, wide: prog.wide };
    let res = ex.call(ep.fun, vals, ep.span).await;
    let res = match res {
        Ok(r) => r,
        Err(d) => return Err(ex.kernel_error().await?.unwrap_or(d)),
    };
    let exist = prog.funs.get(ep.fun).map_or(0, |f| f.existentials);
    let res: Vec<_> = res.into_iter().skip(exist).collect();
    // The arrays come back in one read with the error record, which is checked first: a failed
    // kernel's message is the run's error, whatever the read gave.
    let sizes = res
        .iter()
        .map(|v| match v {
            HVal::Arr { elem, shape, .. } => Ok(elements(shape, ep.span)? * ex.wpe(*elem)),
            HVal::Prim(_) => Ok(0),
        })
        .collect::<R<Vec<u64>>>();
    let read = match &sizes {
        Ok(sizes) => {
            let regions: Vec<(&D::Buf, u64)> = res
                .iter()
                .zip(sizes)
                .filter_map(|(v, &n)| match v {
                    HVal::Arr { buf, .. } if n > 0 => Some((buf, n)),
                    _ => None,
                })
                .collect();
            ex.dev.download_all(&regions).await
        }
        Err(d) => Err(d.clone()),
    };
    if let Some(d) = ex.kernel_error().await? {
        return Err(d);
    }
    let (sizes, mut parts) = (sizes?, read?.into_iter());
    let mut out = Vec::new();
    for (v, n) in res.into_iter().zip(sizes) {
        out.push(match v {
            HVal::Prim(p) => Packed::Prim(p),
            HVal::Arr { elem, shape, .. } => {
                let words = match n {
                    0 => Vec::new(),
                    _ => parts
                        .next()
                        .ok_or_else(|| rt(ep.span, "internal error: a result was not read"))?,
                };
                let bytes =
                    if two_words(prog.wide, elem) { words } else { from_words(elem, words) };
                Packed::Array { elem, shape, bytes }
            }
        });
    }
    Ok(out)
}

/// An array's elements as buffer words: 32-bit elements are their own words; the others are
/// widened (or narrowed, for 64-bit values that fit) one by one, as [`to_word`] does.
fn to_words(elem: PrimType, bytes: &[u8], span: Span) -> R<Vec<u32>> {
    let size = packed::elem_size(elem);
    bytes
        .chunks_exact(size)
        .map(|c| {
            let p = packed::read_scalar(elem, c)
                .ok_or_else(|| rt(span, "internal error: a bad array element"))?;
            to_word(p, span)
        })
        .collect()
}

/// Buffer words (their little-endian bytes) as the bytes of an array of `elem` (the inverse of
/// [`to_words`]).
fn from_words(elem: PrimType, words: Vec<u8>) -> Vec<u8> {
    if packed::elem_size(elem) == 4 {
        return words;
    }
    let mut out = Vec::with_capacity(words.len() / 4 * packed::elem_size(elem));
    for w in words.chunks_exact(4) {
        packed::put_scalar(from_word(first_word(w), elem), &mut out);
    }
    out
}

/// The first little-endian word of `bytes` (0 if there is none).
fn first_word(bytes: &[u8]) -> u32 {
    match bytes {
        [a, b, c, d, ..] => u32::from_le_bytes([*a, *b, *c, *d]),
        _ => 0,
    }
}

struct Exec<'a, D: Device> {
    prog: &'a GpuProgram,
    dev: &'a mut D,
    env: Env<D::Buf>,
    /// Per body of `prog` (by address), the variables to drop after each statement
    /// (`host::dead_after`): an array's buffer is freed once nothing needs it.
    dead: HashMap<*const HostBody, std::rc::Rc<Vec<Vec<Var>>>>,
    depth: usize,
    /// `prog.wide`: 64-bit integers take two words.
    wide: bool,
}

/// The values of the variables in scope, by variable number (variables are numbered densely
/// across the program, and the host schedule reads one for nearly every scalar it computes).
struct Env<B>(Vec<Option<HVal<B>>>);

impl<B> Env<B> {
    fn get(&self, v: &Var) -> Option<&HVal<B>> {
        self.0.get(v.0 as usize).and_then(Option::as_ref)
    }

    fn insert(&mut self, v: Var, x: HVal<B>) {
        let i = v.0 as usize;
        if i >= self.0.len() {
            self.0.resize_with(i + 1, || None);
        }
        self.0[i] = Some(x);
    }

    fn remove(&mut self, v: &Var) {
        if let Some(x) = self.0.get_mut(v.0 as usize) {
            *x = None;
        }
    }
}

impl<D: Device> Exec<'_, D> {
    /// Words per element of `t` in buffers.
    fn wpe(&self, t: PrimType) -> u64 {
        if two_words(self.wide, t) {
            2
        } else {
            1
        }
    }

    /// The first error a kernel reported, as a diagnostic.
    async fn kernel_error(&mut self) -> R<Option<Diagnostic>> {
        let rec = self.dev.take_error().await?;
        let code = rec.first().copied().unwrap_or(0);
        if code == 0 {
            return Ok(None);
        }
        let Some(site) = self.prog.sites.get(code as usize - 1) else {
            return Ok(Some(rt(Span::DUMMY, "internal error: a kernel reported an unknown error")));
        };
        let words: Vec<u32> = rec.iter().skip(1).take(MAX_ERR_ARGS).copied().collect();
        let mut vals = Vec::new();
        let mut k = 0;
        for t in &site.args {
            let n = self.wpe(*t) as usize;
            if k + n > words.len() {
                break;
            }
            vals.push(value_of(&words[k..k + n], *t, self.wide));
            k += n;
        }
        let d = rt(site.span, fill(&site.msg, &vals));
        Ok(Some(if site.narrowed { super::needs_wide(d) } else { d }))
    }

    async fn checked<T>(&mut self, r: R<T>) -> R<T> {
        match r {
            Ok(v) => Ok(v),
            Err(d) => Err(self.kernel_error().await?.unwrap_or(d)),
        }
    }

    async fn call(
        &mut self,
        fun: usize,
        args: Vec<HVal<D::Buf>>,
        span: Span,
    ) -> R<Vec<HVal<D::Buf>>> {
        let f =
            self.prog.funs.get(fun).ok_or_else(|| rt(span, "internal error: no such function"))?;
        if self.depth > 200 {
            return Err(rt(span, "calls nested too deeply"));
        }
        for (p, v) in f.params.iter().zip(args) {
            self.env.insert(p.var, v);
        }
        self.depth += 1;
        let r = self.body(&f.body).await;
        self.depth -= 1;
        r
    }

    fn body<'f>(&'f mut self, b: &'f HostBody) -> BoxFut<'f, Vec<HVal<D::Buf>>> {
        Box::pin(async move {
            let key = b as *const HostBody;
            let dead = match self.dead.get(&key) {
                Some(d) => d.clone(),
                None => {
                    let d = std::rc::Rc::new(super::host::dead_after(b));
                    self.dead.insert(key, d.clone());
                    d
                }
            };
            for (s, gone) in b.stms.iter().zip(dead.iter()) {
                // Scalar statements that cannot fail on the device run here, outside the
                // (large) future of `stm`: the host's loops are mostly these.
                match s {
                    HostStm::Scalar(st) if !matches!(st.exp, Exp::Assert { .. }) => {
                        let v = self.scalar_now(st)?;
                        if let Some(p) = st.pat.first() {
                            self.env.insert(p.var, HVal::Prim(v));
                        }
                    }
                    _ => self.stm(s).await?,
                }
                for v in gone {
                    self.env.remove(v);
                }
            }
            b.result.iter().map(|a| self.atom(a, Span::DUMMY)).collect()
        })
    }

    fn atom(&self, a: &Atom, span: Span) -> R<HVal<D::Buf>> {
        match a {
            Atom::Const(c) => Ok(HVal::Prim(*c)),
            Atom::Var(v) => self.env.get(v).cloned().ok_or_else(|| {
                rt(span, format!("internal error: `{}` is not bound", self.prog.name(*v)))
            }),
        }
    }

    fn prim(&self, a: &Atom, span: Span) -> R<PrimValue> {
        match a {
            Atom::Const(c) => Ok(*c),
            Atom::Var(v) => match self.env.get(v) {
                Some(HVal::Prim(p)) => Ok(*p),
                Some(HVal::Arr { .. }) => {
                    Err(rt(span, "internal error: an array where a scalar was expected"))
                }
                None => {
                    Err(rt(span, format!("internal error: `{}` is not bound", self.prog.name(*v))))
                }
            },
        }
    }

    fn int(&self, a: &Atom, span: Span) -> R<i64> {
        self.prim(a, span)?
            .as_i128()
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| rt(span, "internal error: not an integer"))
    }

    fn dim(&self, d: &Dim, span: Span) -> R<i64> {
        match d {
            Dim::Const(c) => Ok(*c),
            Dim::Var(v) => self.int(&Atom::Var(*v), span),
        }
    }

    fn shape_of(&self, t: &Type, span: Span) -> R<Vec<i64>> {
        match t {
            Type::Prim(_) => Ok(Vec::new()),
            Type::Array { shape, .. } => shape.iter().map(|d| self.dim(d, span)).collect(),
        }
    }

    fn arr(&self, v: Var, span: Span) -> R<(D::Buf, PrimType, Vec<i64>)> {
        self.arr_host(v, span).map(|(buf, elem, shape, _)| (buf, elem, shape))
    }

    /// [`Self::arr`], with the host's copy of the array if it has one.
    #[allow(clippy::type_complexity)]
    fn arr_host(
        &self,
        v: Var,
        span: Span,
    ) -> R<(D::Buf, PrimType, Vec<i64>, Option<std::rc::Rc<Vec<u32>>>)> {
        match self.atom(&Atom::Var(v), span)? {
            HVal::Arr { buf, elem, shape, host } => Ok((buf, elem, shape, host)),
            HVal::Prim(_) => Err(rt(span, "internal error: a scalar where an array was expected")),
        }
    }

    fn bind(&mut self, pat: &[Param], vals: Vec<HVal<D::Buf>>) {
        for (p, v) in pat.iter().zip(vals) {
            self.env.insert(p.var, v);
        }
    }

    /// The row-major position of fixed indices into the leading dimensions of an array of
    /// `shape` (an element's with every dimension indexed; else a row's, counted in rows), or
    /// the interpreter's error for an index out of bounds.
    fn flat_index(&self, idx: &[Atom], shape: &[i64], span: Span) -> R<u64> {
        let is = idx.iter().map(|a| self.int(a, span)).collect::<R<Vec<_>>>()?;
        if is.iter().zip(shape).any(|(&i, &d)| i < 0 || i >= d) || is.len() > shape.len() {
            let shown: Vec<String> = is.iter().map(|i| i.to_string()).collect();
            return Err(rt(
                span,
                format!(
                    "index [{}] out of bounds for array of shape {}",
                    shown.join(", "),
                    shape_str(shape)
                ),
            ));
        }
        let mut off = 0u64;
        for (&i, &d) in is.iter().zip(shape) {
            off = off * d as u64 + i as u64;
        }
        Ok(off)
    }

    /// Make `p`, every element `v`, on the host and upload it, keeping its words, when it has
    /// at most [`MIRROR_WORDS`] (and some); whether it did.
    async fn filled_on_host(&mut self, p: &Param, v: &Atom, span: Span) -> R<bool> {
        let shape = self.shape_of(&p.ty, span)?;
        let word = words_of(self.prim(v, span)?, self.wide, span)?;
        let n = elements(&shape, span)?;
        if n == 0 || n * word.len() as u64 > MIRROR_WORDS {
            return Ok(false);
        }
        let words: Vec<u32> = word.iter().copied().cycle().take(n as usize * word.len()).collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let buf = self.dev.upload(&bytes).await?;
        let host = Some(std::rc::Rc::new(words));
        self.env.insert(p.var, HVal::Arr { buf, elem: p.ty.elem(), shape, host });
        Ok(true)
    }

    /// Allocate the outputs of a launch over `shape`; returns its number of invocations.
    async fn launch_outputs(&mut self, outs: &[Param], shape: &[Dim], span: Span) -> R<u64> {
        let total =
            elements(&shape.iter().map(|d| self.dim(d, span)).collect::<R<Vec<_>>>()?, span)?;
        for p in outs {
            let sh = self.shape_of(&p.ty, span)?;
            let n = elements(&sh, span)? * self.wpe(p.ty.elem());
            let buf = self.dev.alloc(n).await?;
            self.env.insert(p.var, HVal::arr(buf, p.ty.elem(), sh));
        }
        Ok(total)
    }

    async fn run_dispatch(
        &mut self,
        d: &Dispatch,
        reserved: &[u32],
        temps: &[D::Buf],
        groups: u64,
        span: Span,
    ) -> R<()> {
        let mut args = reserved.to_vec();
        for a in &d.args {
            let p = self.prim(a, span)?;
            args.extend(words_of(p, self.wide, span)?);
        }
        let mut bufs = Vec::new();
        for b in &d.bufs {
            bufs.push(match b {
                BufRef::Var(v) => self.arr(*v, span)?.0,
                BufRef::Temp(k) => temps
                    .get(*k)
                    .cloned()
                    .ok_or_else(|| rt(span, "internal error: no such temporary"))?,
            });
        }
        let refs: Vec<&D::Buf> = bufs.iter().collect();
        self.dev.dispatch(d.kernel, &args, &refs, groups).await
    }

    /// The buffer a statement that writes into array `v` writes: `v`'s own when `in_place`,
    /// else a copy of it.
    async fn written(
        &mut self,
        v: Var,
        in_place: bool,
        span: Span,
    ) -> R<(D::Buf, PrimType, Vec<i64>)> {
        let (buf, elem, shape) = self.arr(v, span)?;
        if in_place {
            return Ok((buf, elem, shape));
        }
        let copy = self.dev.copy(&buf, elements(&shape, span)? * self.wpe(elem)).await?;
        Ok((copy, elem, shape))
    }

    async fn stm(&mut self, s: &HostStm) -> R<()> {
        match s {
            HostStm::Scalar(st) => {
                let v = self.scalar(st).await?;
                if let (Some(p), Some(v)) = (st.pat.first(), v) {
                    self.env.insert(p.var, HVal::Prim(v));
                }
            }
            HostStm::Alias { pat, arr } => {
                let v = self.atom(&Atom::Var(*arr), Span::DUMMY)?;
                self.env.insert(pat.var, v);
            }
            HostStm::Reshape { pat, arr, span } => {
                let (buf, elem, old) = self.arr(*arr, *span)?;
                let new = self.shape_of(&pat.ty, *span)?;
                let n_new = new
                    .iter()
                    .try_fold(1i128, |a, &d| (d >= 0).then(|| a.saturating_mul(d as i128)));
                let n_old: i128 = old.iter().map(|&d| d as i128).product();
                if n_new != Some(n_old) {
                    return Err(rt(
                        *span,
                        format!(
                            "size mismatch: cannot reshape an array of shape {} to {}",
                            shape_str(&old),
                            shape_str(&new)
                        ),
                    ));
                }
                self.env.insert(pat.var, HVal::arr(buf, elem, new));
            }
            HostStm::ReadElem { pat, arr, idx, span } => {
                let (buf, elem, shape, host) = self.arr_host(*arr, *span)?;
                let n = self.wpe(elem);
                let off = self.flat_index(idx, &shape, *span)? * n;
                let words = match host {
                    Some(words) => words,
                    None => {
                        let all = elements(&shape, *span)? * n;
                        let whole = all <= MIRROR_WORDS;
                        let (from, len) = if whole { (0, all) } else { (off, n) };
                        let w =
                            std::rc::Rc::new(le_words(&self.dev.download(&buf, from, len).await?));
                        if let Some(d) = self.kernel_error().await? {
                            return Err(d);
                        }
                        if !whole {
                            self.env.insert(pat.var, HVal::Prim(value_of(&w, elem, self.wide)));
                            return Ok(());
                        }
                        let host = Some(w.clone());
                        self.env.insert(*arr, HVal::Arr { buf, elem, shape, host });
                        w
                    }
                };
                let at = off as usize;
                let v = value_of(&words[at..at + n as usize], elem, self.wide);
                self.env.insert(pat.var, HVal::Prim(v));
            }
            HostStm::Scatter { pat, dest, w, ranks, winners, write, in_place, span } => {
                let (buf, elem, shape) = self.written(*dest, *in_place, *span).await?;
                let (outer, inner) = shape.split_at((*ranks).min(shape.len()));
                let (cells, row) = (elements(outer, *span)?, elements(inner, *span)?);
                self.env.insert(pat.var, HVal::arr(buf, elem, shape));
                let w = self.int(w, *span)?;
                if w > 0 && cells > 0 && row > 0 {
                    let win = [self.dev.alloc(cells).await?];
                    let reserved = [to_word(PrimValue::I64(w), *span)?, row as u32];
                    let groups = (w as u64).div_ceil(WORKGROUP as u64);
                    self.run_dispatch(winners, &reserved, &win, groups, *span).await?;
                    let groups = (w as u64 * row).div_ceil(WORKGROUP as u64);
                    self.run_dispatch(write, &reserved, &win, groups, *span).await?;
                }
            }
            HostStm::Copy { pat, arr, span } => {
                let host = self.arr_host(*arr, *span)?.3;
                let (buf, elem, shape) = self.written(*arr, false, *span).await?;
                self.env.insert(pat.var, HVal::Arr { buf, elem, shape, host });
            }
            HostStm::UpdateElem { pat, arr, idx, value, in_place, span } => {
                // The host's copy of the array, if it has one, is updated with it: taken from
                // an array updated in place (which nothing reads afterwards), so that it is
                // not copied for each element.
                let host = match self.env.0.get_mut(arr.0 as usize) {
                    Some(Some(HVal::Arr { host, .. })) if *in_place => host.take(),
                    Some(Some(HVal::Arr { host, .. })) => host.clone(),
                    _ => None,
                };
                let (buf, elem, shape) = self.written(*arr, *in_place, *span).await?;
                let off = self.flat_index(idx, &shape, *span)? * self.wpe(elem);
                let w = words_of(self.prim(value, *span)?, self.wide, *span)?;
                self.dev.write(&buf, off, &w).await?;
                let host = host.map(|mut h| {
                    let at = off as usize;
                    std::rc::Rc::make_mut(&mut h)[at..at + w.len()].copy_from_slice(&w);
                    h
                });
                self.env.insert(pat.var, HVal::Arr { buf, elem, shape, host });
            }
            HostStm::UpdateRow { pat, arr, idx, value, in_place, span } => {
                let (_, _, shape) = self.arr(*arr, *span)?;
                let at = self.flat_index(idx, &shape, *span)?;
                let (src, _, row_shape) = self.arr(*value, *span)?;
                if row_shape.as_slice() != &shape[idx.len()..] {
                    let msg = format!(
                        "size mismatch: a row of shape {} written into an array of shape {}",
                        shape_str(&row_shape),
                        shape_str(&shape)
                    );
                    return Err(rt(*span, msg));
                }
                let (buf, elem, shape) = self.written(*arr, *in_place, *span).await?;
                let row = elements(&row_shape, *span)? * self.wpe(elem);
                if row > 0 {
                    self.dev.copy_into(&src, &buf, at * row, row).await?;
                }
                self.env.insert(pat.var, HVal::arr(buf, elem, shape));
            }
            HostStm::Launch { outs, shape, dispatch, tiled, fill, empty_rows, span } => {
                if let (Some(v), [p]) = (fill, outs.as_slice()) {
                    if self.filled_on_host(p, v, *span).await? {
                        return Ok(());
                    }
                }
                let total = self.launch_outputs(outs, shape, *span).await?;
                if total > 0 {
                    let (dispatch, groups) = match tiled {
                        Some(t) => {
                            // Blocks of the result, and how many a workgroup computes.
                            let (dispatch, side, per_group) = match t.group {
                                _ if self.dev.software() => {
                                    (&t.software, t.software_side, super::tile::SOFTWARE_GROUP)
                                }
                                Some(tile) => (dispatch, tile, 1),
                                None => (dispatch, t.side, WORKGROUP),
                            };
                            let dims =
                                shape.iter().map(|d| self.dim(d, *span)).collect::<R<Vec<_>>>()?;
                            let blocks: u64 = dims
                                .iter()
                                .map(|&d| (d.max(0) as u64).div_ceil(side as u64))
                                .product();
                            (dispatch, blocks.div_ceil(per_group as u64))
                        }
                        None => (dispatch, total.div_ceil(WORKGROUP as u64)),
                    };
                    self.run_dispatch(dispatch, &[], &[], groups, *span).await?;
                } else if let (Some(check), Some(rows)) = (empty_rows, shape.first()) {
                    let rows = self.dim(rows, *span)?.max(0) as u64;
                    if rows > 0 {
                        let groups = rows.div_ceil(WORKGROUP as u64);
                        self.run_dispatch(check, &[], &[], groups, *span).await?;
                    }
                }
            }
            HostStm::SegReduce { outs, shape, seg_w, group, thread, span } => {
                let total = self.launch_outputs(outs, shape, *span).await?;
                if total > 0 {
                    let short = match seg_w {
                        Some(a) => self.int(a, *span)? < SEG_GROUP_MIN,
                        None => false,
                    };
                    // On a software device, enough segments for several workgroups of one
                    // invocation each beat a workgroup per segment and its tree of barriers
                    // (softmax over 1024 rows of 1024 on lavapipe: 105 → 33 ms).
                    let short = short || (self.dev.software() && total >= SOFTWARE_SEG_THREADS);
                    if short {
                        let groups = total.div_ceil(WORKGROUP as u64);
                        self.run_dispatch(thread, &[], &[], groups, *span).await?;
                    } else {
                        self.run_dispatch(group, &[], &[], total, *span).await?;
                    }
                }
            }
            HostStm::RowMap { outs, width, group, local, bound, thread, pieces, span } => {
                let short = match width {
                    Some(a) => self.int(a, *span)? < SEG_GROUP_MIN,
                    None => false,
                };
                let mut fits = true;
                for a in local {
                    fits &= self.int(a, *span)? <= *bound;
                }
                let rows = match outs.first().map(|p| &p.ty) {
                    Some(Type::Array { shape, .. }) => shape.first().copied(),
                    _ => None,
                };
                let rows = rows.ok_or_else(|| rt(*span, "a row map without rows"))?;
                let n = self.dim(&rows, *span)?.max(0) as u64;
                // As for segmented reductions: many rows on a software device take an
                // invocation each (a workgroup's barriers split the shader there).
                let short = short || (self.dev.software() && n >= SOFTWARE_SEG_THREADS);
                if short || fits {
                    self.launch_outputs(outs, &[rows], *span).await?;
                    if n > 0 && short {
                        let groups = n.div_ceil(WORKGROUP as u64);
                        self.run_dispatch(thread, &[], &[], groups, *span).await?;
                    } else if n > 0 {
                        self.run_dispatch(group, &[], &[], n, *span).await?;
                    }
                } else {
                    let r = self.body(pieces).await?;
                    self.bind(outs, r);
                }
            }
            HostStm::Hist { pat, dest, w, local, global, span } => {
                let (buf, elem, shape) = self.written(*dest, false, *span).await?;
                let bins = shape.first().copied().unwrap_or(0);
                self.env.insert(pat.var, HVal::arr(buf, elem, shape));
                let w = self.int(w, *span)?;
                if w > 0 && bins > 0 {
                    let private = bins <= HIST_LOCAL_BINS;
                    let mut groups = groups_for(w, MAX_GROUPS);
                    if private && self.dev.software() {
                        // Each workgroup clears and merges every bin: a software device, which
                        // runs a few workgroups at a time, needs only enough to fill its cores.
                        groups = groups.min(SOFTWARE_REDUCE_GROUPS);
                    }
                    let d = if private { local } else { global };
                    let reserved =
                        [to_word(PrimValue::I64(w), *span)?, to_word(PrimValue::I64(bins), *span)?];
                    self.run_dispatch(d, &reserved, &[], groups, *span).await?;
                }
            }
            HostStm::SplitReduce { pat, w, whole, parts, finish, span } => {
                let Some(Type::Array { shape, .. }) = pat.first().map(|p| &p.ty) else {
                    return Err(rt(*span, "a split reduction of scalars"));
                };
                let total = self.launch_outputs(pat, shape, *span).await?;
                let w = self.int(w, *span)?;
                let chunks = split_chunks(w, total, self.dev.software());
                if total == 0 {
                } else if chunks <= 1 {
                    for d in whole {
                        let groups = total.div_ceil(WORKGROUP as u64);
                        self.run_dispatch(d, &[], &[], groups, *span).await?;
                    }
                } else {
                    let mut temps = Vec::new();
                    for p in pat {
                        temps.push(self.dev.alloc(chunks * total * self.wpe(p.ty.elem())).await?);
                    }
                    let reserved = [to_word(PrimValue::I64(w), *span)?, chunks as u32];
                    let groups = (chunks * total).div_ceil(WORKGROUP as u64);
                    self.run_dispatch(parts, &reserved, &temps, groups, *span).await?;
                    let groups = total.div_ceil(WORKGROUP as u64);
                    self.run_dispatch(finish, &reserved, &temps, groups, *span).await?;
                }
            }
            HostStm::Reduce { pat, w, passes, flat, span } => {
                let n = self.int(w, *span)?;
                let software = self.dev.software();
                let (groups, partials, pass1) = if software {
                    let groups = groups_for(n, MAX_GROUPS).min(SOFTWARE_REDUCE_GROUPS);
                    (groups, groups * WORKGROUP as u64, flat)
                } else {
                    let groups = groups_for(n, GPU_MAX_GROUPS);
                    (groups, groups, &passes[0])
                };
                let k = pat.len();
                let mut temps = Vec::new();
                for p in pat {
                    temps.push(self.dev.alloc(partials * self.wpe(p.ty.elem())).await?);
                }
                for p in pat {
                    temps.push(self.dev.alloc(self.wpe(p.ty.elem())).await?);
                }
                let reserved = [to_word(PrimValue::I64(n), *span)?, partials as u32];
                self.run_dispatch(pass1, &reserved, &temps, groups, *span).await?;
                self.run_dispatch(&passes[1], &reserved, &temps, 1, *span).await?;
                let mut vals = Vec::new();
                for (j, p) in pat.iter().enumerate() {
                    let t = p.ty.elem();
                    let w = self.dev.download(&temps[k + j], 0, self.wpe(t)).await?;
                    vals.push(HVal::Prim(value_of(&le_words(&w), t, self.wide)));
                }
                if let Some(d) = self.kernel_error().await? {
                    return Err(d);
                }
                self.bind(pat, vals);
            }
            HostStm::Scan { pat, w, passes, staged, single, span } => {
                let n = self.int(w, *span)?;
                elements(&[n], *span)?;
                for p in pat {
                    let buf = self.dev.alloc(n as u64 * self.wpe(p.ty.elem())).await?;
                    self.env.insert(p.var, HVal::arr(buf, p.ty.elem(), vec![n]));
                }
                let lookback = self.dev.scan_lookback().filter(|_| !self.dev.software());
                if let (true, Some((d, tile)), Some(polls)) = (n > 0, single, lookback) {
                    // A workgroup a tile, each taking the next (`staged::single_pass`).
                    let tiles = (n as u64).div_ceil(*tile as u64);
                    let records = 1 + 4 * pat.len() as u64 * tiles;
                    let temps = [self.dev.alloc(records).await?];
                    let reserved = [to_word(PrimValue::I64(n), *span)?, tiles as u32, polls];
                    self.run_dispatch(d, &reserved, &temps, tiles, *span).await?;
                } else if n > 0 {
                    let max = if self.dev.software() { MAX_GROUPS } else { GPU_MAX_GROUPS };
                    let groups = groups_for(n, max);
                    let mut temps = Vec::new();
                    for p in pat {
                        temps.push(self.dev.alloc(groups * self.wpe(p.ty.elem())).await?);
                    }
                    let reserved = [to_word(PrimValue::I64(n), *span)?, groups as u32];
                    let (first, third) = match staged {
                        Some([p1, p3]) if !self.dev.software() => (p1, p3),
                        _ => (&passes[0], &passes[2]),
                    };
                    self.run_dispatch(first, &reserved, &temps, groups, *span).await?;
                    self.run_dispatch(&passes[1], &reserved, &temps, 1, *span).await?;
                    self.run_dispatch(third, &reserved, &temps, groups, *span).await?;
                }
            }
            HostStm::If { pat, cond, then_body, else_body, span } => {
                let c = self.prim(cond, *span)?.as_bool().unwrap_or(false);
                let r = if c { self.body(then_body).await? } else { self.body(else_body).await? };
                self.bind(pat, r);
            }
            HostStm::Loop { pat, params, form, body, span } => {
                let mut vals =
                    params.iter().map(|(_, a)| self.atom(a, *span)).collect::<R<Vec<_>>>()?;
                match form {
                    LoopForm::For { i, it, bound } => {
                        let n = self.prim(bound, *span)?.as_i128().unwrap_or(0);
                        let mut k: i128 = 0;
                        while k < n {
                            let ps: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
                            self.bind(&ps, vals);
                            self.env.insert(*i, HVal::Prim(PrimValue::int(*it, k)));
                            vals = self.body(body).await?;
                            k += 1;
                        }
                    }
                    LoopForm::While(c) => loop {
                        let ps: Vec<Param> = params.iter().map(|(p, _)| p.clone()).collect();
                        self.bind(&ps, vals);
                        if !self.prim(&Atom::Var(*c), *span)?.as_bool().unwrap_or(false) {
                            vals = ps
                                .iter()
                                .map(|p| self.atom(&Atom::Var(p.var), *span))
                                .collect::<R<Vec<_>>>()?;
                            break;
                        }
                        vals = self.body(body).await?;
                    },
                }
                self.bind(pat, vals);
            }
            HostStm::Call { pat, fun, args, span } => {
                let vals = args.iter().map(|a| self.atom(a, *span)).collect::<R<Vec<_>>>()?;
                let r = self.call(*fun, vals, *span).await?;
                self.bind(pat, r);
            }
        }
        Ok(())
    }

    /// Evaluate a scalar statement (`None` for `Assert`, which binds nothing).
    async fn scalar(&mut self, s: &ir::Stm) -> R<Option<PrimValue>> {
        if let Exp::Assert { cond, msg, vals } = &s.exp {
            if !self.prim(cond, s.span)?.as_bool().unwrap_or(false) {
                let vals = vals.iter().map(|a| self.prim(a, s.span)).collect::<R<Vec<_>>>()?;
                let d = rt(s.span, fill(msg, &vals));
                let r: R<()> = Err(d);
                self.checked(r).await?;
            }
            return Ok(None);
        }
        self.scalar_now(s).map(Some)
    }

    /// The value of a scalar statement other than an `Assert`.
    fn scalar_now(&self, s: &ir::Stm) -> R<PrimValue> {
        let span = s.span;
        let op = |r: Result<PrimValue, String>| r.map_err(|m| rt(span, m));
        Ok(match &s.exp {
            Exp::Atom(a) => self.prim(a, span)?,
            Exp::UnOp(o, _, a) => op(prim_ops::unop(*o, self.prim(a, span)?))?,
            Exp::BinOp(o, _, a, b) => {
                op(prim_ops::binop(*o, self.prim(a, span)?, self.prim(b, span)?))?
            }
            Exp::Cmp(o, _, a, b) => PrimValue::Bool(op_bool(
                prim_ops::cmp(*o, self.prim(a, span)?, self.prim(b, span)?),
                span,
            )?),
            Exp::Convert { from, to, arg } => {
                op(prim_ops::convert(*from, *to, self.prim(arg, span)?))?
            }
            Exp::Math(f, _, args) => {
                let args = args.iter().map(|a| self.prim(a, span)).collect::<R<Vec<_>>>()?;
                op(prim_ops::math(*f, &args))?
            }
            Exp::Select(c, a, b) => {
                if self.prim(c, span)?.as_bool().unwrap_or(false) {
                    self.prim(a, span)?
                } else {
                    self.prim(b, span)?
                }
            }
            _ => return Err(rt(span, "internal error: not a scalar statement")),
        })
    }
}

fn op_bool(r: Result<bool, String>, span: Span) -> R<bool> {
    r.map_err(|m| rt(span, m))
}

/// Segments from which a software device reduces each with one invocation, whatever their width
/// (four workgroups).
const SOFTWARE_SEG_THREADS: u64 = 4 * WORKGROUP as u64;

/// Workgroups of a reduction on a software device: enough to fill its cores; their threads'
/// partial values (4096) are folded by one invocation in the second pass.
const SOFTWARE_REDUCE_GROUPS: u64 = 16;

/// Polls of a predecessor's record before a single-pass scan's look-back folds that tile itself
/// (`staged::single_pass`): far more than a running predecessor needs.
pub const LOOKBACK_POLLS: u32 = 4096;

/// Invocations that fill a device: a software device runs a workgroup per core at a time, a
/// GPU many per multiprocessor.
const SPLIT_THREADS_SOFTWARE: u64 = 4096;
const SPLIT_THREADS_GPU: u64 = 1 << 17;

/// The fewest arrays a chunk of a split reduction folds: fewer, and the second pass costs
/// what the first saves.
const SPLIT_MIN_CHUNK: u64 = 32;

/// Chunks of a split reduction of `w` arrays of `elems` elements each (`HostStm::SplitReduce`):
/// enough invocations to fill the device, or 1 (no split) when one per element already does.
pub fn split_chunks(w: i64, elems: u64, software: bool) -> u64 {
    let target = if software { SPLIT_THREADS_SOFTWARE } else { SPLIT_THREADS_GPU };
    let by_threads = target / elems.max(1);
    let by_rows = w.max(0) as u64 / SPLIT_MIN_CHUNK;
    by_threads.min(by_rows).max(1)
}

/// Workgroups of a reduction, scan or histogram over `n` elements, at most `max`: a software
/// device's [`MAX_GROUPS`], or on a GPU [`GPU_MAX_GROUPS`], enough to fill a large one (an H100
/// holds 132 × 8 workgroups of 256 at once) with each workgroup's share in flight.
pub fn groups_for(n: i64, max: u32) -> u64 {
    let n = n.max(1) as u64;
    n.div_ceil(WORKGROUP as u64).clamp(1, max as u64)
}
