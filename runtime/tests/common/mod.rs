//! What the GPU tests share.

use ogham_runtime::gpu::Gpu;

/// The device, or `None` (saying so) where there is none: the tests then check nothing.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(d) => {
            eprintln!("no GPU, not checked: {}", d.message);
            None
        }
    }
}
