//! The npm package `ogham`: the whole compiler in WebAssembly, for browsers and Node.
//!
//! * `compile(source)` → `{diagnostics, stages, timings, entries}` (see `index.d.ts`).
//! * `run(source, entry, args, {backend})` → a promise of the results, each
//!   `{type, shape, data, text}` with `data` a typed array; errors reject with an `Error` that
//!   carries `diagnostics` of the same shape as `compile`'s.
//! * `load(source, {backend})` → a promise of a [`Program`]: compiled (and, for webgpu, its
//!   pipelines created) once, so that `program.run(entry, args)` only runs. Arguments may be
//!   typed arrays with shapes (see `args.rs`), so large inputs never go through text.
//!
//! The wasm backend instantiates the generated module with the host's `WebAssembly.instantiate`
//! and speaks the module's ABI through `ogham_runtime::abi`; its `math` imports are this
//! module's own `math_*` exports. Where the host has shared memory and workers, the module is
//! built with threads and instantiated by the package's `threads.js` (registered with
//! `setThreadHost`) on a shared memory with a pool of workers; elsewhere, or with `threads: 1`,
//! on one thread. The interpreter runs inside this module. The webgpu backend runs the GPU
//! program's host schedule here (`ogham::backend::wgsl::exec`, the same code as natively) on the
//! browser's WebGPU through `ogham_runtime::gpu`, awaiting every read-back.

mod args;
mod pipeline;

use js_sys::{Array, Object, Reflect};
use ogham::backend::{wasm, wgsl};
use ogham::ir::AdMode;
use ogham::prim::{f16, PrimValue};
use ogham::value::{text, Value};
use ogham_runtime::abi::{self, CallError, Packed, Word};
use ogham_runtime::gpu::{Gpu, Loaded};
use std::cell::RefCell;
use std::ops::Rem;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use pipeline::{compile as compile_stages, line_col, Diag, Place, Stages};

fn set(o: &Object, k: &str, v: impl Into<JsValue>) {
    let _ = Reflect::set(o, &JsValue::from_str(k), &v.into());
}

fn opt_str(s: &Option<String>) -> JsValue {
    s.as_deref().map_or(JsValue::NULL, JsValue::from_str)
}

fn now() -> f64 {
    let perf = Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let f = perf.as_ref().and_then(|p| Reflect::get(p, &"now".into()).ok());
    match (perf, f.and_then(|f| f.dyn_into::<js_sys::Function>().ok())) {
        (Some(p), Some(f)) => f.call0(&p).ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
        _ => js_sys::Date::now(),
    }
}

fn diag_js(d: &Diag) -> Object {
    let o = Object::new();
    set(&o, "message", d.message.as_str());
    set(&o, "severity", d.severity);
    set(&o, "phase", d.phase);
    match &d.span {
        Some(p) => {
            let s = Object::new();
            set(&s, "start", p.start as f64);
            set(&s, "end", p.end as f64);
            set(&s, "line", p.line as f64);
            set(&s, "col", p.col as f64);
            set(&o, "span", s);
        }
        None => set(&o, "span", JsValue::NULL),
    }
    set(&o, "hint", opt_str(&d.hint));
    o
}

fn diags_js(ds: &[Diag]) -> Array {
    ds.iter().map(diag_js).collect()
}

/// Compile `source` through every stage; never throws. `options.derivative` is `"vjp"` (the
/// default) or `"jvp"`: which derivative of each entry point `stages.derivative` shows.
#[wasm_bindgen]
pub fn compile(source: &str, options: JsValue) -> JsValue {
    let mode = match Reflect::get(&options, &"derivative".into()).ok().and_then(|v| v.as_string()) {
        Some(m) if m == "jvp" => AdMode::Jvp,
        _ => AdMode::Vjp,
    };
    let c = pipeline::compile(source, &now, mode);
    let o = Object::new();
    set(&o, "diagnostics", diags_js(&c.diagnostics));
    let st = Object::new();
    set(&st, "elaborated", opt_str(&c.stages.elaborated));
    set(&st, "ir", opt_str(&c.stages.ir));
    let der = Object::new();
    for (e, text) in &c.stages.derivative {
        set(&der, e, text.as_str());
    }
    let compiled = c.stages.ir.is_some();
    set(&st, "derivative", if compiled { JsValue::from(der) } else { JsValue::NULL });
    set(&st, "wgsl", opt_str(&c.stages.wgsl));
    set(&st, "wasm", opt_str(&c.stages.wasm));
    set(&o, "stages", st);
    let t = Object::new();
    for (name, ms) in &c.timings {
        set(&t, name, *ms);
    }
    set(&o, "timings", t);
    set(&o, "entries", c.entries.iter().map(|e| JsValue::from_str(e)).collect::<Array>());
    o.into()
}

/// An `Error` whose message is the first diagnostic's, carrying them all.
fn rejection(ds: &[Diag]) -> JsValue {
    let msg = ds.first().map_or("error", |d| d.message.as_str());
    let e = js_sys::Error::new(msg);
    set(&e, "diagnostics", diags_js(ds));
    if let Some(d) = ds.first() {
        set(&e, "severity", d.severity);
        set(&e, "phase", d.phase);
        let first = diag_js(d);
        let span = Reflect::get(&first, &"span".into()).unwrap_or(JsValue::NULL);
        set(&e, "span", span);
        set(&e, "hint", opt_str(&d.hint));
    }
    e.into()
}

