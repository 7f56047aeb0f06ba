//! Runs programs compiled by `ogham::backend::wasm` with wasmtime: loads a module, provides its
//! `math` imports, converts [`Value`]s to and from linear memory per the module's ABI, and maps
//! traps back to the interpreter's diagnostics through the module's manifest.

/// The wgpu executor for GPU programs (`ogham::backend::wgsl`).
pub mod gpu;
use std::cell::RefCell;

use ogham::backend::wasm::{self, elem_size, ErrorCode, Manifest, WasmModule, ERR_ARGS};
use ogham::diag::{Diagnostic, Phase, Span};
use ogham::driver::{self, Compiled};
use ogham::prim::{f16, FloatType, IntType, PrimType, PrimValue};
use ogham::testspec::run::Backend;
use ogham::value::{ArrayValue, Value};
use wasmtime::{Engine, Instance, Linker, Memory, Module, Store, Val};

/// Compiles modules and instantiates them; build one and reuse it (compiling the engine's
/// machinery once).
pub struct Executor {
    engine: Engine,
    linker: Linker<()>,
}

/// A program loaded into its own store.
pub struct Loaded {
    store: Store<()>,
    instance: Instance,
    memory: Memory,
    manifest: Manifest,
}

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Phase::Runtime, Span::DUMMY, format!("internal error: {}", msg.into()))
}

macro_rules! wrap_math {
    ($linker:expr, $($name:literal => $f32:expr, $f64:expr;)*) => {$(
        $linker.func_wrap("math", concat!("f32.", $name), $f32)?;
        $linker.func_wrap("math", concat!("f64.", $name), $f64)?;
    )*};
}

fn math_linker(engine: &Engine) -> wasmtime::Result<Linker<()>> {
    let mut l = Linker::new(engine);
    // The same functions the interpreter uses (Rust's std), so both agree exactly.
    wrap_math! { l,
        "exp" => |x: f32| x.exp(), |x: f64| x.exp();
        "log" => |x: f32| x.ln(), |x: f64| x.ln();
        "log2" => |x: f32| x.log2(), |x: f64| x.log2();
        "log10" => |x: f32| x.log10(), |x: f64| x.log10();
        "sin" => |x: f32| x.sin(), |x: f64| x.sin();
        "cos" => |x: f32| x.cos(), |x: f64| x.cos();
        "tan" => |x: f32| x.tan(), |x: f64| x.tan();
        "asin" => |x: f32| x.asin(), |x: f64| x.asin();
        "acos" => |x: f32| x.acos(), |x: f64| x.acos();
        "atan" => |x: f32| x.atan(), |x: f64| x.atan();
        "sinh" => |x: f32| x.sinh(), |x: f64| x.sinh();
        "cosh" => |x: f32| x.cosh(), |x: f64| x.cosh();
        "tanh" => |x: f32| x.tanh(), |x: f64| x.tanh();
        "cbrt" => |x: f32| x.cbrt(), |x: f64| x.cbrt();
        "log1p" => |x: f32| x.ln_1p(), |x: f64| x.ln_1p();
        "asinh" => |x: f32| x.asinh(), |x: f64| x.asinh();
        "acosh" => |x: f32| x.acosh(), |x: f64| x.acosh();
        "atanh" => |x: f32| x.atanh(), |x: f64| x.atanh();
        "atan2" => |y: f32, x: f32| y.atan2(x), |y: f64, x: f64| y.atan2(x);
        "hypot" => |x: f32, y: f32| x.hypot(y), |x: f64, y: f64| x.hypot(y);
        "pow" => |x: f32, y: f32| x.powf(y), |x: f64, y: f64| x.powf(y);
        "fmod" => |x: f32, y: f32| x % y, |x: f64, y: f64| x % y;
        "fma" => |a: f32, b: f32, c: f32| a.mul_add(b, c), |a: f64, b: f64, c: f64| a.mul_add(b, c);
    }
    l.func_wrap("math", "f16.round", |x: f32| f16::from_f32(x).to_f32())?;
    l.func_wrap("math", "f16.from_f64", |x: f64| f16::from_f64(x).to_f32())?;
    l.func_wrap("math", "f16.to_bits", |x: f32| f16::from_f32(x).to_bits() as i32)?;
    l.func_wrap("math", "f16.from_bits", |b: i32| f16::from_bits(b as u16).to_f32())?;
    l.func_wrap("math", "f64.to_i64_wrapping", |x: f64| -> i64 {
        // As the interpreter: NaN and ±inf give 0, other values wrap modulo 2^64.
        if !x.is_finite() || x.abs() >= 1.7014118346046923e38 {
            0
        } else {
            x.trunc() as i128 as i64
        }
    })?;
    Ok(l)
}

