//! Runs programs compiled by `ogham::backend::wgsl` with wgpu: a [`Device`] for the host
//! schedule's executor (`ogham::backend::wgsl::exec`). Buffers stay on the GPU between kernels;
//! a kernel's compute pipeline is created when it first runs (a program holds kernels that only
//! software devices run, and others only GPUs do, and a driver may take seconds over a large
//! one) and cached by WGSL text, so programs that share kernels (and repeated runs) compile each
//! shader once. GPU errors (no adapter, validation, out of memory, device lost)
//! become diagnostics.
//!
//! The same code runs natively (Vulkan) and in browsers (wgpu's `webgpu` backend on wasm32).
//! Everything that waits for the device is `async` (error scopes, buffer read-back): browsers can
//! only await those. Natively, [`Gpu::new`], [`Gpu::load`] and [`Gpu::run`] block on the futures
//! with pollster; in a browser the caller awaits [`Gpu::open`], [`Gpu::load_program`] and
//! [`Gpu::run_entry`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use ogham::backend::wgsl::{self, exec, Access, GpuProgram, MAX_ERR_ARGS};
use ogham::diag::{Diagnostic, Phase, Span};
use ogham::driver;
use ogham::value::packed::Packed;
use ogham::value::Value;

/// A compiled kernel and the layout of its bindings.
type Pipeline = (wgpu::ComputePipeline, wgpu::BindGroupLayout);

fn gpu_err(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Phase::Runtime, Span::DUMMY, format!("GPU error: {}", msg.into()))
}

/// One wgpu device with its pipeline cache. Runs take `&self`, so a host may start one while
/// another awaits the device: each run has its own error record.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: RefCell<HashMap<String, Rc<Pipeline>>>,
    lost: Arc<Mutex<Option<String>>>,
    /// Word limit of one storage buffer binding.
    max_words: u64,
    /// Storage buffers one kernel may bind (the adapter's limit, which the device requests).
    max_storage_buffers: u32,
    /// Bytes of array buffers alive.
    memory: Rc<MemMeter>,
    /// A software adapter (lavapipe, SwiftShader): see `exec::Device::software`.
    software: Cell<bool>,
    /// See `exec::Device::scan_lookback`.
    scan_lookback: Cell<Option<u32>>,
    /// Whether the device was opened with timestamp queries.
    timestamps: bool,
    /// The adapter's name and backend, for reports.
    adapter: String,
    /// Whether runs time their kernels ([`Gpu::set_kernel_timing`]).
    timing: Cell<bool>,
    /// The last run's kernels by name: launches and nanoseconds, in order of first launch.
    profile: RefCell<Vec<(String, u32, f64)>>,
    /// Read-back staging buffers kept for the next read of the same size (at most
    /// [`STAGING_KEPT_BYTES`]).
    staging: RefCell<Vec<Owned>>,
}

/// Bytes of read-back staging buffers a device keeps for reuse.
const STAGING_KEPT_BYTES: u64 = 64 << 20;

/// Timestamp pairs a run collects before it reads them back.
const TIMESTAMP_PAIRS: u32 = 512;

/// What an error scope caught, once the device says.
type ScopeResult = Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>;

/// The verdict of the error scopes around one operation.
struct Check {
    oom: ScopeResult,
    validation: ScopeResult,
}

impl Check {
    async fn settle(self, what: &str) -> Result<(), Diagnostic> {
        let (v, o) = (self.validation.await, self.oom.await);
        if let Some(e) = o {
            return Err(gpu_err(format!("out of memory while {what}: {e}")));
        }
        if let Some(e) = v {
            return Err(gpu_err(format!("validation failed while {what}: {e}")));
        }
        Ok(())
    }
}

/// Bytes of the buffers that hold arrays (arguments, intermediate arrays, results): those alive
/// now and the most alive at once since the last [`Gpu::take_peak_bytes`]. Uniform buffers of
/// scalar arguments, error records and read-back staging buffers are not counted. Freed array
/// buffers are kept in `free` for the next array of their size (at most [`FREE_KEPT_BYTES`]):
/// creating a buffer costs a browser more than clearing one (a run over 4 MB arrays in Chromium
/// spent 2 ms creating each), and a program run again asks for the same sizes.
#[derive(Default)]
struct MemMeter {
    live: Cell<u64>,
    peak: Cell<u64>,
    free: RefCell<Vec<Owned>>,
}

/// Bytes of freed array buffers a device keeps for reuse.
const FREE_KEPT_BYTES: u64 = 128 << 20;

impl MemMeter {
    /// A kept buffer of `size` bytes, if there is one.
    fn reuse(&self, size: u64) -> Option<Owned> {
        let mut free = self.free.borrow_mut();
        let k = free.iter().rposition(|b| b.size() == size)?;
        Some(free.remove(k))
    }

    /// Keep `buf` for reuse, dropping the oldest kept buffers beyond [`FREE_KEPT_BYTES`].
    fn keep(&self, buf: Owned) {
        let size = buf.size();
        if size > FREE_KEPT_BYTES {
            return;
        }
        let mut free = self.free.borrow_mut();
        let mut kept: u64 = free.iter().map(|b| b.size()).sum();
        while kept + size > FREE_KEPT_BYTES && !free.is_empty() {
            kept -= free.remove(0).size();
        }
        free.push(buf);
    }
}