/// A result as `{type, shape, data}`, with `text` (Futhark's value syntax) when `with_text`:
/// printing millions of elements costs more than the run, so programs leave it to a getter.
fn value_js(v: &Value, with_text: bool) -> Object {
    let (elem, shape, data): (_, Vec<i64>, &[PrimValue]) = match v {
        Value::Prim(p) => (p.ty(), vec![], std::slice::from_ref(p)),
        Value::Array(a) => (a.elem, a.shape.clone(), &a.data),
    };
    macro_rules! typed {
        ($arr:ty, $($pat:pat => $e:expr),*) => {{
            let xs: Vec<_> = data.iter().map(|p| match *p { $($pat => $e,)* _ => Default::default() }).collect();
            JsValue::from(<$arr>::from(&xs[..]))
        }};
    }
    let data_js = match elem.name() {
        "bool" => typed!(js_sys::Uint8Array, PrimValue::Bool(b) => b as u8),
        "i8" => typed!(js_sys::Int8Array, PrimValue::I8(x) => x),
        "i16" => typed!(js_sys::Int16Array, PrimValue::I16(x) => x),
        "i32" => typed!(js_sys::Int32Array, PrimValue::I32(x) => x),
        "i64" => typed!(js_sys::BigInt64Array, PrimValue::I64(x) => x),
        "u8" => typed!(js_sys::Uint8Array, PrimValue::U8(x) => x),
        "u16" => typed!(js_sys::Uint16Array, PrimValue::U16(x) => x),
        "u32" => typed!(js_sys::Uint32Array, PrimValue::U32(x) => x),
        "u64" => typed!(js_sys::BigUint64Array, PrimValue::U64(x) => x),
        "f16" => typed!(js_sys::Float32Array, PrimValue::F16(x) => x.to_f32()),
        "f32" => typed!(js_sys::Float32Array, PrimValue::F32(x) => x),
        _ => typed!(js_sys::Float64Array, PrimValue::F64(x) => x),
    };
    let o = Object::new();
    set(&o, "type", elem.name());
    set(&o, "shape", shape.iter().map(|&d| JsValue::from(d as f64)).collect::<Array>());
    set(&o, "data", data_js);
    if with_text {
        set(&o, "text", text::format_value(v));
    }
    o
}

/// A result as [`value_js`] gives it, from the module's bytes: an array's typed array is a view
/// of one copy of them (an `f16` array, which JS has no typed array for, is widened to f32).
fn packed_js(p: &Packed, with_text: bool) -> Result<Object, Vec<Diag>> {
    let value = |p: &Packed| p.to_value().map_err(|m| vec![pipeline::diag(&abi::internal(m), "")]);
    let Packed::Array { elem, shape, bytes } = p else {
        return Ok(value_js(&value(p)?, with_text));
    };
    let buf = js_sys::Uint8Array::from(&bytes[..]).buffer();
    let data_js: JsValue = match elem.name() {
        "bool" | "u8" => js_sys::Uint8Array::new(&buf).into(),
        "i8" => js_sys::Int8Array::new(&buf).into(),
        "i16" => js_sys::Int16Array::new(&buf).into(),
        "i32" => js_sys::Int32Array::new(&buf).into(),
        "i64" => js_sys::BigInt64Array::new(&buf).into(),
        "u16" => js_sys::Uint16Array::new(&buf).into(),
        "u32" => js_sys::Uint32Array::new(&buf).into(),
        "u64" => js_sys::BigUint64Array::new(&buf).into(),
        "f32" => js_sys::Float32Array::new(&buf).into(),
        "f64" => js_sys::Float64Array::new(&buf).into(),
        _ => return Ok(value_js(&value(p)?, with_text)),
    };
    let o = Object::new();
    set(&o, "type", elem.name());
    set(&o, "shape", shape.iter().map(|&d| JsValue::from(d as f64)).collect::<Array>());
    set(&o, "data", data_js);
    if with_text {
        set(&o, "text", text::format_value(&value(p)?));
    }
    Ok(o)
}

/// The results of a run as JS objects.
fn results_js(rs: &[Packed], with_text: bool) -> Result<JsValue, JsValue> {
    let objs = rs.iter().map(|r| packed_js(r, with_text)).collect::<Result<Array, _>>();
    objs.map(JsValue::from).map_err(|ds| rejection(&ds))
}

// The `math` functions a generated module imports, computed as the interpreter does. They are
// exports of this module, named `math_` and the import's name with `_` for its first `.`
// (`math_f32_exp` is `math.f32.exp`), so that a generated module calls them directly (no JS in
// between), and so that a worker thread running a generated module in parallel can instantiate
// this module for them: every thread computes what the interpreter computes.
macro_rules! unary {
    ($($f:ident: $e32:ident, $e64:ident;)*) => {$(
        #[doc(hidden)]
        #[wasm_bindgen]
        pub fn $e32(x: f32) -> f32 {
            x.$f()
        }
        #[doc(hidden)]
        #[wasm_bindgen]
        pub fn $e64(x: f64) -> f64 {
            x.$f()
        }
    )*};
}

