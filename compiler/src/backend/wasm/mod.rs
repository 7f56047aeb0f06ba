//! Core IR → one WebAssembly module per program (emitted with walrus, validated before it is
//! returned). The module is self-contained except for a few elementary functions it imports from
//! the host (module `math`), so the same bytes run under wasmtime and `WebAssembly.instantiate`.
//!
//! # ABI
//! * One memory, exported as `memory`. Bytes `[ERR_ARGS, ERR_ARGS + 8 * MAX_ERR_ARGS)` hold the
//!   values of a run-time error message; `[CONST_POOL, HEAP_BASE)` holds the module's vector
//!   constants (a data segment); everything from `HEAP_BASE` on is the arena.
//! * `alloc(bytes: i64) -> i32` bumps the arena pointer (16-byte aligned), growing memory as
//!   needed; `reset()` empties the arena. The host resets, allocates and fills the arguments,
//!   calls the entry point, reads the results, and resets again: one arena per call. The host
//!   must call `reset()` before the first `alloc`.
//! * Built with threads ([`Manifest::threads`]): the memory is imported (`env.memory`, shared,
//!   at most 65536 pages), and so is `threads.par_for(k: i32, n: i64, env: i32)`, which must run
//!   the export `par.K(env, start, end)` over `[0, n)` (in pieces, on any instances of the module
//!   sharing the memory, each calling `reset_thread()` first) and return when all are done; see
//!   `par.rs`.
//! * One export per entry point, named `entry.NAME`. Its parameters are the IR function's: one `i64`
//!   per dimension of each array argument first, then each argument: a scalar as itself (`bool`,
//!   8/16/32-bit integers as `i32`), an array as an `i32` pointer to its row-major elements
//!   (`bool` and 8-bit types take 1 byte, 16-bit 2, 32-bit 4, 64-bit 8). It returns an `i32`
//!   pointer to the result record: per result, an 8-byte slot with the scalar (stored as its own
//!   type at the slot's start) or, for an array, the pointer in one slot followed by one `i64`
//!   slot per dimension.
//! * Run-time errors store the message's values in the error area, set the exported globals
//!   `err_code` (an [`ErrorCode`]) and `err_site` (an index into [`Manifest::sites`]), and trap;
//!   the host reads both and renders the same message the interpreter gives
//!   ([`Manifest::error`]). A trap with `err_code == 0` is an internal error.

mod arena;
pub use arena::BRK;
mod elementary;
mod emit;
mod gen;
mod hist_fusion;
mod par;
mod scalar;
mod simd;

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir;
use crate::prim::{PrimType, PrimValue};

/// Where the values of a run-time error message are stored (8 bytes each).
pub const ERR_ARGS: u32 = 64;
pub const MAX_ERR_ARGS: u32 = 96;
/// Where the module's v128 constants live (see `Gen::v128_const`).
pub const CONST_POOL: u32 = 1024;
/// The first byte of the arena.
pub const HEAP_BASE: u32 = 4096;
/// What an entry point's export is named: this prefix, then the entry point's name.
pub const ENTRY_PREFIX: &str = "entry.";

/// The value of the `err_code` global after a trap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// No error was reported: the trap is a compiler bug.
    None = 0,
    /// A run-time error at a site (bounds, sizes, assertion, division by zero...).
    Site = 1,
    /// The arena could not grow.
    OutOfMemory = 2,
}

impl ErrorCode {
    pub fn from_i32(c: i32) -> ErrorCode {
        match c {
            1 => ErrorCode::Site,
            2 => ErrorCode::OutOfMemory,
            _ => ErrorCode::None,
        }
    }
}

/// One place that can fail at run time: its span and message, where each `{}` is replaced by the
/// next value of the error area, read as the corresponding type of `args`.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub span: Span,
    pub msg: String,
    pub args: Vec<PrimType>,
}

/// What the host needs to call a compiled program.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryAbi {
    pub name: String,
    /// The export's name.
    pub export: String,
    pub params: Vec<ir::EntryType>,
    pub results: Vec<ir::EntryType>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Manifest {
    pub entries: Vec<EntryAbi>,
    pub sites: Vec<Site>,
    /// Built with threads: the module imports its memory (`env.memory`, shared) and the host's
    /// `threads.par_for`, and exports `reset_thread` and the parallel maps `par.K`.
    pub threads: bool,
}

/// A compiled program: the module's bytes and how to call it.
#[derive(Clone, Debug)]
pub struct WasmModule {
    pub bytes: Vec<u8>,
    pub manifest: Manifest,
}

/// Code generation options.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Use SIMD128 instructions for inner loops where they apply.
    pub simd: bool,
    /// Run outermost maps on every thread the host has (see `par.rs`). The module then needs
    /// the threads proposal (shared memory, atomics).
    pub threads: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { simd: true, threads: false }
    }
}

