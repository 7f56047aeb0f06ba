//! Runs programs compiled by `ogham::backend::wasm`: [`abi`] packs values to and from linear
//! memory for any engine; natively, [`Executor`] runs modules with wasmtime, provides their `math`
//! imports and maps traps back to the interpreter's diagnostics through the module's manifest.
//! Built for wasm32 (the web crate), [`abi`] is there (the browser's engine runs the module) and
//! [`gpu`], which runs GPU programs on the browser's WebGPU.

pub mod abi;
#[cfg(not(target_arch = "wasm32"))]
mod engine;
#[cfg(not(target_arch = "wasm32"))]
pub use engine::*;
/// The wgpu executor for GPU programs (`ogham::backend::wgsl`): Vulkan natively, WebGPU on wasm32.
pub mod gpu;