macro_rules! binary {
    ($($f:ident: $e32:ident, $e64:ident;)*) => {$(
        #[doc(hidden)]
        #[wasm_bindgen]
        pub fn $e32(x: f32, y: f32) -> f32 {
            x.$f(y)
        }
        #[doc(hidden)]
        #[wasm_bindgen]
        pub fn $e64(x: f64, y: f64) -> f64 {
            x.$f(y)
        }
    )*};
}

unary! {
    exp: math_f32_exp, math_f64_exp;
    ln: math_f32_log, math_f64_log;
    log2: math_f32_log2, math_f64_log2;
    log10: math_f32_log10, math_f64_log10;
    sin: math_f32_sin, math_f64_sin;
    cos: math_f32_cos, math_f64_cos;
    tan: math_f32_tan, math_f64_tan;
    asin: math_f32_asin, math_f64_asin;
    acos: math_f32_acos, math_f64_acos;
    atan: math_f32_atan, math_f64_atan;
    sinh: math_f32_sinh, math_f64_sinh;
    cosh: math_f32_cosh, math_f64_cosh;
    tanh: math_f32_tanh, math_f64_tanh;
    cbrt: math_f32_cbrt, math_f64_cbrt;
    ln_1p: math_f32_log1p, math_f64_log1p;
    asinh: math_f32_asinh, math_f64_asinh;
    acosh: math_f32_acosh, math_f64_acosh;
    atanh: math_f32_atanh, math_f64_atanh;
}

