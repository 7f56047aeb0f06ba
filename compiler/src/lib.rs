//! The Ogham compiler.
//!
//! Every stage is a pure function from one value to the next, and every stage has a printer:
//!
//! ```text
//! source ─syntax::parse─▶ ast::Program ─types::check─▶ CheckedProgram ─ir::lower─▶ ir::Program ─▶ interp
//! ```
//!
//! Nothing in this crate performs I/O, touches a GPU or a DOM; it builds for `wasm32-unknown-unknown`.
//! [`driver`] strings the stages together for the CLI and the web crate.

pub mod ad;
pub mod backend;
pub mod diag;
pub mod driver;
pub mod interp;
pub mod intrinsics;
pub mod ir;
pub mod opt;
pub mod prim;
pub mod syntax;
pub mod testspec;
pub mod types;
pub mod value;

pub use diag::{Diagnostic, Span};