/// A program loaded onto a [`Gpu`]: its kernels' pipelines, once created.
pub struct Loaded {
    prog: GpuProgram,
    pipelines: RefCell<Vec<Option<Rc<Pipeline>>>>,
    /// The program with 64-bit integers (`wgsl::compile_wide`), compiled and loaded when an
    /// entry first needs it.
    wide: RefCell<Option<Rc<Loaded>>>,
}

#[derive(Clone)]
pub struct Buf(Rc<Counted>);

/// A buffer holding an array, counted in its device's [`MemMeter`] while it lives and kept
/// there for reuse when dropped.
struct Counted {
    /// Always `Some` until dropped.
    buf: Option<Owned>,
    bytes: u64,
    meter: Rc<MemMeter>,
}

impl Counted {
    fn new(buf: Owned, meter: &Rc<MemMeter>) -> Counted {
        let bytes = buf.size();
        let live = meter.live.get() + bytes;
        meter.live.set(live);
        meter.peak.set(meter.peak.get().max(live));
        Counted { buf: Some(buf), bytes, meter: meter.clone() }
    }
}

impl std::ops::Deref for Counted {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        self.buf.as_ref().expect("a counted buffer is only taken when dropped")
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.meter.live.set(self.meter.live.get().saturating_sub(self.bytes));
        if let Some(b) = self.buf.take() {
            self.meter.keep(b);
        }
    }
}

/// A buffer that frees its GPU memory when dropped. Natively wgpu does that itself; its web
/// backend leaves it to the JavaScript garbage collector, which does not see GPU memory, so there
/// it is destroyed explicitly (WebGPU defers that until submitted work using it has finished).
struct Owned(wgpu::Buffer);

impl std::ops::Deref for Owned {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        &self.0
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if cfg!(target_arch = "wasm32") {
            self.0.destroy();
        }
    }
}

/// Resolves once a `map_async` callback has run (natively during `device.poll`, in a browser
/// when the mapping promise settles). `None` if wgpu dropped the callback without calling it.
type Mapping = Option<Result<(), wgpu::BufferAsyncError>>;

#[derive(Default)]
struct MapState {
    done: Option<Mapping>,
    waker: Option<Waker>,
}

fn lock(m: &Mutex<MapState>) -> std::sync::MutexGuard<'_, MapState> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct MapDone(Arc<Mutex<MapState>>);