/// Compile a program. Constructs the backend does not support yet are `unsupported: ...`
/// errors at their spans.
pub fn compile(prog: &ir::Program, opts: &Options) -> Result<WasmModule, Vec<Diagnostic>> {
    let prog = crate::opt::for_backends(prog);
    let (mut module, manifest) = gen::generate(&prog, opts)?;
    let bytes = module.emit_wasm();
    // Re-parsing validates the module (with SIMD enabled).
    if let Err(e) = walrus::Module::from_buffer(&bytes) {
        return Err(vec![Diagnostic::new(
            Phase::Lower,
            Span::DUMMY,
            format!("internal error: the generated wasm module does not validate: {e:#}"),
        )]);
    }
    Ok(WasmModule { bytes, manifest })
}

/// The module in the WebAssembly text format.
pub fn to_wat(bytes: &[u8]) -> Result<String, String> {
    wasmprinter::print_bytes(bytes).map_err(|e| format!("{e:#}"))
}

impl Manifest {
    pub fn entry(&self, name: &str) -> Option<&EntryAbi> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The diagnostic for a trap: `code` and `site` are the module's globals, `args` the values
    /// read from the error area (as the site's argument types say).
    pub fn error(&self, code: ErrorCode, site: i32, args: &[PrimValue]) -> Diagnostic {
        let site = usize::try_from(site).ok().and_then(|s| self.sites.get(s));
        match (code, site) {
            (ErrorCode::OutOfMemory, s) => Diagnostic::runtime(
                s.map_or(Span::DUMMY, |s| s.span),
                "out of memory: the arena cannot grow",
            ),
            (ErrorCode::Site, Some(s)) => Diagnostic::runtime(s.span, fill(&s.msg, args)),
            _ => Diagnostic::runtime(Span::DUMMY, "internal error: the wasm module trapped"),
        }
    }
}

/// Replace each `{}` by the next value, as the interpreter prints values in messages.
fn fill(msg: &str, args: &[PrimValue]) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut vals = args.iter();
    let mut rest = msg;
    while let Some(k) = rest.find("{}") {
        out.push_str(&rest[..k]);
        match vals.next() {
            Some(v) => out.push_str(&value_text(*v)),
            None => out.push_str("{}"),
        }
        rest = &rest[k + 2..];
    }
    out.push_str(rest);
    out
}

fn value_text(p: PrimValue) -> String {
    match p {
        PrimValue::F16(x) => x.to_f32().to_string(),
        PrimValue::F32(x) => x.to_string(),
        PrimValue::F64(x) => x.to_string(),
        PrimValue::Bool(b) => b.to_string(),
        _ => p.as_i128().map_or_else(String::new, |i| i.to_string()),
    }
}

/// The bytes an element of `t` takes in memory.
pub fn elem_size(t: PrimType) -> u32 {
    match t {
        PrimType::Bool => 1,
        PrimType::Int(i) => i.bits() / 8,
        PrimType::Float(f) => f.bits() / 8,
    }
}

/// The elementary functions the module may import from module `math`, by name (`f64.exp`), with
/// their arity. Every host must provide them all; their accuracy is the host's `libm`.
pub const MATH_IMPORTS: &[(&str, usize)] = &[
    ("exp", 1),
    ("log", 1),
    ("log2", 1),
    ("log10", 1),
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("cbrt", 1),
    ("log1p", 1),
    ("asinh", 1),
    ("acosh", 1),
    ("atanh", 1),
    ("atan2", 2),
    ("hypot", 2),
    ("pow", 2),
    ("fmod", 2),
    ("fma", 3),
];

#[cfg(test)]
mod tests;

impl Manifest {
    /// The manifest as JSON, for hosts outside Rust (`runtime/js/ogham.mjs`).
    pub fn to_json(&self) -> String {
        fn s(x: &str) -> String {
            let mut o = String::from("\"");
            for c in x.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        }
        let ty =
            |t: &ir::EntryType| format!("{{\"elem\":{},\"rank\":{}}}", s(t.elem.name()), t.rank);
        let entries: Vec<String> = self
            .entries
            .iter()
            .map(|e| {
                let ps: Vec<String> = e.params.iter().map(ty).collect();
                let rs: Vec<String> = e.results.iter().map(ty).collect();
                format!(
                    "{{\"name\":{},\"export\":{},\"params\":[{}],\"results\":[{}]}}",
                    s(&e.name),
                    s(&e.export),
                    ps.join(","),
                    rs.join(",")
                )
            })
            .collect();
        let sites: Vec<String> = self
            .sites
            .iter()
            .map(|x| {
                let args: Vec<String> = x.args.iter().map(|t| s(t.name())).collect();
                format!(
                    "{{\"span\":[{},{}],\"msg\":{},\"args\":[{}]}}",
                    x.span.start,
                    x.span.end,
                    s(&x.msg),
                    args.join(",")
                )
            })
            .collect();
        format!(
            "{{\"entries\":[{}],\"sites\":[{}],\"threads\":{}}}",
            entries.join(","),
            sites.join(","),
            self.threads
        )
    }
}
