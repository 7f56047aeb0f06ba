//! The wasmtime engine (native builds).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use ogham::backend::wasm::{self, Manifest, WasmModule};
use ogham::diag::Diagnostic;
use ogham::driver::{self, Compiled};
use ogham::prim::f16;
use ogham::testspec::run::Backend;
use ogham::value::packed::Packed;
use ogham::value::Value;

use crate::abi::{self, internal, CallError, Word};
use wasmtime::{
    Caller, Config, Engine, Instance, Linker, Memory, MemoryType, Module, SharedMemory, Store,
    TypedFunc, Val,
};

/// Compiles modules and instantiates them; build one and reuse it (compiling the engine's
/// machinery once).
pub struct Executor {
    engine: Engine,
    linker: Linker<()>,
    threads: usize,
}

/// A program loaded into its own store (and, built with threads, a pool of worker threads, each
/// with its own store and instance on the same shared memory).
pub struct Loaded {
    store: Store<()>,
    instance: Instance,
    memory: Mem,
    manifest: Manifest,
    _pool: Option<Arc<Pool>>,
    /// How long the last run's entry-point call took (see [`Loaded::call_time`]).
    call_time: Duration,
}

#[derive(Clone)]
enum Mem {
    Own(Memory),
    Shared(SharedMemory),
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
    /// An executor that runs the parallel maps of modules built with threads on every core.
    pub fn new() -> Result<Executor, Diagnostic> {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        Executor::with_threads(n)
    }

    /// An executor that runs parallel maps on `threads` threads (the caller's included).
    pub fn with_threads(threads: usize) -> Result<Executor, Diagnostic> {
        let mut config = Config::new();
        config.wasm_threads(true).shared_memory(true);
        let engine = Engine::new(&config).map_err(|e| internal(format!("{e:#}")))?;
        let linker = math_linker(&engine).map_err(|e| internal(format!("{e:#}")))?;
        Ok(Executor { engine, linker, threads: threads.max(1) })
    }

    pub fn load(&self, m: &WasmModule) -> Result<Loaded, Diagnostic> {
        let module = Module::new(&self.engine, &m.bytes)
            .map_err(|e| internal(format!("wasmtime cannot compile the module: {e:#}")))?;
        let mut store = Store::new(&self.engine, ());
        let inst_err =
            |e: wasmtime::Error| internal(format!("cannot instantiate the module: {e:#}"));
        if !m.manifest.threads {
            let instance = self.linker.instantiate(&mut store, &module).map_err(inst_err)?;
            let memory = instance
                .get_memory(&mut store, "memory")
                .ok_or_else(|| internal("the module exports no memory"))?;
            return Ok(Loaded {
                store,
                instance,
                memory: Mem::Own(memory),
                manifest: m.manifest.clone(),
                _pool: None,
                call_time: Duration::ZERO,
            });
        }
        let shared = SharedMemory::new(&self.engine, MemoryType::shared(1, 1 << 16))
            .map_err(|e| internal(format!("cannot create the shared memory: {e:#}")))?;
        let pool = (self.threads > 1)
            .then(|| Pool::start(&self.linker, &module, &shared, self.threads - 1))
            .transpose()?
            .map(Arc::new);
        let mut linker = self.linker.clone();
        let l = &mut linker;
        l.define(&store, "env", "memory", shared.clone()).map_err(inst_err)?;
        let main_pool = pool.clone();
        let busy = Arc::new(AtomicBool::new(false));
        let cost = Arc::new(Mutex::new(HashMap::new()));
        l.func_wrap(
            "threads",
            "par_for",
            move |caller: Caller<'_, ()>, k: i32, n: i64, env: i32| {
                par_for_main(caller, main_pool.as_deref(), &busy, &cost, k, n, env)
            },
        )
        .map_err(inst_err)?;
        let instance = linker.instantiate(&mut store, &module).map_err(inst_err)?;
        Ok(Loaded {
            store,
            instance,
            memory: Mem::Shared(shared),
            manifest: m.manifest.clone(),
            _pool: pool,
            call_time: Duration::ZERO,
        })
    }
}

/// `par.K` of an instance.
fn par_fn(caller: &mut Caller<'_, ()>, k: i32) -> wasmtime::Result<TypedFunc<(i32, i64, i64), ()>> {
    caller
        .get_export(&format!("par.{k}"))
        .and_then(|e| e.into_func())
        .ok_or_else(|| wasmtime::Error::msg(format!("the module has no export `par.{k}`")))?
        .typed(&*caller)
}