impl Future for MapDone {
    type Output = Mapping;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Mapping> {
        let mut g = lock(&self.0);
        match g.done.take() {
            Some(r) => Poll::Ready(r),
            None => {
                g.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// The sending half, moved into the callback; dropping it unused completes with `None`.
struct MapSender(Arc<Mutex<MapState>>, Option<Result<(), wgpu::BufferAsyncError>>);

impl Drop for MapSender {
    fn drop(&mut self) {
        let mut g = lock(&self.0);
        g.done = Some(self.1.take());
        if let Some(w) = g.waker.take() {
            w.wake();
        }
    }
}

/// A kernel must not bind more storage buffers than the device allows (`limit` per shader
/// stage): WebGPU would only report an opaque validation failure when the pipeline is created.
fn check_bindings(k: &wgsl::Kernel, limit: u32) -> Result<(), Diagnostic> {
    // Binding 1 (the error record) is a storage buffer too; the arguments are uniform.
    let needed = k.buffers.len() + 1;
    if needed <= limit as usize {
        return Ok(());
    }
    Err(Diagnostic::new(
        Phase::Runtime,
        Span::DUMMY,
        format!(
            "unsupported on this GPU: kernel `{}` needs {needed} storage buffers, but the device allows {limit} per shader stage",
            k.name
        ),
    )
    .with_hint("split the computation into smaller functions, or run with `--backend wasm`"))
}

/// The adapter could not be found or WebGPU is missing: a diagnostic with a hint.
fn no_adapter(msg: String) -> Diagnostic {
    let hint = if cfg!(target_arch = "wasm32") {
        "use the `wasm` backend, or a browser with WebGPU enabled"
    } else {
        "install a Vulkan driver (for example mesa-vulkan-drivers for lavapipe), or run with `--backend wasm`"
    };
    Diagnostic::new(Phase::Runtime, Span::DUMMY, msg).with_hint(hint)
}

#[cfg(not(target_arch = "wasm32"))]
impl Gpu {
    /// The first adapter wgpu finds (Vulkan); a clear error when there is none.
    pub fn new() -> Result<Gpu, Diagnostic> {
        pollster::block_on(Gpu::open())
    }

    /// Choose the schedules of a software device (`true`) or of a GPU, whatever the adapter
    /// is, as `OGHAM_GPU_SCHEDULE` does, before loading a program.
    pub fn set_software_schedule(&mut self, software: bool) {
        self.software.set(software);
    }

    /// How a GPU runs scans: `exec::Device::scan_lookback`.
    pub fn set_scan_lookback(&mut self, polls: Option<u32>) {
        self.scan_lookback.set(polls);
    }

    /// Create the pipelines of a program's kernels (cached across programs).
    pub fn load(&mut self, prog: GpuProgram) -> Result<Loaded, Diagnostic> {
        pollster::block_on(self.load_program(prog))
    }

    /// Run an entry point on arguments and results as bytes ([`Gpu::run_entry_packed`]).
    pub fn run_packed(
        &mut self,
        l: &Loaded,
        entry: &str,
        args: &[Packed],
    ) -> Result<Vec<Packed>, Diagnostic> {
        pollster::block_on(self.run_entry_packed(l, entry, args))
    }

    /// Run an entry point of a loaded program.
    pub fn run(
        &mut self,
        l: &Loaded,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        pollster::block_on(self.run_entry(l, entry, args))
    }
}

impl Gpu {
    /// Open the first adapter wgpu finds (Vulkan natively, `navigator.gpu` in a browser).
    pub async fn open() -> Result<Gpu, Diagnostic> {
        // wgpu's web backend panics when it cannot reach `navigator.gpu` (Node, a shared worker).
        if cfg!(target_arch = "wasm32") && !wgpu::util::is_browser_webgpu_supported().await {
            return Err(no_adapter("WebGPU is not available in this browser/runtime".into()));
        }
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| no_adapter(format!("no GPU adapter found: {e}")))?;
        let limits = adapter.limits();
        // Natively lavapipe reports a CPU device; in browsers SwiftShader is the fallback adapter,
        // which wgpu reports the same way.
        let info = adapter.get_info();
        let software_adapter = info.device_type == wgpu::DeviceType::Cpu;
        let adapter_name = format!("{}, {:?}", info.name, info.backend);
        let software = schedule_override().unwrap_or(software_adapter);
        // Timestamps only cost something while a run is timed (`set_kernel_timing`).
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("ogham"),
                required_features: features,
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| gpu_err(format!("cannot open the device: {e}")))?;
        let lost = Arc::new(Mutex::new(None));
        let l2 = lost.clone();
        device.set_device_lost_callback(move |_, msg| {
            if let Ok(mut g) = l2.lock() {
                *g = Some(msg);
            }
        });
        // Errors outside an error scope would otherwise panic inside wgpu.
        device.on_uncaptured_error(Arc::new(|_e| {}));
        let max_words =
            (limits.max_storage_buffer_binding_size as u64).min(limits.max_buffer_size) / 4;
        Ok(Gpu {
            device,
            queue,
            pipelines: RefCell::new(HashMap::new()),
            lost,
            max_words,
            max_storage_buffers: limits.max_storage_buffers_per_shader_stage,
            memory: Rc::default(),
            software: Cell::new(software),
            scan_lookback: Cell::new(scan_lookback_default(software_adapter)),
            timestamps: !features.is_empty(),
            adapter: adapter_name,
            timing: Cell::new(false),
            profile: RefCell::default(),
            staging: RefCell::default(),
        })
    }

    /// Bytes of freed array buffers kept for the next arrays of their sizes.
    pub fn kept_bytes(&self) -> u64 {
        self.memory.free.borrow().iter().map(|b| b.size()).sum()
    }

    /// The last timed run's kernels: name, launches and device time, in order of first launch.
    pub fn kernel_profile(&self) -> Vec<(String, u32, std::time::Duration)> {
        self.profile
            .borrow()
            .iter()
            .map(|(n, c, ns)| (n.clone(), *c, std::time::Duration::from_secs_f64(ns * 1e-9)))
            .collect()
    }

    /// The adapter's name and backend ("NVIDIA H100 80GB HBM3, Vulkan").
    pub fn adapter(&self) -> &str {
        &self.adapter
    }

    /// Time every kernel of the following runs on the device (timestamp queries), for
    /// [`Gpu::kernel_time`]; an error if the device cannot.
    pub fn set_kernel_timing(&self, on: bool) -> Result<(), Diagnostic> {
        if on && !self.timestamps {
            return Err(gpu_err("this device does not support timestamp queries"));
        }
        self.timing.set(on);
        Ok(())
    }

    /// The device time of the last run's kernels, from the start to the end of each, summed
    /// (uploads, read-backs, copies and the host's work between kernels excluded); `None` unless
    /// runs are timed.
    pub fn kernel_time(&self) -> Option<std::time::Duration> {
        let ns: f64 = self.profile.borrow().iter().map(|e| e.2).sum();
        self.timing.get().then(|| std::time::Duration::from_secs_f64(ns * 1e-9))
    }

    /// The most bytes of array buffers alive at once since the last call (or since the device
    /// was opened); the count starts again from the bytes alive now.
    pub fn take_peak_bytes(&self) -> u64 {
        let peak = self.memory.peak.get();
        self.memory.peak.set(self.memory.live.get());
        peak
    }

    /// Run `f`, turning GPU errors it raises into a diagnostic.
    async fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, Diagnostic> {
        let (r, check) = self.checked(f);
        check.settle(what).await?;
        self.check_lost()?;
        Ok(r)
    }

    /// Run `f` inside error scopes (out of memory, validation), returning its result and the
    /// scopes' verdict to await later. Both scopes are popped before `checked` returns, so runs
    /// interleaving at awaits never see each other's scopes.
    fn checked<T>(&self, f: impl FnOnce() -> T) -> (T, Check) {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let r = f();
        let v = val.pop();
        let o = oom.pop();
        (r, Check { oom: Box::pin(o), validation: Box::pin(v) })
    }

    /// Whether the device was lost (a host then opens a new one).
    pub fn is_lost(&self) -> bool {
        self.check_lost().is_err()
    }

    fn check_lost(&self) -> Result<(), Diagnostic> {
        if let Some(msg) = self.lost.lock().ok().and_then(|g| g.clone()) {
            return Err(gpu_err(format!("the device was lost: {msg}")));
        }
        Ok(())
    }

    async fn pipeline(&self, k: &wgsl::Kernel) -> Result<Rc<Pipeline>, Diagnostic> {
        if let Some(p) = self.pipelines.borrow().get(&k.wgsl) {
            return Ok(p.clone());
        }
        let storage = |read_only| wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        check_bindings(k, self.max_storage_buffers)?;
        let uniform = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let mut entries = vec![uniform, storage(false)];
        entries.extend(k.buffers.iter().map(|a| storage(*a == Access::Read)));
        let entries: Vec<wgpu::BindGroupLayoutEntry> = entries
            .into_iter()
            .enumerate()
            .map(|(i, ty)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty,
                count: None,
            })
            .collect();
        let p = self
            .scoped(&format!("compiling kernel `{}`", k.name), || {
                let layout =
                    self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some(&k.name),
                        entries: &entries,
                    });
                let pl = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(&k.name),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
                let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&k.name),
                    source: wgpu::ShaderSource::Wgsl(k.wgsl.as_str().into()),
                });
                let pipeline =
                    self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(&k.name),
                        layout: Some(&pl),
                        module: &module,
                        entry_point: Some("main"),
                        compilation_options: Default::default(),
                        cache: None,
                    });
                (pipeline, layout)
            })
            .await?;
        let p = Rc::new(p);
        self.pipelines.borrow_mut().insert(k.wgsl.clone(), p.clone());
        Ok(p)
    }

    /// Load a program: its kernels' pipelines are created when they first run (and cached
    /// across programs); a kernel that binds more buffers than the device allows is an error
    /// now.
    pub async fn load_program(&self, prog: GpuProgram) -> Result<Loaded, Diagnostic> {
        for k in &prog.kernels {
            check_bindings(k, self.max_storage_buffers)?;
        }
        let pipelines = RefCell::new(vec![None; prog.kernels.len()]);
        Ok(Loaded { prog, pipelines, wide: RefCell::new(None) })
    }

    /// The pipeline of kernel `k` of `l`, created on first use.
    async fn kernel_pipeline(&self, l: &Loaded, k: usize) -> Result<Rc<Pipeline>, Diagnostic> {
        if let Some(p) = l.pipelines.borrow().get(k).cloned().flatten() {
            return Ok(p);
        }
        let kernel = l.prog.kernels.get(k).ok_or_else(|| gpu_err("no such kernel"))?;
        let p = self.pipeline(kernel).await?;
        if let Some(slot) = l.pipelines.borrow_mut().get_mut(k) {
            *slot = Some(p.clone());
        }
        Ok(p)
    }

    /// Run an entry point of a loaded program.
    pub async fn run_entry(
        &self,
        l: &Loaded,
        entry: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, Diagnostic> {
        let packed: Vec<Packed> = args.iter().map(Packed::from).collect();
        let results = self.run_entry_packed(l, entry, &packed).await?;
        results
            .iter()
            .map(|r| {
                r.to_value()
                    .map_err(|m| Diagnostic::runtime(Span::DUMMY, format!("internal error: {m}")))
            })
            .collect()
    }

    /// [`Gpu::run_entry`] on arguments and results as bytes (`exec::run_entry_packed`). An
    /// entry whose i64/u64 values need more than the 32 bits the program computes them in runs
    /// again, on the program with 64-bit integers (programs are pure, so the first run's work
    /// is only lost time); a program without its source (`GpuProgram::source`) reports the error.
    pub async fn run_entry_packed(
        &self,
        l: &Loaded,
        entry: &str,
        args: &[Packed],
    ) -> Result<Vec<Packed>, Diagnostic> {
        self.profile.borrow_mut().clear();
        let r = {
            let mut dev = self.dev(l).await?;
            let r = exec::run_entry_packed(&l.prog, &mut dev, entry, args).await;
            dev.read_timestamps().await?;
            r
        };
        match r {
            Err(d) if !l.prog.wide && l.prog.source.is_some() && wgsl::is_needs_wide(&d) => {
                self.profile.borrow_mut().clear();
                let w = self.wide(l).await?;
                let mut dev = self.dev(&w).await?;
                let r = exec::run_entry_packed(&w.prog, &mut dev, entry, args).await;
                dev.read_timestamps().await?;
                r
            }
            r => r,
        }
    }

    /// `l`'s program with 64-bit integers, loaded (once).
    async fn wide(&self, l: &Loaded) -> Result<Rc<Loaded>, Diagnostic> {
        if let Some(w) = l.wide.borrow().clone() {
            return Ok(w);
        }
        let gp = wgsl::compile_wide(&l.prog).map_err(|ds| {
            ds.into_iter().next().unwrap_or_else(|| gpu_err("the wide program does not compile"))
        })?;
        let w = Rc::new(self.load_program(gp).await?);
        *l.wide.borrow_mut() = Some(w.clone());
        Ok(w)
    }

    /// A run's view of the device: `l` and a fresh error record.
    async fn dev<'a>(&'a self, l: &'a Loaded) -> Result<Dev<'a>, Diagnostic> {
        self.check_lost()?;
        let (err, check) = self.checked(|| {
            Owned(self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("errors"),
                size: 4 * (1 + MAX_ERR_ARGS as u64),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }))
        });
        let checks = RefCell::new(vec![("allocating the error record", check)]);
        let queries = self.timing.get().then(|| {
            self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel times"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * TIMESTAMP_PAIRS,
            })
        });
        Ok(Dev {
            gpu: self,
            loaded: l,
            err,
            checks,
            err_seen: None,
            queries,
            timed: Vec::new(),
            pending: Vec::new(),
            clears: Vec::new(),
        })
    }

    /// The bytes of each region `(buffer, first word, words)`, read back together: one copy
    /// into one staging buffer and one wait for the device (in a browser, a round trip).
    async fn read(
        &self,
        regions: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let total: u64 = regions.iter().map(|r| r.2 * 4).sum();
        let size = total.max(4);
        let kept = {
            let mut pool = self.staging.borrow_mut();
            pool.iter().position(|b| b.size() == size).map(|i| pool.swap_remove(i))
        };
        let staging = kept.unwrap_or_else(|| {
            Owned(self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("read back"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }))
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        let mut at = 0;
        for &(buf, offset, words) in regions {
            enc.copy_buffer_to_buffer(buf, offset * 4, &staging, at, words * 4);
            at += words * 4;
        }
        self.queue.submit([enc.finish()]);
        let slice = staging.slice(..total.max(4));
        let state = Arc::new(Mutex::new(MapState::default()));
        let sender = MapSender(state.clone(), None);
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let mut s = sender;
            s.1 = Some(r);
        });
        // Natively this runs the callback; in a browser the device polls itself.
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| gpu_err(format!("waiting for the GPU: {e}")))?;
        MapDone(state)
            .await
            .ok_or_else(|| {
                self.check_lost().err().unwrap_or_else(|| gpu_err("the read-back never completed"))
            })?
            .map_err(|e| gpu_err(format!("cannot map a buffer: {e}")))?;
        let out = {
            let view = slice.get_mapped_range().map_err(|e| gpu_err(format!("{e}")))?;
            // In a browser the mapping is a JS array: copy each part out of it once (reading
            // the view itself copies the whole mapping into the wasm heap first).
            #[cfg(target_arch = "wasm32")]
            let mapped = view.as_uint8array();
            let mut at = 0;
            regions
                .iter()
                .map(|r| {
                    let len = r.2 as usize * 4;
                    #[cfg(target_arch = "wasm32")]
                    let part = mapped.subarray(at as u32, (at + len) as u32).to_vec();
                    #[cfg(not(target_arch = "wasm32"))]
                    let part = view[at..at + len].to_vec();
                    at += len;
                    part
                })
                .collect()
        };
        staging.unmap();
        // Kept for the next read of this size: creating a mappable buffer costs a browser more
        // than the copy (a 4 MB result in Chromium: 3.5 of 24 ms a call). The oldest go first.
        if size <= STAGING_KEPT_BYTES {
            let mut pool = self.staging.borrow_mut();
            while pool.iter().map(|b| b.size()).sum::<u64>() + size > STAGING_KEPT_BYTES {
                pool.remove(0);
            }
            pool.push(staging);
        }
        Ok(out)
    }
}

