//! Lowering: checked AST → core IR (monomorphise, defunctionalise, flatten tuples, ANF, shapes).

pub mod builder;

use crate::diag::Diagnostic;
use crate::types::CheckedProgram;

pub fn lower(checked: &CheckedProgram) -> Result<super::Program, Vec<Diagnostic>> {
    let _ = checked;
    Err(vec![Diagnostic::new(
        crate::diag::Phase::Lower,
        crate::Span::DUMMY,
        "lowering is not built yet",
    )])
}