/// A task for the workers: run `par.k(env, s, e)` on pieces `[s, e)` of `[0, n)` taken from
/// `next` until none is left.
struct Task {
    k: i32,
    n: i64,
    env: i32,
    grain: i64,
    next: Arc<AtomicI64>,
    done: mpsc::Sender<Result<(), WorkerError>>,
}

/// A run-time error in a worker: its instance's `err_code` and `err_site` (the message's
/// values are in the shared error area already).
struct WorkerError {
    code: i32,
    site: i32,
    what: String,
}

/// Worker threads, each with its own store and instance on the shared memory.
struct Pool {
    senders: Vec<Mutex<mpsc::Sender<Task>>>,
}

impl Pool {
    fn start(
        linker: &Linker<()>,
        module: &Module,
        shared: &SharedMemory,
        workers: usize,
    ) -> Result<Pool, Diagnostic> {
        let mut senders = Vec::with_capacity(workers);
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
        for _ in 0..workers {
            let (tx, rx) = mpsc::channel::<Task>();
            let (mut linker, module, shared) = (linker.clone(), module.clone(), shared.clone());
            let ready = ready_tx.clone();
            std::thread::spawn(move || {
                let mut store = Store::new(module.engine(), ());
                let made = (|| {
                    linker.define(&store, "env", "memory", shared)?;
                    // A parallel map reached inside a parallel map runs on its own thread.
                    linker.func_wrap(
                        "threads",
                        "par_for",
                        |mut caller: Caller<'_, ()>, k: i32, n: i64, env: i32| {
                            par_fn(&mut caller, k)?.call(&mut caller, (env, 0, n))
                        },
                    )?;
                    linker.instantiate(&mut store, &module)
                })();
                let instance = match made {
                    Ok(i) => {
                        let _ = ready.send(Ok(()));
                        i
                    }
                    Err(e) => {
                        let _ = ready.send(Err(format!("{e:#}")));
                        return;
                    }
                };
                while let Ok(t) = rx.recv() {
                    let _ = t.done.send(run_pieces(&mut store, instance, &t));
                }
            });
            senders.push(Mutex::new(tx));
        }
        drop(ready_tx);
        for _ in 0..workers {
            match ready_rx.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(internal(format!("cannot start a worker thread: {e}"))),
                Err(_) => return Err(internal("a worker thread stopped while starting")),
            }
        }
        Ok(Pool { senders })
    }
}

/// A worker's part of a task.
fn run_pieces(store: &mut Store<()>, instance: Instance, t: &Task) -> Result<(), WorkerError> {
    let fail = |what: String| WorkerError { code: 0, site: 0, what };
    let f = instance
        .get_typed_func::<(i32, i64, i64), ()>(&mut *store, &format!("par.{}", t.k))
        .map_err(|e| fail(format!("{e:#}")))?;
    let reset = instance
        .get_typed_func::<(), ()>(&mut *store, "reset_thread")
        .map_err(|e| fail(format!("{e:#}")))?;
    reset.call(&mut *store, ()).map_err(|e| fail(format!("{e:#}")))?;
    loop {
        let s = t.next.fetch_add(t.grain, Ordering::Relaxed);
        if s >= t.n {
            return Ok(());
        }
        if let Err(e) = f.call(&mut *store, (t.env, s, (s + t.grain).min(t.n))) {
            // Stop the others taking more pieces.
            t.next.store(t.n, Ordering::Relaxed);
            let mut global = |name: &str| {
                let g = instance.get_global(&mut *store, name);
                let v = g.and_then(|g| g.get(&mut *store).i32()).unwrap_or(0);
                if let Some(g) = g {
                    let _ = g.set(&mut *store, Val::I32(0));
                }
                v
            };
            let (code, site) = (global("err_code"), global("err_site"));
            return Err(WorkerError { code, site, what: format!("{e:#}") });
        }
    }
}