struct Dev<'a> {
    gpu: &'a Gpu,
    loaded: &'a Loaded,
    /// This run's error record (binding 1 of every kernel).
    err: Owned,
    /// The error scopes of the operations since the last read-back, not yet awaited: in a
    /// browser each verdict is a round trip to the GPU process, so a run collects them and
    /// awaits them where it waits for the device anyway (reading a buffer back).
    checks: RefCell<Vec<(&'static str, Check)>>,
    /// The error record as read back with the last download, while no kernel has run since:
    /// the executor asks for it right after reading a loop's condition or a result, and it
    /// comes with that read instead of in a second round trip.
    err_seen: Option<Vec<u32>>,
    /// While runs are timed: a start and an end timestamp per launch, of the kernels in
    /// `timed` (not yet read back).
    queries: Option<wgpu::QuerySet>,
    timed: Vec<usize>,
    /// Writes not yet handed to the queue: a buffer, a byte offset and the bytes from there.
    /// A host loop that stores one element per iteration (reverse mode saving loop-carried
    /// values) makes one write of many words instead of many of one word; every other
    /// operation on the device first hands them over, in order.
    pending: Vec<(Buf, u64, Vec<u8>)>,
    /// Kept buffers handed out that must read as zeros, not yet cleared: the next command
    /// encoder clears them before its own commands ([`Dev::record_clears`]), or a submission of
    /// their own does where a queue write or a read must come after the clear. A buffer is only
    /// kept once nothing refers to it, so nothing reads or writes it before it is handed out.
    clears: Vec<Buf>,
}