// atan2(y, x) is `y.atan2(x)`: the first argument is the receiver, as for the others.
binary! {
    atan2: math_f32_atan2, math_f64_atan2;
    hypot: math_f32_hypot, math_f64_hypot;
    powf: math_f32_pow, math_f64_pow;
    rem: math_f32_fmod, math_f64_fmod;
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f32_fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f64_fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f16_round(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f16_from_f64(x: f64) -> f32 {
    f16::from_f64(x).to_f32()
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f16_to_bits(x: f32) -> i32 {
    f16::from_f32(x).to_bits() as i32
}

#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f16_from_bits(b: i32) -> f32 {
    f16::from_bits(b as u16).to_f32()
}

/// As the interpreter: NaN and ±inf give 0, other values wrap modulo 2^64.
#[doc(hidden)]
#[wasm_bindgen]
pub fn math_f64_to_i64_wrapping(x: f64) -> i64 {
    if !x.is_finite() || x.abs() >= 1.7014118346046923e38 {
        0
    } else {
        x.trunc() as i128 as i64
    }
}

/// The `math` functions this module exports: each import's name (`f32.exp`) and export's name.
fn math_exports(exports: &Object) -> Vec<(String, String)> {
    let keys = Object::keys(exports);
    keys.iter()
        .filter_map(|k| k.as_string())
        .filter_map(|k| {
            let (ty, f) = k.strip_prefix("math_")?.split_once('_')?;
            Some((format!("{ty}.{f}"), k.clone()))
        })
        .collect()
}

/// The imports of a generated module that this module provides, `{math: {...}}` (its own
/// `math_*` exports), and the export's name of each (`{"f32.exp": "math_f32_exp", ...}`), which
/// a worker thread needs to take them from its own instance of this module.
fn math_imports() -> (Object, Object) {
    // The exports object has a null prototype, so it is no `instanceof Object`.
    let exports: Object = wasm_bindgen::exports().unchecked_into();
    let (m, names) = (Object::new(), Object::new());
    for (name, key) in math_exports(&exports) {
        if let Ok(f) = Reflect::get(&exports, &key.as_str().into()) {
            set(&m, &name, f);
            set(&names, &name, key.as_str());
        }
    }
    let imports = Object::new();
    set(&imports, "math", m);
    (imports, names)
}

/// A module instantiated by the host's WebAssembly engine.
struct JsHost {
    exports: Object,
    memory: js_sys::WebAssembly::Memory,
    /// The worker threads that run its parallel maps with the calling thread (a `Pool` of
    /// runtime/js/ogham.mjs), stopped when the program is dropped; null without workers.
    pool: JsValue,
    /// How many threads its parallel maps run on, the calling one included.
    threads: u32,
}

/// Stop a pool's worker threads (nothing for null).
fn close_pool(pool: &JsValue) {
    let close = Reflect::get(pool, &"close".into()).ok();
    if let Some(close) = close.and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
        let _ = close.call0(pool);
    }
}

impl Drop for JsHost {
    fn drop(&mut self) {
        close_pool(&self.pool);
    }
}

fn internal(msg: impl Into<String>) -> ogham::Diagnostic {
    abi::internal(msg)
}

impl JsHost {
    fn bytes(&self) -> js_sys::Uint8Array {
        js_sys::Uint8Array::new(&self.memory.buffer())
    }

    fn global(&self, name: &str) -> Option<JsValue> {
        Reflect::get(&self.exports, &name.into()).ok().filter(|g| !g.is_undefined())
    }
}

/// The message of a thrown JS value (a `WebAssembly.RuntimeError` for a trap).
fn error_text(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => String::from(err.message()),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

impl abi::Host for JsHost {
    fn call(&mut self, name: &str, args: &[Word]) -> Result<Option<Word>, CallError> {
        let f = Reflect::get(&self.exports, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or_else(|| {
                CallError::Host(internal(format!("the module has no export `{name}`")))
            })?;
        let xs: Array = args
            .iter()
            .map(|w| match *w {
                Word::I32(x) => JsValue::from(x),
                Word::I64(x) => JsValue::from(js_sys::BigInt::from(x)),
                Word::F32(x) => JsValue::from(x),
                Word::F64(x) => JsValue::from(x),
            })
            .collect();
        match f.apply(&JsValue::NULL, &xs) {
            Ok(v) if v.is_undefined() => Ok(None),
            // Only `alloc` and the entry points return a value, and both return an i32.
            Ok(v) => Ok(v.as_f64().map(|x| Word::I32(x as i32))),
            Err(e) => Err(CallError::Trap(error_text(&e))),
        }
    }

    fn read(&self, addr: usize, n: usize) -> Result<Vec<u8>, ogham::Diagnostic> {
        let mem = self.bytes();
        let end = addr.checked_add(n).filter(|&e| e <= mem.length() as usize);
        let end = end.ok_or_else(|| internal("a result lies outside memory"))?;
        Ok(mem.subarray(addr as u32, end as u32).to_vec())
    }

    fn write(&mut self, addr: usize, bytes: &[u8]) -> Result<(), ogham::Diagnostic> {
        let mem = self.bytes();
        if addr.checked_add(bytes.len()).is_none_or(|e| e > mem.length() as usize) {
            return Err(internal("an argument lies outside memory"));
        }
        mem.set(&js_sys::Uint8Array::from(bytes), addr as u32);
        Ok(())
    }

    fn global_i32(&mut self, name: &str) -> i32 {
        self.global(name)
            .and_then(|g| Reflect::get(&g, &"value".into()).ok())
            .and_then(|v| v.as_f64())
            .map_or(0, |x| x as i32)
    }

    fn set_global_i32(&mut self, name: &str, v: i32) {
        if let Some(g) = self.global(name) {
            let _ = Reflect::set(&g, &"value".into(), &JsValue::from(v));
        }
    }
}

async fn instantiate(m: &wasm::WasmModule) -> Result<JsHost, ogham::Diagnostic> {
    let p = js_sys::WebAssembly::instantiate_buffer(&m.bytes, &math_imports().0);
    let res = wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(|e| internal(format!("cannot instantiate the module: {e:?}")))?;
    let instance = Reflect::get(&res, &"instance".into())
        .map_err(|_| internal("WebAssembly.instantiate gave no instance"))?;
    // The exports object has a null prototype, so it is no `instanceof Object`: check by hand.
    let exports: Object = Reflect::get(&instance, &"exports".into())
        .ok()
        .filter(JsValue::is_object)
        .map(JsCast::unchecked_into)
        .ok_or_else(|| internal("the instance has no exports"))?;
    let memory = Reflect::get(&exports, &"memory".into())
        .ok()
        .and_then(|m| m.dyn_into().ok())
        .ok_or_else(|| internal("the module exports no memory"))?;
    Ok(JsHost { exports, memory, pool: JsValue::NULL, threads: 1 })
}

thread_local! {
    /// The package's thread support (web/threads.js), which index.js registers: without it,
    /// programs run on one thread.
    static THREAD_HOST: RefCell<JsValue> = const { RefCell::new(JsValue::UNDEFINED) };
}

/// Registers the package's thread support: an object with `available()` (a promise of how many
/// threads the host can run a generated module on, 1 where it has no shared memory or no
/// workers) and `instantiate(bytes, threads, module, imports, names)` (a promise of `{exports,
/// memory, pool, threads}`: the module built with threads, instantiated with `imports` on a
/// shared memory, its parallel maps run by a pool of workers, each of which instantiates
/// `module`, this compiler, for the same `math` functions, named by `names`).
#[doc(hidden)]
#[wasm_bindgen(js_name = setThreadHost)]
pub fn set_thread_host(host: JsValue) {
    THREAD_HOST.with(|h| *h.borrow_mut() = host);
}

/// Call method `name` of the thread host and await its result; `None` without a thread host.
async fn thread_host(name: &str, args: &[JsValue]) -> Option<Result<JsValue, JsValue>> {
    let host = THREAD_HOST.with(|h| h.borrow().clone());
    let f = Reflect::get(&host, &name.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    let args: Array = args.iter().collect();
    Some(match f.apply(&host, &args) {
        Ok(p) => wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&p)).await,
        Err(e) => Err(e),
    })
}

/// How many threads a generated module may run on here (1 without shared memory or workers).
async fn available_threads() -> u32 {
    match thread_host("available", &[]).await {
        Some(Ok(n)) => n.as_f64().filter(|n| *n >= 1.0).map_or(1, |n| n.min(MAX_THREADS) as u32),
        _ => 1,
    }
}

const MAX_THREADS: f64 = 1024.0;

/// The program built with threads and instantiated with a pool of `threads - 1` workers; `None`
/// where that cannot be done here (no thread host, no shared memory, a worker that did not
/// start), so that the program runs on one thread instead.
async fn instantiate_threaded(
    ir: &ogham::ir::Program,
    threads: u32,
) -> Option<(wasm::WasmModule, JsHost)> {
    let module = wasm::compile(ir, &wasm::Options { threads: true, ..wasm::Options::default() });
    let module = module.ok()?;
    let bytes = js_sys::Uint8Array::from(&module.bytes[..]);
    let (imports, names) = math_imports();
    let args = [bytes.into(), threads.into(), wasm_bindgen::module(), imports.into(), names.into()];
    let r = thread_host("instantiate", &args).await?.ok()?;
    let get = |k: &str| Reflect::get(&r, &k.into()).ok().filter(|v| !v.is_undefined());
    let pool = get("pool").unwrap_or(JsValue::NULL);
    let threads = get("threads").and_then(|t| t.as_f64()).map_or(1, |t| t as u32);
    let exports = get("exports").filter(JsValue::is_object);
    match (exports, get("memory").and_then(|m| m.dyn_into().ok())) {
        (Some(exports), Some(memory)) => {
            Some((module, JsHost { exports: exports.unchecked_into(), memory, pool, threads }))
        }
        _ => {
            close_pool(&pool);
            None
        }
    }
}

/// A program compiled for one backend, ready to run many times.
struct Prepared {
    source: String,
    backend: &'static str,
    /// The entry points' parameter types, which arguments given as JS values are converted to.
    entries: Vec<ogham::ir::EntryPoint>,
    exec: Exec,
}

enum Exec {
    Interp(Box<ogham::driver::Compiled>),
    /// The host is borrowed only inside the synchronous `abi::run`, never across an await.
    Wasm {
        module: wasm::WasmModule,
        host: RefCell<JsHost>,
    },
    /// The pipelines belong to one device: after a device loss the program is loaded again
    /// onto the new one.
    WebGpu {
        prog: Box<wgsl::GpuProgram>,
        loaded: RefCell<Option<(Rc<Gpu>, Rc<Loaded>)>>,
    },
}

fn diags(ds: &[ogham::Diagnostic], source: &str) -> Vec<Diag> {
    ds.iter().map(|d| pipeline::diag(d, source)).collect()
}

fn backend_name(options: &JsValue) -> Result<&'static str, Vec<Diag>> {
    let name = if options.is_object() {
        Reflect::get(options, &"backend".into()).ok().and_then(|b| b.as_string())
    } else {
        None
    };
    match name.as_deref().unwrap_or("wasm") {
        "wasm" => Ok("wasm"),
        "interp" => Ok("interp"),
        "webgpu" => Ok("webgpu"),
        other => Err(vec![Diag {
            message: format!("unknown backend `{other}`"),
            severity: "error",
            phase: "value error",
            span: None,
            hint: Some("backends: `wasm`, `interp`, `webgpu`".into()),
        }]),
    }
}

/// `options.threads`: how many threads the wasm backend may run a program on (`None`: every
/// core, where the host allows threads).
fn threads_option(options: &JsValue) -> Result<Option<u32>, Vec<Diag>> {
    let v = if options.is_object() {
        Reflect::get(options, &"threads".into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    };
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if (1.0..=MAX_THREADS).contains(&n) && n.fract() == 0.0 => Ok(Some(n as u32)),
        _ => Err(vec![Diag {
            message: format!("`threads` must be a whole number from 1 to {MAX_THREADS}"),
            severity: "error",
            phase: "value error",
            span: None,
            hint: Some("`threads: 1` runs programs on the calling thread only".into()),
        }]),
    }
}

/// Compile a checked program for `backend`: the wasm module instantiated (built with threads and
/// given worker threads when `threads`, or else the host, allows more than one), or the GPU
/// program's pipelines created on the device.
async fn prepare(
    source: String,
    compiled: ogham::driver::Compiled,
    backend: &'static str,
    threads: Option<u32>,
) -> Result<Prepared, Vec<Diag>> {
    let entries = compiled.ir.entries.clone();
    let exec = match backend {
        "interp" => Exec::Interp(Box::new(compiled)),
        "wasm" => {
            let threads = match threads {
                Some(n) => n,
                None => available_threads().await,
            };
            let threaded = match threads {
                1 => None,
                n => instantiate_threaded(&compiled.ir, n).await,
            };
            let (module, host) = match threaded {
                Some(mh) => mh,
                None => {
                    let module = wasm::compile(&compiled.ir, &wasm::Options::default())
                        .map_err(|ds| diags(&ds, &source))?;
                    let host = instantiate(&module).await.map_err(|d| diags(&[d], &source))?;
                    (module, host)
                }
            };
            Exec::Wasm { module, host: RefCell::new(host) }
        }
        _ => {
            let prog = wgsl::compile(&compiled.ir).map_err(|ds| diags(&ds, &source))?;
            let gpu = gpu().await.map_err(|d| diags(&[d], &source))?;
            let loaded = gpu.load_program(prog.clone()).await.map_err(|d| diags(&[d], &source))?;
            Exec::WebGpu {
                prog: Box::new(prog),
                loaded: RefCell::new(Some((gpu, Rc::new(loaded)))),
            }
        }
    };
    Ok(Prepared { source, backend, entries, exec })
}

impl Prepared {
    fn params(&self, entry: &str) -> Option<&[ogham::ir::EntryType]> {
        self.entries.iter().find(|e| e.name == entry).map(|e| e.params.as_slice())
    }

    async fn run(&self, entry: &str, args: &[Packed]) -> Result<Vec<Packed>, Vec<Diag>> {
        let one = |d: ogham::Diagnostic| vec![pipeline::diag(&d, &self.source)];
        // The wasm module and the GPU executor take arrays as bytes; the interpreter as values.
        let values = || -> Result<Vec<Value>, Vec<Diag>> {
            let value = |p: &Packed| p.to_value().map_err(abi::internal);
            args.iter().map(value).collect::<Result<_, _>>().map_err(one)
        };
        let packed = |vs: Vec<Value>| vs.iter().map(Packed::from).collect();
        match &self.exec {
            Exec::Interp(c) => {
                ogham::driver::run_interp(c, entry, &values()?).map(packed).map_err(one)
            }
            Exec::Wasm { module, host } => {
                let mut host = host.borrow_mut();
                abi::run_packed(&mut *host, &module.manifest, entry, args)
                    .map(|(rs, _)| rs)
                    .map_err(one)
            }
            Exec::WebGpu { prog, loaded } => {
                let current = loaded.borrow().clone().filter(|(g, _)| !g.is_lost());
                let (g, l) = match current {
                    Some(gl) => gl,
                    None => {
                        let g = gpu().await.map_err(one)?;
                        let l = Rc::new(g.load_program((**prog).clone()).await.map_err(one)?);
                        *loaded.borrow_mut() = Some((g.clone(), l.clone()));
                        (g, l)
                    }
                };
                g.run_entry_packed(&l, entry, args).await.map_err(one)
            }
        }
    }
}

/// An argument error: it points at no place in the program.
fn arg_error(message: String) -> Vec<Diag> {
    vec![Diag { message, severity: "error", phase: "value error", span: None, hint: None }]
}

/// Arguments in Futhark's value syntax.
fn text_args(t: &str) -> Result<Vec<Value>, Vec<Diag>> {
    // Argument errors point into the argument text, not the program.
    text::parse_values(t).map_err(|d| {
        let mut d = pipeline::diag(&d, "");
        d.span = None;
        vec![d]
    })
}

/// Elements, with the shape they imply (a nested plain array's).
type Elements = (args::Data, Option<Vec<i64>>);

/// The elements of a typed array, or of a (nested) plain array of numbers with its shape.
fn js_data(v: &JsValue) -> Result<Option<Elements>, String> {
    use args::Data;
    macro_rules! typed {
        ($($ty:ty => $variant:ident),*) => {$(
            if let Some(a) = v.dyn_ref::<$ty>() {
                return Ok(Some((Data::$variant(a.to_vec()), None)));
            }
        )*};
    }
    typed! {
        js_sys::Float32Array => F32, js_sys::Float64Array => F64, js_sys::Int32Array => I32,
        js_sys::BigInt64Array => I64, js_sys::Uint8Array => U8, js_sys::Int8Array => I8,
        js_sys::Int16Array => I16, js_sys::Uint16Array => U16, js_sys::Uint32Array => U32,
        js_sys::BigUint64Array => U64, js_sys::Uint8ClampedArray => U8
    }
    if !Array::is_array(v) {
        return Ok(None);
    }
    // A nested plain array: regular, its leaves numbers or booleans.
    fn walk(
        v: &JsValue,
        depth: usize,
        shape: &mut Vec<i64>,
        out: &mut Vec<f64>,
    ) -> Result<(), String> {
        if Array::is_array(v) {
            let a: &Array = v.unchecked_ref();
            let n = a.length() as i64;
            match shape.get(depth) {
                Some(&d) if d != n => return Err("the nested arrays are not regular".into()),
                Some(_) => {}
                None if depth == shape.len() && out.is_empty() => shape.push(n),
                None => return Err("the nested arrays are not regular".into()),
            }
            for x in a.iter() {
                walk(&x, depth + 1, shape, out)?;
            }
            return Ok(());
        }
        if depth != shape.len() {
            return Err("the nested arrays are not regular".into());
        }
        match (v.as_f64(), v.as_bool()) {
            (Some(x), _) => out.push(x),
            (_, Some(b)) => out.push(if b { 1.0 } else { 0.0 }),
            _ => return Err("a plain array may hold only numbers and booleans (use a typed array, e.g. BigInt64Array)".into()),
        }
        Ok(())
    }
    let (mut shape, mut out) = (Vec::new(), Vec::new());
    walk(v, 0, &mut shape, &mut out)?;
    Ok(Some((Data::F64(out), Some(shape))))
}

/// A typed array's element type, its length and a byte view of its elements.
fn typed_view(v: &JsValue) -> Option<(ogham::prim::PrimType, usize, js_sys::Uint8Array)> {
    macro_rules! typed {
        ($($ty:ty => $name:literal),*) => {$(
            if let Some(a) = v.dyn_ref::<$ty>() {
                let bytes = js_sys::Uint8Array::new_with_byte_offset_and_length(
                    &a.buffer(), a.byte_offset(), a.byte_length());
                return Some((ogham::prim::PrimType::from_name($name)?, a.length() as usize, bytes));
            }
        )*};
    }
    typed! {
        js_sys::Float32Array => "f32", js_sys::Float64Array => "f64", js_sys::Int32Array => "i32",
        js_sys::BigInt64Array => "i64", js_sys::Uint8Array => "u8", js_sys::Int8Array => "i8",
        js_sys::Int16Array => "i16", js_sys::Uint16Array => "u16", js_sys::Uint32Array => "u32",
        js_sys::BigUint64Array => "u64", js_sys::Uint8ClampedArray => "u8"
    }
    None
}

/// A typed array already of the type its argument takes, as bytes copied in one piece; `None`
/// when its elements need converting.
fn js_packed(
    v: &JsValue,
    shape: Option<Vec<i64>>,
    declared: Option<ogham::prim::PrimType>,
    param: Option<&ogham::ir::EntryType>,
) -> Result<Option<Packed>, String> {
    let Some((natural, n, view)) = typed_view(v) else { return Ok(None) };
    if args::target(declared, param, natural) != natural
        || shape.as_ref().is_some_and(|s| s.is_empty())
    {
        return Ok(None);
    }
    args::packed_array(natural, n, view.to_vec(), shape, declared, param)
}

/// One argument given as a JS value, for `param` (none past the last parameter): bytes when it
/// needs no conversion, else a converted value, packed.
fn js_arg(v: &JsValue, param: Option<&ogham::ir::EntryType>) -> Result<Packed, String> {
    if let Some(t) = v.as_string() {
        let mut vs = text::parse_values(&t).map_err(|d| d.message)?;
        return match vs.len() {
            1 => Ok(Packed::from(&vs.remove(0))),
            n => Err(format!("expected one value in Futhark syntax, found {n}")),
        };
    }
    if let Some(b) = v.as_bool() {
        return args::scalar(args::Scalar::Bool(b), param).map(|v| Packed::from(&v));
    }
    if let Some(x) = v.as_f64() {
        return args::scalar(args::Scalar::Number(x), param).map(|v| Packed::from(&v));
    }
    if v.is_bigint() {
        let x = i128::try_from(v.clone()).map_err(|_| "the BigInt does not fit in 64 bits")?;
        return args::scalar(args::Scalar::BigInt(x), param).map(|v| Packed::from(&v));
    }
    if let Some(p) = js_packed(v, None, None, param)? {
        return Ok(p);
    }
    if let Some((data, shape)) = js_data(v)? {
        return args::array(data, shape, None, param).map(|v| Packed::from(&v));
    }
    if v.is_object() {
        let field = |k: &str| Reflect::get(v, &k.into()).ok().filter(|x| !x.is_undefined());
        let declared = match field("type").and_then(|t| t.as_string()) {
            Some(t) => {
                Some(ogham::prim::PrimType::from_name(&t).ok_or(format!("unknown type `{t}`"))?)
            }
            None => None,
        };
        let shape = match field("shape") {
            Some(s) if Array::is_array(&s) => Some(
                Array::from(&s)
                    .iter()
                    .map(|d| d.as_f64().filter(|d| d.fract() == 0.0 && *d >= 0.0).map(|d| d as i64))
                    .collect::<Option<Vec<i64>>>()
                    .ok_or("`shape` must list non-negative integers")?,
            ),
            Some(_) => return Err("`shape` must be an array".into()),
            None => None,
        };
        let data = field("data")
            .ok_or("an array argument is `{shape, data}` with `data` a typed array")?;
        if let Some(p) = js_packed(&data, shape.clone(), declared, param)? {
            return Ok(p);
        }
        let (data, inner) =
            js_data(&data)?.ok_or("`data` must be a typed array or an array of numbers")?;
        let value = args::array(data, shape.or(inner), declared, param)?;
        // A scalar result (shape []) passed back as an argument is that scalar.
        return Ok(Packed::from(&match value {
            Value::Array(a) if a.shape.is_empty() => Value::Prim(a.data[0]),
            v => v,
        }));
    }
    Err("an argument is a number, a BigInt, a boolean, Futhark value text, a typed array or `{shape, data}`".into())
}

/// `args` as `run` takes them: one string of Futhark values, or an array of JS values.
fn js_args(
    args: &JsValue,
    entry: &str,
    params: Option<&[ogham::ir::EntryType]>,
) -> Result<Vec<Packed>, Vec<Diag>> {
    if let Some(t) = args.as_string() {
        return text_args(&t).map(|vs| vs.iter().map(Packed::from).collect());
    }
    if args.is_undefined() || args.is_null() {
        return Ok(Vec::new());
    }
    if !Array::is_array(args) {
        return Err(arg_error(
            "`args` must be an array of arguments or a string of Futhark values".into(),
        ));
    }
    Array::from(args)
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let param = params.and_then(|ps| ps.get(k));
            js_arg(&a, param)
                .map_err(|m| arg_error(format!("argument {} of `{entry}`: {m}", k + 1)))
        })
        .collect()
}

