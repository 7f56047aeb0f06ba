//! The host side of the wasm backend's ABI (see `ogham::backend::wasm`), independent of the
//! engine that runs the module: packing [`Value`] arguments into linear memory, calling an entry
//! point, unpacking its results, and turning a trap into the interpreter's diagnostic. wasmtime
//! (natively) and the WebAssembly JS API (in `ogham-web`) implement [`Host`].

use ogham::backend::wasm::{elem_size, EntryAbi, ErrorCode, Manifest, ERR_ARGS, HEAP_BASE};
use ogham::diag::{Diagnostic, Phase, Span};
use ogham::prim::{PrimType, PrimValue};
pub use ogham::value::packed::Packed;
use ogham::value::packed::{elem_count, read_scalar};
use ogham::value::Value;

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
    let packed: Vec<Packed> = args.iter().map(Packed::from).collect();
    let (results, peak) = run_packed(h, manifest, entry, &packed)?;
    let values =
        results.iter().map(|r| r.to_value().map_err(internal)).collect::<Result<_, _>>()?;
    Ok((values, peak))
}

/// [`run_with_peak`] on arguments and results in the module's own layout: the arrays' bytes are
/// copied in and out whole, never converted element by element.
pub fn run_packed(
    h: &mut impl Host,
    manifest: &Manifest,
    entry: &str,
    args: &[Packed],
) -> Result<(Vec<Packed>, Option<u64>), Diagnostic> {
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
    args: &[Packed],
) -> Result<Vec<Packed>, Diagnostic> {
    let mut dims = Vec::new();
    let mut vals = Vec::new();
    for a in args {
        match a {
            Packed::Prim(p) => vals.push(word(*p)),
            Packed::Array { elem, shape, bytes } => {
                let n = elem_count(shape).and_then(|n| n.checked_mul(elem_size(*elem) as usize));
                if n != Some(bytes.len()) {
                    return Err(internal("an argument's bytes do not match its shape"));
                }
                dims.extend(shape.iter().map(|&d| Word::I64(d)));
                let ptr = call_i32(h, "alloc", &[Word::I64(bytes.len() as i64)]).map_err(|_| {
                    Diagnostic::runtime(Span::DUMMY, "out of memory: the arguments do not fit")
                })?;
                h.write(ptr as u32 as usize, bytes)?;
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
            results.push(Packed::Prim(
                read_scalar(t.elem, &b).ok_or_else(|| internal("bad result slot"))?,
            ));
            addr += 8;
            continue;
        }
        let ptr = read_i64(h, addr)? as usize;
        let shape: Vec<i64> =
            (1..=t.rank).map(|k| read_i64(h, addr + 8 * k)).collect::<Result<_, _>>()?;
        addr += 8 * (1 + t.rank);
        let len = elem_count(&shape).and_then(|n| n.checked_mul(elem_size(t.elem) as usize));
        let bytes = h.read(ptr, len.ok_or_else(|| internal("bad result shape"))?)?;
        results.push(Packed::Array { elem: t.elem, shape, bytes });
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