impl Dev<'_> {
    /// Hand the pending writes to the queue. A queue's write comes before the commands of the
    /// next submission, so the clears of buffers written go first, in a submission of their
    /// own; the other clears wait for the next command encoder ([`Dev::record_clears`]).
    fn flush_writes(&mut self) {
        let pending = &self.pending;
        if self.clears.iter().any(|c| pending.iter().any(|(w, ..)| Rc::ptr_eq(&w.0, &c.0))) {
            self.submit_clears();
        }
        for (buf, at, bytes) in std::mem::take(&mut self.pending) {
            self.gpu.queue.write_buffer(&buf.0, at, &bytes);
        }
    }

    /// The bytes of each region `(buffer, first word, words)`, read together with the error
    /// record (kept in `err_seen`) after everything before them has run and been checked.
    async fn read_with_error(
        &mut self,
        regions: &[(&Buf, u64, u64)],
    ) -> Result<Vec<Vec<u8>>, Diagnostic> {
        self.flush_writes();
        self.submit_clears();
        self.settle().await?;
        let rec = 1 + MAX_ERR_ARGS as u64;
        let mut all: Vec<(&wgpu::Buffer, u64, u64)> =
            regions.iter().map(|&(b, offset, words)| (&**b.0, offset, words)).collect();
        all.push((&self.err, 0, rec));
        let mut parts = self.gpu.read(&all).await?;
        self.err_seen = parts.pop().map(|b| words_of(&b));
        Ok(parts)
    }

    /// Start `enc` with the pending clears.
    fn record_clears(&mut self, enc: &mut wgpu::CommandEncoder) {
        clear_each(enc, &std::mem::take(&mut self.clears));
    }

    /// Submit the pending clears (before a read of buffers).
    fn submit_clears(&mut self) {
        if !self.clears.is_empty() {
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            self.record_clears(&mut enc);
            self.gpu.queue.submit([enc.finish()]);
        }
    }

    /// Run `f` inside error scopes whose verdict [`Dev::settle`] awaits.
    fn deferred<T>(&self, what: &'static str, f: impl FnOnce() -> T) -> T {
        let (r, check) = self.gpu.checked(f);
        self.checks.borrow_mut().push((what, check));
        r
    }

    /// The first error of the operations since the last call (out of memory, validation,
    /// a lost device). Called before every read-back: a value read after a failed operation
    /// (a loop's condition, say) must not be used.
    async fn settle(&self) -> Result<(), Diagnostic> {
        let checks = std::mem::take(&mut *self.checks.borrow_mut());
        let mut first = Ok(());
        for (what, check) in checks {
            let r = check.settle(what).await;
            if first.is_ok() {
                first = r;
            }
        }
        first?;
        self.gpu.check_lost()
    }

    /// Read the timestamps written so far and add their kernels' times to the run's.
    async fn read_timestamps(&mut self) -> Result<(), Diagnostic> {
        let (Some(qs), n) = (&self.queries, self.timed.len() as u32) else { return Ok(()) };
        if n == 0 {
            return Ok(());
        }
        let kernels = std::mem::take(&mut self.timed);
        let gpu = self.gpu;
        let resolved = self.deferred("reading kernel times", || {
            let b = Owned(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kernel times"),
                size: 16 * n as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            enc.resolve_query_set(qs, 0..2 * n, &b, 0);
            gpu.queue.submit([enc.finish()]);
            b
        });
        self.settle().await?;
        let bytes = gpu.read(&[(&resolved, 0, 4 * n as u64)]).await?.pop().unwrap_or_default();
        let ticks: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let period = f64::from(gpu.queue.get_timestamp_period());
        let mut profile = gpu.profile.borrow_mut();
        for (p, k) in ticks.chunks_exact(2).zip(kernels) {
            let ns = p[1].saturating_sub(p[0]) as f64 * period;
            let name = self.loaded.prog.kernels.get(k).map_or("?", |k| k.name.as_str());
            match profile.iter_mut().find(|e| e.0 == name) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += ns;
                }
                None => profile.push((name.to_string(), 1, ns)),
            }
        }
        Ok(())
    }

    /// A buffer for an array of `words` words: a kept one of its size (`MemMeter::reuse`) or a
    /// new one. A new buffer reads as zeros; a kept one is cleared first unless the caller
    /// overwrites its first `written` bytes and that is all of it (`u64::MAX`: all of it).
    fn buffer(&mut self, words: u64, written: u64) -> Result<Buf, Diagnostic> {
        if words > self.gpu.max_words {
            return Err(gpu_err(format!(
                "an array of {words} elements exceeds the device's storage buffer limit"
            )));
        }
        let size = 4 * words.max(2);
        if let Some(kept) = self.gpu.memory.reuse(size) {
            let b = Buf(Rc::new(Counted::new(kept, &self.gpu.memory)));
            if written < size {
                self.clears.push(b.clone());
            }
            return Ok(b);
        }
        let b = self.deferred("allocating a buffer", || {
            Owned(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }))
        });
        Ok(Buf(Rc::new(Counted::new(b, &self.gpu.memory))))
    }
}