thread_local! {
    /// The WebGPU device, opened by the first webgpu run (and again after a device loss).
    static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
}

async fn gpu() -> Result<Rc<Gpu>, ogham::Diagnostic> {
    if let Some(g) = GPU.with(|g| g.borrow().clone()).filter(|g| !g.is_lost()) {
        return Ok(g);
    }
    let g = Rc::new(Gpu::open().await?);
    GPU.with(|c| *c.borrow_mut() = Some(g.clone()));
    Ok(g)
}

/// Run entry point `entry` of `source` on `args` (a string of values in Futhark syntax, or an
/// array of JS values as `Program.run` takes them) with the backend named by `options.backend`
/// (`"wasm"`, the default, `"interp"` or `"webgpu"`). Compiles every time: see [`load`].
#[wasm_bindgen]
pub fn run(source: String, entry: String, args: JsValue, options: JsValue) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(async move {
        let go = async {
            let backend = backend_name(&options)?;
            let threads = threads_option(&options)?;
            let compiled = pipeline::front_end(&source)?;
            let params = compiled.ir.entry(&entry).map(|e| e.params.clone());
            let args = js_args(&args, &entry, params.as_deref())?;
            let p = prepare(source, compiled, backend, threads).await?;
            p.run(&entry, &args).await
        };
        match go.await {
            Ok(vs) => results_js(&vs, true),
            Err(ds) => Err(rejection(&ds)),
        }
    })
}

