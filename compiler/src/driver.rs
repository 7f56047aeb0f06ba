//! The pipeline, strung together: what the CLI, the web crate and the tests call.

use crate::diag::Diagnostic;
use crate::syntax::ast;
use crate::{interp, ir, syntax, types};

/// Every stage's output for one program.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub ast: ast::Program,
    pub checked: types::CheckedProgram,
    pub ir: ir::Program,
}

/// Parse, check and lower a program to the core IR.
pub fn compile(src: &str) -> Result<Compiled, Vec<Diagnostic>> {
    let ast = syntax::parse(src)?;
    let checked = types::check(&ast)?;
    let ir = ir::lower::lower(&checked)?;
    Ok(Compiled { ast, checked, ir })
}

/// Run one entry point on the reference interpreter.
pub fn run_interp(
    compiled: &Compiled,
    entry: &str,
    args: &[crate::value::Value],
) -> Result<Vec<crate::value::Value>, Diagnostic> {
    interp::run_entry(&compiled.ir, entry, args)
}