/// Record a clear of each of `bufs` in `enc`.
fn clear_each(enc: &mut wgpu::CommandEncoder, bufs: &[Buf]) {
    for b in bufs {
        enc.clear_buffer(&b.0, 0, None);
    }
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl exec::Device for Dev<'_> {
    type Buf = Buf;

    fn software(&self) -> bool {
        self.gpu.software.get()
    }

    fn scan_lookback(&self) -> Option<u32> {
        self.gpu.scan_lookback.get()
    }

    async fn alloc(&mut self, words: u64) -> Result<Buf, Diagnostic> {
        self.buffer(words, 0)
    }

    async fn upload(&mut self, bytes: &[u8]) -> Result<Buf, Diagnostic> {
        let words = bytes.len() as u64 / 4;
        // Written whole: fewer than two words are followed by zeros.
        let b = self.buffer(words, u64::MAX)?;
        let size = b.0.size() as usize;
        if bytes.len() < size {
            let mut whole = bytes.to_vec();
            whole.resize(size, 0);
            self.gpu.queue.write_buffer(&b.0, 0, &whole);
        } else {
            self.gpu.queue.write_buffer(&b.0, 0, bytes);
        }
        Ok(b)
    }

    async fn download(
        &mut self,
        buf: &Buf,
        offset: u64,
        words: u64,
    ) -> Result<Vec<u8>, Diagnostic> {
        let mut parts = self.read_with_error(&[(buf, offset, words)]).await?;
        Ok(parts.pop().unwrap_or_default())
    }

    async fn download_all(&mut self, regions: &[(&Buf, u64)]) -> Result<Vec<Vec<u8>>, Diagnostic> {
        let regions: Vec<_> = regions.iter().map(|&(b, words)| (b, 0, words)).collect();
        self.read_with_error(&regions).await
    }

    async fn copy(&mut self, src: &Buf, words: u64) -> Result<Buf, Diagnostic> {
        let b = self.buffer(words, 4 * words)?;
        self.flush_writes();
        if words > 0 {
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            self.record_clears(&mut enc);
            enc.copy_buffer_to_buffer(&src.0, 0, &b.0, 0, words * 4);
            self.gpu.queue.submit([enc.finish()]);
        }
        Ok(b)
    }

    async fn copy_into(
        &mut self,
        src: &Buf,
        dst: &Buf,
        offset: u64,
        words: u64,
    ) -> Result<(), Diagnostic> {
        self.flush_writes();
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.record_clears(&mut enc);
        enc.copy_buffer_to_buffer(&src.0, 0, &dst.0, offset * 4, words * 4);
        self.gpu.queue.submit([enc.finish()]);
        Ok(())
    }

    async fn write(&mut self, buf: &Buf, offset: u64, words: &[u32]) -> Result<(), Diagnostic> {
        // Only the last pending write to the same buffer may grow, so that writes to one buffer
        // stay in order.
        let at = offset * 4;
        let last = self.pending.iter_mut().rev().find(|(b, ..)| Rc::ptr_eq(&b.0, &buf.0));
        match last {
            Some((_, start, bytes)) if *start + bytes.len() as u64 == at => {
                bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            }
            _ => self.pending.push((buf.clone(), at, bytes(words))),
        }
        Ok(())
    }

    async fn dispatch(
        &mut self,
        kernel: usize,
        args: &[u32],
        bufs: &[&Buf],
        groups: u64,
    ) -> Result<(), Diagnostic> {
        self.flush_writes();
        self.err_seen = None;
        let p = self.gpu.kernel_pipeline(self.loaded, kernel).await?;
        if self.timed.len() == TIMESTAMP_PAIRS as usize {
            self.read_timestamps().await?;
        }
        let stamp = self.queries.as_ref().map(|qs| {
            self.timed.push(kernel);
            let pair = self.timed.len() as u32 - 1;
            wgpu::ComputePassTimestampWrites {
                query_set: qs,
                beginning_of_pass_write_index: Some(2 * pair),
                end_of_pass_write_index: Some(2 * pair + 1),
            }
        });
        // A uniform array of vec4<u32>: whole 16-byte rows, at least one.
        let mut words = args.to_vec();
        words.resize(args.len().div_ceil(4).max(1) * 4, 0);
        let argbuf = self.deferred("allocating the arguments", || {
            Owned(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("arguments"),
                size: 4 * words.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }))
        });
        self.gpu.queue.write_buffer(&argbuf, 0, &bytes(&words));
        let gpu = self.gpu;
        let clears = std::mem::take(&mut self.clears);
        let err = &self.err;
        let x = groups.min(65535) as u32;
        let y = groups.div_ceil(65535);
        if y > 65535 {
            return Err(gpu_err(format!("{groups} workgroups are too many for one dispatch")));
        }
        self.deferred("running a kernel", || {
            let mut entries = vec![
                wgpu::BindGroupEntry { binding: 0, resource: argbuf.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: err.as_entire_binding() },
            ];
            for (i, b) in bufs.iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: i as u32 + 2,
                    resource: b.0.as_entire_binding(),
                });
            }
            let bg = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &p.1,
                entries: &entries,
            });
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            clear_each(&mut enc, &clears);
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: stamp,
                });
                pass.set_pipeline(&p.0);
                pass.set_bind_group(0, &bg, &[]);
                pass.dispatch_workgroups(x, y as u32, 1);
            }
            gpu.queue.submit([enc.finish()]);
        });
        Ok(())
    }

    async fn take_error(&mut self) -> Result<Vec<u32>, Diagnostic> {
        self.flush_writes();
        self.settle().await?;
        let rec = match self.err_seen.take() {
            Some(rec) => rec,
            None => {
                let words = 1 + MAX_ERR_ARGS as u64;
                let parts = self.gpu.read(&[(&self.err, 0, words)]).await?;
                parts.first().map(|b| words_of(b)).unwrap_or_default()
            }
        };
        if rec.first().copied().unwrap_or(0) != 0 {
            self.gpu.queue.write_buffer(&self.err, 0, &[0u8; 4 * (1 + MAX_ERR_ARGS)]);
        }
        Ok(rec)
    }
}