/// A program compiled once for one backend; `run` only runs it.
#[wasm_bindgen]
pub struct Program {
    inner: Rc<Prepared>,
}

#[wasm_bindgen]
impl Program {
    /// The entry points' names.
    #[wasm_bindgen(getter)]
    pub fn entries(&self) -> Array {
        self.inner.entries.iter().map(|e| JsValue::from_str(&e.name)).collect()
    }

    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.inner.backend.to_string()
    }

    /// How many threads the wasm backend runs the program's parallel maps on, the calling one
    /// included (1 for the other backends).
    #[wasm_bindgen(getter)]
    pub fn threads(&self) -> u32 {
        match &self.inner.exec {
            Exec::Wasm { host, .. } => host.borrow().threads,
            _ => 1,
        }
    }

    /// Run `entry` on `args`; resolves to `{type, shape, data}` per result (no `text`: the
    /// package adds it as a getter).
    pub fn run(&self, entry: String, args: JsValue) -> js_sys::Promise {
        let p = self.inner.clone();
        // Arguments are copied out of their typed arrays now, before the caller can change them.
        let args = js_args(&args, &entry, p.params(&entry));
        wasm_bindgen_futures::future_to_promise(async move {
            match p.run(&entry, &args.map_err(|ds| rejection(&ds))?).await {
                Ok(vs) => results_js(&vs, false),
                Err(ds) => Err(rejection(&ds)),
            }
        })
    }
}