/// `threads.par_for` of the calling thread: share `[0, n)` with the workers and take pieces too.
fn par_for_main(
    mut caller: Caller<'_, ()>,
    pool: Option<&Pool>,
    busy: &AtomicBool,
    cost: &Mutex<HashMap<i32, Duration>>,
    k: i32,
    n: i64,
    env: i32,
) -> wasmtime::Result<()> {
    let f = par_fn(&mut caller, k)?;
    let t0 = Instant::now();
    let cheap = cost.lock().ok().and_then(|c| c.get(&k).copied()).is_some_and(|c| c < SERIAL);
    let pool = match pool {
        Some(p) if n > 1 && !cheap && !busy.swap(true, Ordering::Acquire) => p,
        _ => {
            f.call(&mut caller, (env, 0, n))?;
            if let Ok(mut c) = cost.lock() {
                c.insert(k, t0.elapsed());
            }
            return Ok(());
        }
    };
    let result = par_for_pool(&mut caller, f, pool, k, n, env);
    busy.store(false, Ordering::Release);
    if let Ok(mut c) = cost.lock() {
        c.insert(k, t0.elapsed() * (pool.senders.len() as u32 + 1));
    }
    result
}

/// A parallel map cheaper than this on one thread (a small map inside a loop) runs on the
/// calling thread: waking the workers would cost more than it saves.
const SERIAL: Duration = Duration::from_micros(250);

/// Run `par.k` over `[0, n)` on the pool's threads and this one.
fn par_for_pool(
    caller: &mut Caller<'_, ()>,
    f: TypedFunc<(i32, i64, i64), ()>,
    pool: &Pool,
    k: i32,
    n: i64,
    env: i32,
) -> wasmtime::Result<()> {
    let threads = pool.senders.len() as i64 + 1;
    // Several pieces per thread, so that uneven iterations even out.
    let grain = (n / (threads * 8)).max(1);
    let next = Arc::new(AtomicI64::new(0));
    let (done_tx, done_rx) = mpsc::channel();
    let mut sent = 0;
    for s in &pool.senders {
        let task = Task { k, n, env, grain, next: next.clone(), done: done_tx.clone() };
        if s.lock().is_ok_and(|s| s.send(task).is_ok()) {
            sent += 1;
        }
    }
    drop(done_tx);
    let mut mine = Ok(());
    loop {
        let s = next.fetch_add(grain, Ordering::Relaxed);
        if s >= n {
            break;
        }
        if let Err(e) = f.call(&mut *caller, (env, s, (s + grain).min(n))) {
            next.store(n, Ordering::Relaxed);
            mine = Err(e);
            break;
        }
    }
    let mut theirs = None;
    for _ in 0..sent {
        match done_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                theirs.get_or_insert(e);
            }
            Err(_) => {
                theirs.get_or_insert(WorkerError {
                    code: 0,
                    site: 0,
                    what: "a worker thread stopped".into(),
                });
            }
        }
    }
    if mine.is_err() || theirs.is_some() {
        // Report the error a serial run reports (that of the first failing iteration, whichever
        // thread met one first): run the map again on this thread. Iterations only write their
        // own rows, so running them twice is harmless.
        f.call(&mut *caller, (env, 0, n))?;
    }
    mine?;
    if let Some(e) = theirs {
        for (name, v) in [("err_code", e.code), ("err_site", e.site)] {
            if let Some(g) = caller.get_export(name).and_then(|x| x.into_global()) {
                g.set(&mut *caller, Val::I32(v))?;
            }
        }
        return Err(wasmtime::Error::msg(e.what));
    }
    Ok(())
}