/// `OGHAM_GPU_SCHEDULE=gpu` or `software` (natively): choose the schedules that differ between
/// GPUs and software devices (`exec::Device::software`) as for that kind of device, whatever the
/// adapter is, so both can be tested (and timed) on one adapter.
fn schedule_override() -> Option<bool> {
    #[cfg(not(target_arch = "wasm32"))]
    match std::env::var("OGHAM_GPU_SCHEDULE").as_deref() {
        Ok("gpu") => return Some(false),
        Ok("software") => return Some(true),
        _ => {}
    }
    None
}

/// How a GPU runs scans (`exec::Device::scan_lookback`): in one pass with a decoupled look-back,
/// except on a software adapter (there only when told to run a GPU's schedules, and lavapipe
/// cuts a loop nest short after 65535 iterations, which a walk that waits long can reach).
/// Natively `OGHAM_GPU_SCAN=passes` or `single` chooses, to compare the two.
fn scan_lookback_default(software_adapter: bool) -> Option<u32> {
    #[cfg(not(target_arch = "wasm32"))]
    match std::env::var("OGHAM_GPU_SCAN").as_deref() {
        Ok("passes") => return None,
        Ok("single") => return Some(exec::LOOKBACK_POLLS),
        _ => {}
    }
    (!software_adapter).then_some(exec::LOOKBACK_POLLS)
}