/// Compile `source` for `options.backend` once: the front end, then the wasm module
/// (instantiated) or the GPU program (its pipelines created). Rejects with the diagnostics.
#[wasm_bindgen]
pub async fn load(source: String, options: JsValue) -> Result<Program, JsValue> {
    let backend = backend_name(&options).map_err(|ds| rejection(&ds))?;
    let threads = threads_option(&options).map_err(|ds| rejection(&ds))?;
    let compiled = pipeline::front_end(&source).map_err(|ds| rejection(&ds))?;
    let p = prepare(source, compiled, backend, threads).await.map_err(|ds| rejection(&ds))?;
    Ok(Program { inner: Rc::new(p) })
}

/// A result (`{type, shape, data}`) in Futhark's value syntax.
#[wasm_bindgen(js_name = formatValue)]
pub fn format_value(value: JsValue) -> Result<String, JsValue> {
    let v =
        js_arg(&value, None).and_then(|p| p.to_value()).map_err(|m| rejection(&arg_error(m)))?;
    Ok(text::format_value(&v))
}

/// Random arguments for entry point `entry` of `source`, as Futhark values in one string: every
/// array dimension is `size`, floats uniform in [0, 1), integers in [0, 100). The same `seed`
/// gives the same arguments. Throws an `Error` carrying `diagnostics` when the program does not
/// compile or has no such entry point.
#[wasm_bindgen(js_name = randomArgs)]
pub fn random_args(source: &str, entry: &str, size: f64, seed: f64) -> Result<String, JsValue> {
    let compiled = pipeline::front_end(source).map_err(|ds| rejection(&ds))?;
    ogham::driver::random_args(&compiled.ir, entry, size as i64, seed as u64)
        .map_err(|d| rejection(&[pipeline::diag(&d, source)]))
}

/// The compiler's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