impl Executor {
    pub fn new() -> Result<Executor, Diagnostic> {
        let engine = Engine::default();
        let linker = math_linker(&engine).map_err(|e| internal(format!("{e:#}")))?;
        Ok(Executor { engine, linker })
    }

    pub fn load(&self, m: &WasmModule) -> Result<Loaded, Diagnostic> {
        let module = Module::new(&self.engine, &m.bytes)
            .map_err(|e| internal(format!("wasmtime cannot compile the module: {e:#}")))?;
        let mut store = Store::new(&self.engine, ());
        let instance = self
            .linker
            .instantiate(&mut store, &module)
            .map_err(|e| internal(format!("cannot instantiate the module: {e:#}")))?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| internal("the module exports no memory"))?;
        Ok(Loaded { store, instance, memory, manifest: m.manifest.clone() })
    }
}

fn scalar_bytes(p: PrimValue) -> Vec<u8> {
    match p {
        PrimValue::Bool(b) => vec![b as u8],
        PrimValue::I8(x) => x.to_le_bytes().to_vec(),
        PrimValue::I16(x) => x.to_le_bytes().to_vec(),
        PrimValue::I32(x) => x.to_le_bytes().to_vec(),
        PrimValue::I64(x) => x.to_le_bytes().to_vec(),
        PrimValue::U8(x) => x.to_le_bytes().to_vec(),
        PrimValue::U16(x) => x.to_le_bytes().to_vec(),
        PrimValue::U32(x) => x.to_le_bytes().to_vec(),
        PrimValue::U64(x) => x.to_le_bytes().to_vec(),
        PrimValue::F16(x) => x.to_bits().to_le_bytes().to_vec(),
        PrimValue::F32(x) => x.to_bits().to_le_bytes().to_vec(),
        PrimValue::F64(x) => x.to_bits().to_le_bytes().to_vec(),
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

fn wasm_val(p: PrimValue) -> Val {
    match p {
        PrimValue::Bool(b) => Val::I32(b as i32),
        PrimValue::I8(x) => Val::I32(x as i32),
        PrimValue::I16(x) => Val::I32(x as i32),
        PrimValue::I32(x) => Val::I32(x),
        PrimValue::U8(x) => Val::I32(x as i32),
        PrimValue::U16(x) => Val::I32(x as i32),
        PrimValue::U32(x) => Val::I32(x as i32),
        PrimValue::I64(x) => Val::I64(x),
        PrimValue::U64(x) => Val::I64(x as i64),
        PrimValue::F16(x) => Val::F32(x.to_f32().to_bits()),
        PrimValue::F32(x) => Val::F32(x.to_bits()),
        PrimValue::F64(x) => Val::F64(x.to_bits()),
    }
}

impl Loaded {
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn func(&mut self, name: &str) -> Result<wasmtime::Func, Diagnostic> {
        self.instance
            .get_func(&mut self.store, name)
            .ok_or_else(|| internal(format!("the module has no export `{name}`")))
    }

    fn alloc(&mut self, bytes: usize) -> Result<i32, Diagnostic> {
        let f = self.func("alloc")?;
        let mut out = [Val::I32(0)];
        match f.call(&mut self.store, &[Val::I64(bytes as i64)], &mut out) {
            Ok(()) => Ok(out[0].i32().unwrap_or(0)),
            Err(_) => {
                Err(Diagnostic::runtime(Span::DUMMY, "out of memory: the arguments do not fit"))
            }
        }
    }

    fn reset(&mut self) -> Result<(), Diagnostic> {
        let f = self.func("reset")?;
        f.call(&mut self.store, &[], &mut []).map_err(|e| internal(format!("{e:#}")))
    }

    fn global_i32(&mut self, name: &str) -> i32 {
        self.instance
            .get_global(&mut self.store, name)
            .and_then(|g| g.get(&mut self.store).i32())
            .unwrap_or(0)
    }

    fn read(&self, addr: usize, n: usize) -> Result<&[u8], Diagnostic> {
        self.memory
            .data(&self.store)
            .get(addr..addr.saturating_add(n))
            .ok_or_else(|| internal("a result lies outside memory"))
    }

    /// Run entry point `entry` on `args`, with the interpreter's checks and messages.
    pub fn run(&mut self, entry: &str, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        let Some(ep) = self.manifest.entry(entry).cloned() else {
            let names = self.manifest.entries.iter().map(|e| e.name.as_str());
            return Err(ogham::ir::unknown_entry(entry, names));
        };
        ogham::ir::check_entry_args(entry, &ep.params, ep.span, args)?;
        self.reset()?;
        let result = self.call(&ep, args);
        self.reset()?;
        result
    }

    fn call(&mut self, ep: &wasm::EntryAbi, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        let mut dims = Vec::new();
        let mut vals = Vec::new();
        for a in args {
            match a {
                Value::Prim(p) => vals.push(wasm_val(*p)),
                Value::Array(av) => {
                    dims.extend(av.shape.iter().map(|&d| Val::I64(d)));
                    let bytes: Vec<u8> = av.data.iter().flat_map(|p| scalar_bytes(*p)).collect();
                    let ptr = self.alloc(bytes.len())?;
                    self.memory
                        .write(&mut self.store, ptr as u32 as usize, &bytes)
                        .map_err(|e| internal(format!("{e:#}")))?;
                    vals.push(Val::I32(ptr));
                }
            }
        }
        dims.extend(vals);
        let f = self.func(&ep.export)?;
        let mut out = [Val::I32(0)];
        if let Err(trap) = f.call(&mut self.store, &dims, &mut out) {
            return Err(self.trap_diagnostic(&trap));
        }
        let mut addr = out[0].i32().unwrap_or(0) as u32 as usize;
        let mut results = Vec::new();
        for t in &ep.results {
            if t.rank == 0 {
                let b = self.read(addr, 8)?;
                results.push(Value::Prim(
                    read_scalar(t.elem, b).ok_or_else(|| internal("bad result slot"))?,
                ));
                addr += 8;
                continue;
            }
            let slot = |s: &Self, k: usize| -> Result<i64, Diagnostic> {
                let b = s.read(addr + 8 * k, 8)?;
                Ok(i64::from_le_bytes(b.try_into().map_err(|_| internal("bad slot"))?))
            };
            let ptr = slot(self, 0)? as usize;
            let shape: Vec<i64> = (1..=t.rank).map(|k| slot(self, k)).collect::<Result<_, _>>()?;
            addr += 8 * (1 + t.rank);
            let n =
                shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?));
            let n = n.ok_or_else(|| internal("bad result shape"))?;
            let es = elem_size(t.elem) as usize;
            let bytes = self.read(ptr, n * es)?;
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

    fn trap_diagnostic(&mut self, trap: &wasmtime::Error) -> Diagnostic {
        let code = ErrorCode::from_i32(self.global_i32("err_code"));
        let site = self.global_i32("err_site");
        let types: Vec<PrimType> = usize::try_from(site)
            .ok()
            .and_then(|s| self.manifest.sites.get(s))
            .map(|s| s.args.clone())
            .unwrap_or_default();
        let mut args = Vec::new();
        for (k, t) in types.iter().enumerate() {
            let v = self.read(ERR_ARGS as usize + 8 * k, 8).ok().and_then(|b| read_scalar(*t, b));
            args.extend(v);
        }
        // Clear the error so the instance can be reused.
        for g in ["err_code", "err_site"] {
            if let Some(gl) = self.instance.get_global(&mut self.store, g) {
                let _ = gl.set(&mut self.store, Val::I32(0));
            }
        }
        if code == ErrorCode::None {
            let what = trap
                .downcast_ref::<wasmtime::Trap>()
                .map_or_else(|| format!("{trap:#}"), |t| t.to_string());
            return internal(format!("the wasm module trapped: {what}"));
        }
        self.manifest.error(code, site, &args)
    }
}

/// Compile a program to wasm (after the usual pipeline).
pub fn compile(src: &str, opts: &wasm::Options) -> Result<(Compiled, WasmModule), Vec<Diagnostic>> {
    let compiled = driver::compile(src)?;
    let m = wasm::compile(&compiled.ir, opts)?;
    Ok((compiled, m))
}

/// The wasm backend for the test runner: compiles with `ogham::backend::wasm`, runs with
/// wasmtime. One engine serves every program.
pub struct WasmBackend {
    exec: Executor,
    pub opts: wasm::Options,
}

impl WasmBackend {
    pub fn new() -> Result<WasmBackend, Diagnostic> {
        Ok(WasmBackend { exec: Executor::new()?, opts: wasm::Options::default() })
    }
}

impl Backend for WasmBackend {
    type Program = RefCell<Loaded>;

    fn compile(&mut self, src: &str) -> Result<RefCell<Loaded>, Vec<Diagnostic>> {
        let (_, m) = compile(src, &self.opts)?;
        self.exec.load(&m).map(RefCell::new).map_err(|d| vec![d])
    }

    fn run(
        &mut self,
        prog: &RefCell<Loaded>,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        prog.borrow_mut().run(entry, args)
    }
}