/// Compile a program for the GPU (after the usual pipeline).
pub fn compile(src: &str) -> Result<GpuProgram, Vec<Diagnostic>> {
    let compiled = driver::compile(src)?;
    wgsl::compile(&compiled.ir)
}

#[cfg(not(target_arch = "wasm32"))]
pub use runner::{GpuBackend, GpuTestProgram};

#[cfg(not(target_arch = "wasm32"))]
mod runner {
    use super::*;
    use ogham::testspec::run::Backend;

    /// The GPU backend for the test runner. A program the backend cannot compile (f64, unsupported
    /// constructs) still "compiles" for the runner, so that each of its cases reports the reason.
    pub struct GpuBackend {
        gpu: Gpu,
        pub compile: driver::CompileOptions,
    }

    impl GpuBackend {
        pub fn new() -> Result<GpuBackend, Diagnostic> {
            Ok(GpuBackend { gpu: Gpu::new()?, compile: Default::default() })
        }
    }

    pub enum GpuTestProgram {
        Loaded(Box<Loaded>),
        Rejected(Diagnostic),
    }

    impl Backend for GpuBackend {
        type Program = RefCell<GpuTestProgram>;

        fn compile(&mut self, src: &str) -> Result<Self::Program, Vec<Diagnostic>> {
            let compiled = driver::compile_with(src, &self.compile)?;
            // `OGHAM_GPU_WIDE=1`: every program with 64-bit integers, to test that program.
            let wide = std::env::var("OGHAM_GPU_WIDE").is_ok_and(|v| v == "1");
            let p = match wgsl::compile(&compiled.ir).and_then(|gp| {
                if wide {
                    wgsl::compile_wide(&gp)
                } else {
                    Ok(gp)
                }
            }) {
                Ok(gp) => match self.gpu.load(gp) {
                    Ok(l) => GpuTestProgram::Loaded(Box::new(l)),
                    Err(d) => GpuTestProgram::Rejected(d),
                },
                Err(ds) => {
                    GpuTestProgram::Rejected(ds.into_iter().next().unwrap_or_else(|| {
                        gpu_err("the GPU backend could not compile the program")
                    }))
                }
            };
            Ok(RefCell::new(p))
        }

        fn run(
            &mut self,
            prog: &Self::Program,
            entry: &str,
            args: &[Value],
        ) -> Result<Vec<Value>, Diagnostic> {
            match &*prog.borrow() {
                GpuTestProgram::Loaded(l) => self.gpu.run(l, entry, args),
                GpuTestProgram::Rejected(d) => Err(d.clone()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_over_the_binding_limit_is_a_clear_error() {
        let k = wgsl::Kernel {
            name: "map_2".into(),
            wgsl: String::new(),
            buffers: vec![Access::Read; 10],
        };
        assert!(check_bindings(&k, 11).is_ok());
        let e = check_bindings(&k, 10).unwrap_err();
        assert_eq!(
            e.message,
            "unsupported on this GPU: kernel `map_2` needs 11 storage buffers, but the device allows 10 per shader stage"
        );
    }
}