struct Host<'a> {
    store: &'a mut Store<()>,
    instance: Instance,
    memory: Mem,
    /// Set to the duration of each entry-point call.
    call_time: &'a mut Duration,
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
        let t = Instant::now();
        let called = f.call(&mut *self.store, &args, &mut out);
        if name.starts_with(wasm::ENTRY_PREFIX) {
            *self.call_time = t.elapsed();
        }
        if let Err(trap) = called {
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
        let outside = || internal("a result lies outside memory");
        match &self.memory {
            Mem::Own(m) => m
                .data(&*self.store)
                .get(addr..addr.saturating_add(n))
                .map(<[u8]>::to_vec)
                .ok_or_else(outside),
            Mem::Shared(m) => {
                let cells = m.data().get(addr..addr.saturating_add(n)).ok_or_else(outside)?;
                Ok(shared_bytes::read(cells))
            }
        }
    }

    fn write(&mut self, addr: usize, bytes: &[u8]) -> Result<(), Diagnostic> {
        match &self.memory {
            Mem::Own(m) => {
                m.write(&mut *self.store, addr, bytes).map_err(|e| internal(format!("{e:#}")))
            }
            Mem::Shared(m) => {
                let cells = m
                    .data()
                    .get(addr..addr.saturating_add(bytes.len()))
                    .ok_or_else(|| internal("an argument lies outside memory"))?;
                shared_bytes::write(cells, bytes);
                Ok(())
            }
        }
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

/// Host access to a shared memory, which wasmtime exposes only as cells. The host reads and
/// writes only between calls, when none of the program's threads runs (workers wait for a task),
/// so nothing accesses the bytes concurrently.
#[allow(unsafe_code)]
mod shared_bytes {
    use std::cell::UnsafeCell;

    pub fn read(cells: &[UnsafeCell<u8>]) -> Vec<u8> {
        let mut out = vec![0u8; cells.len()];
        // SAFETY: `UnsafeCell<u8>` has the layout of `u8`, so the cells are `cells.len()`
        // contiguous bytes, and no other access to them happens during the copy (above). One
        // bulk copy: cell by cell, 4 MB took milliseconds.
        unsafe {
            std::ptr::copy_nonoverlapping(
                UnsafeCell::raw_get(cells.as_ptr()),
                out.as_mut_ptr(),
                cells.len(),
            );
        }
        out
    }

    pub fn write(cells: &[UnsafeCell<u8>], bytes: &[u8]) {
        let n = cells.len().min(bytes.len());
        // SAFETY: as for `read`; the cells permit writes through a shared reference.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), UnsafeCell::raw_get(cells.as_ptr()), n);
        }
    }
}

impl Loaded {
    /// The host side of a run, and the manifest beside it.
    fn host(&mut self) -> (Host<'_>, &Manifest) {
        let host = Host {
            store: &mut self.store,
            instance: self.instance,
            memory: self.memory.clone(),
            call_time: &mut self.call_time,
        };
        (host, &self.manifest)
    }

    /// How long the last run's call of the entry point's export took: the module's own work,
    /// without copying arguments in, results out, or converting values.
    pub fn call_time(&self) -> Duration {
        self.call_time
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Run entry point `entry` on `args`, with the interpreter's checks and messages.
    pub fn run(&mut self, entry: &str, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        let (mut host, manifest) = self.host();
        abi::run(&mut host, manifest, entry, args)
    }

    /// [`Loaded::run`], also returning the call's arena high-water mark in bytes
    /// ([`abi::run_with_peak`]).
    pub fn run_with_peak(
        &mut self,
        entry: &str,
        args: &[Value],
    ) -> Result<(Vec<Value>, Option<u64>), Diagnostic> {
        let (mut host, manifest) = self.host();
        abi::run_with_peak(&mut host, manifest, entry, args)
    }

    /// [`Loaded::run_with_peak`] on arguments and results in the module's own layout
    /// ([`abi::run_packed`]): what a host holding typed arrays does, without converting values.
    pub fn run_packed(
        &mut self,
        entry: &str,
        args: &[Packed],
    ) -> Result<(Vec<Packed>, Option<u64>), Diagnostic> {
        let (mut host, manifest) = self.host();
        abi::run_packed(&mut host, manifest, entry, args)
    }

    /// The size of the module's linear memory in bytes (it grows and never shrinks, so this is
    /// the most any call so far has needed, rounded up to 64 KiB pages).
    pub fn memory_bytes(&self) -> u64 {
        match &self.memory {
            Mem::Own(m) => m.data_size(&self.store) as u64,
            Mem::Shared(m) => m.data_size() as u64,
        }
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
    pub compile: driver::CompileOptions,
}

impl WasmBackend {
    pub fn new() -> Result<WasmBackend, Diagnostic> {
        let opts = wasm::Options { threads: true, ..wasm::Options::default() };
        Ok(WasmBackend { exec: Executor::new()?, opts, compile: Default::default() })
    }
}

impl Backend for WasmBackend {
    type Program = RefCell<Loaded>;

    fn compile(&mut self, src: &str) -> Result<RefCell<Loaded>, Vec<Diagnostic>> {
        let compiled = driver::compile_with(src, &self.compile)?;
        let m = wasm::compile(&compiled.ir, &self.opts)?;
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
