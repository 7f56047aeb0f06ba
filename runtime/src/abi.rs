//! The host side of the wasm backend's ABI (see `ogham::backend::wasm`), independent of the
//! engine that runs the module: packing [`Value`] arguments into linear memory, calling an entry
//! point, unpacking its results, and turning a trap into the interpreter's diagnostic. wasmtime
//! (natively) and the WebAssembly JS API (in `ogham-web`) implement [`Host`].

use ogham::backend::wasm::{elem_size, EntryAbi, ErrorCode, Manifest, ERR_ARGS, HEAP_BASE};
use ogham::diag::{Diagnostic, Phase, Span};
use ogham::prim::{f16, FloatType, IntType, PrimType, PrimValue};
use ogham::value::{ArrayValue, Value};

/// A wasm value crossing the boundary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Word {
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

/// Why a call did not return.
#[derive(Clone, Debug)]
pub enum CallError {
    /// The module trapped; the text is the engine's description.
    Trap(String),
    /// The host could not make the call at all.
    Host(Diagnostic),
}

/// An instantiated module, as the ABI needs it.
pub trait Host {
    /// Call the export `name`; its result, if it has one.
    fn call(&mut self, name: &str, args: &[Word]) -> Result<Option<Word>, CallError>;
    /// `n` bytes of memory from `addr`.
    fn read(&self, addr: usize, n: usize) -> Result<Vec<u8>, Diagnostic>;
    fn write(&mut self, addr: usize, bytes: &[u8]) -> Result<(), Diagnostic>;
    /// An exported i32 global (0 if it is missing).
    fn global_i32(&mut self, name: &str) -> i32;
    fn set_global_i32(&mut self, name: &str, v: i32);
}

pub fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Phase::Runtime, Span::DUMMY, format!("internal error: {}", msg.into()))
}

