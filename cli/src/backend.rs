//! `--backend`: which executor runs programs.

/// Where programs run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// The reference interpreter.
    #[default]
    Interp,
    /// Compiled to WebAssembly (SIMD128) and run by wasmtime.
    Wasm,
    /// Compiled to WGSL compute kernels and a host schedule, run by wgpu (Vulkan).
    Gpu,
}
