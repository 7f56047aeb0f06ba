//! Code generators from the core IR to executable targets.

pub mod wasm;
pub mod wgsl;