/// Append one element's little-endian bytes (no allocation per element: arguments can have
/// millions).
fn put_scalar(p: PrimValue, out: &mut Vec<u8>) {
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
fn read_scalar(t: PrimType, b: &[u8]) -> Option<PrimValue> {
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

fn word(p: PrimValue) -> Word {
    match p {
        PrimValue::Bool(b) => Word::I32(b as i32),
        PrimValue::I8(x) => Word::I32(x as i32),
        PrimValue::I16(x) => Word::I32(x as i32),
        PrimValue::I32(x) => Word::I32(x),
        PrimValue::U8(x) => Word::I32(x as i32),
        PrimValue::U16(x) => Word::I32(x as i32),
        PrimValue::U32(x) => Word::I32(x as i32),
        PrimValue::I64(x) => Word::I64(x),
        PrimValue::U64(x) => Word::I64(x as i64),
        PrimValue::F16(x) => Word::F32(x.to_f32()),
        PrimValue::F32(x) => Word::F32(x),
        PrimValue::F64(x) => Word::F64(x),
    }
}

fn call_i32(h: &mut impl Host, name: &str, args: &[Word]) -> Result<i32, CallError> {
    match h.call(name, args)? {
        Some(Word::I32(x)) => Ok(x),
        _ => Err(CallError::Host(internal(format!("`{name}` did not return an i32")))),
    }
}

fn reset(h: &mut impl Host) -> Result<(), Diagnostic> {
    match h.call("reset", &[]) {
        Ok(_) => Ok(()),
        Err(CallError::Trap(t)) => Err(internal(t)),
        Err(CallError::Host(d)) => Err(d),
    }
}

/// Run entry point `entry` of a loaded module on `args`, with the interpreter's checks and
/// messages.
pub fn run(
    h: &mut impl Host,
    manifest: &Manifest,
    entry: &str,
    args: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    run_with_peak(h, manifest, entry, args).map(|(results, _)| results)
}

/// Where the arena's break lives: an `i32` in memory that `reset` sets to `HEAP_BASE` and that
/// allocations only move up.
const BRK: usize = ogham::backend::wasm::BRK as usize;

/// [`run`], also returning the call's arena high-water mark: how far past `HEAP_BASE` the break
/// reached, in bytes (`None` if the host cannot read it). That covers the arguments, the results
/// and every array the call allocated; space freed by a loop iteration is reused, not counted
/// twice, but with threads each thread's chunk counts whole (at least 256 KiB). Read after the
/// call, before the arena is emptied.
pub fn run_with_peak(
    h: &mut impl Host,
    manifest: &Manifest,
    entry: &str,
    args: &[Value],
) -> Result<(Vec<Value>, Option<u64>), Diagnostic> {
    let Some(ep) = manifest.entry(entry) else {
        let names = manifest.entries.iter().map(|e| e.name.as_str());
        return Err(ogham::ir::unknown_entry(entry, names));
    };
    ogham::ir::check_entry_args(entry, &ep.params, ep.span, args)?;
    reset(h)?;
    let result = call(h, manifest, ep, args);
    let peak = h.read(BRK, 4).ok().and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
    reset(h)?;
    Ok((result?, peak.map(|b| u64::from(b.saturating_sub(HEAP_BASE)))))
}

fn call(
    h: &mut impl Host,
    manifest: &Manifest,
    ep: &EntryAbi,
    args: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    let mut dims = Vec::new();
    let mut vals = Vec::new();
    for a in args {
        match a {
            Value::Prim(p) => vals.push(word(*p)),
            Value::Array(av) => {
                dims.extend(av.shape.iter().map(|&d| Word::I64(d)));
                let mut bytes = Vec::with_capacity(av.data.len() * elem_size(av.elem) as usize);
                for p in &av.data {
                    put_scalar(*p, &mut bytes);
                }
                let ptr = call_i32(h, "alloc", &[Word::I64(bytes.len() as i64)]).map_err(|_| {
                    Diagnostic::runtime(Span::DUMMY, "out of memory: the arguments do not fit")
                })?;
                h.write(ptr as u32 as usize, &bytes)?;
                vals.push(Word::I32(ptr));
            }
        }
    }
    dims.extend(vals);
    let out = match call_i32(h, &ep.export, &dims) {
        Ok(x) => x,
        Err(CallError::Trap(t)) => return Err(trap_diagnostic(h, manifest, &t)),
        Err(CallError::Host(d)) => return Err(d),
    };
    let mut addr = out as u32 as usize;
    let mut results = Vec::new();
    for t in &ep.results {
        if t.rank == 0 {
            let b = h.read(addr, 8)?;
            results.push(Value::Prim(
                read_scalar(t.elem, &b).ok_or_else(|| internal("bad result slot"))?,
            ));
            addr += 8;
            continue;
        }
        let ptr = read_i64(h, addr)? as usize;
        let shape: Vec<i64> =
            (1..=t.rank).map(|k| read_i64(h, addr + 8 * k)).collect::<Result<_, _>>()?;
        addr += 8 * (1 + t.rank);
        let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?));
        let n = n.ok_or_else(|| internal("bad result shape"))?;
        let es = elem_size(t.elem) as usize;
        let bytes = h.read(ptr, n * es)?;
        let data: Vec<PrimValue> = bytes
            .chunks_exact(es)
            .map(|c| read_scalar(t.elem, c))
            .collect::<Option<_>>()
            .ok_or_else(|| internal("bad result element"))?;
        let av = ArrayValue::new(t.elem, shape, data)
            .ok_or_else(|| internal("a result does not match its shape"))?;
        results.push(Value::Array(av));
    }
    Ok(results)
}

fn read_i64(h: &impl Host, addr: usize) -> Result<i64, Diagnostic> {
    let b = h.read(addr, 8)?;
    Ok(i64::from_le_bytes(b.as_slice().try_into().map_err(|_| internal("bad slot"))?))
}

fn trap_diagnostic(h: &mut impl Host, manifest: &Manifest, trap: &str) -> Diagnostic {
    let code = ErrorCode::from_i32(h.global_i32("err_code"));
    let site = h.global_i32("err_site");
    let types: Vec<PrimType> = usize::try_from(site)
        .ok()
        .and_then(|s| manifest.sites.get(s))
        .map(|s| s.args.clone())
        .unwrap_or_default();
    let mut args = Vec::new();
    for (k, t) in types.iter().enumerate() {
        let v = h.read(ERR_ARGS as usize + 8 * k, 8).ok().and_then(|b| read_scalar(*t, &b));
        args.extend(v);
    }
    // Clear the error so the instance can be reused.
    h.set_global_i32("err_code", 0);
    h.set_global_i32("err_site", 0);
    if code == ErrorCode::None {
        return internal(format!("the wasm module trapped: {trap}"));
    }
    manifest.error(code, site, &args)
}
