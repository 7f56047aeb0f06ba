//! What the runtime's tests share.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

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

/// The `.fut` files under `dirs` (relative to the repository root), recursively, sorted.
pub fn corpus(dirs: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let mut stack: Vec<_> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "fut") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}
