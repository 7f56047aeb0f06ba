//! The wasmtime engine (native builds).

use std::cell::RefCell;

use ogham::backend::wasm::{self, Manifest, WasmModule};
use ogham::diag::Diagnostic;
use ogham::driver::{self, Compiled};
use ogham::prim::f16;
use ogham::testspec::run::Backend;
use ogham::value::Value;

use crate::abi::{self, internal, CallError, Word};
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

struct Host<'a> {
    store: &'a mut Store<()>,
    instance: Instance,
    memory: Memory,
}

fn val(w: Word) -> Val {
    match w {
        Word::I32(x) => Val::I32(x),
        Word::I64(x) => Val::I64(x),
        Word::F32(x) => Val::F32(x.to_bits()),
        Word::F64(x) => Val::F64(x.to_bits()),
    }
}

impl abi::Host for Host<'_> {
    fn call(&mut self, name: &str, args: &[Word]) -> Result<Option<Word>, CallError> {
        let f = self.instance.get_func(&mut *self.store, name).ok_or_else(|| {
            CallError::Host(internal(format!("the module has no export `{name}`")))
        })?;
        let args: Vec<Val> = args.iter().copied().map(val).collect();
        let n = f.ty(&*self.store).results().len();
        let mut out = vec![Val::I32(0); n];
        if let Err(trap) = f.call(&mut *self.store, &args, &mut out) {
            let what = trap
                .downcast_ref::<wasmtime::Trap>()
                .map_or_else(|| format!("{trap:#}"), |t| t.to_string());
            return Err(CallError::Trap(what));
        }
        Ok(out.first().and_then(|v| match v {
            Val::I32(x) => Some(Word::I32(*x)),
            Val::I64(x) => Some(Word::I64(*x)),
            Val::F32(x) => Some(Word::F32(f32::from_bits(*x))),
            Val::F64(x) => Some(Word::F64(f64::from_bits(*x))),
            _ => None,
        }))
    }

    fn read(&self, addr: usize, n: usize) -> Result<Vec<u8>, Diagnostic> {
        self.memory
            .data(&*self.store)
            .get(addr..addr.saturating_add(n))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| internal("a result lies outside memory"))
    }

    fn write(&mut self, addr: usize, bytes: &[u8]) -> Result<(), Diagnostic> {
        self.memory.write(&mut *self.store, addr, bytes).map_err(|e| internal(format!("{e:#}")))
    }

    fn global_i32(&mut self, name: &str) -> i32 {
        self.instance
            .get_global(&mut *self.store, name)
            .and_then(|g| g.get(&mut *self.store).i32())
            .unwrap_or(0)
    }

    fn set_global_i32(&mut self, name: &str, v: i32) {
        if let Some(g) = self.instance.get_global(&mut *self.store, name) {
            let _ = g.set(&mut *self.store, Val::I32(v));
        }
    }
}

impl Loaded {
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Run entry point `entry` on `args`, with the interpreter's checks and messages.
    pub fn run(&mut self, entry: &str, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        let mut host =
            Host { store: &mut self.store, instance: self.instance, memory: self.memory };
        abi::run(&mut host, &self.manifest, entry, args)
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
