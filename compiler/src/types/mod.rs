//! The type checker: constraint generation, then solving (unification and sizes), per top-level
//! definition, with Hindley-Milner generalisation at the top level.

pub mod ty;

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::syntax::ast::{self, NodeId};
pub use ty::{Scheme, Size, TyVar, Type};

/// The output of the checker, and the input of lowering.
///
/// `program` is the elaborated program: the prelude's declarations followed by the user's (see
/// `prelude_decs`), with every `NodeId` keyed in the tables below. Types in the tables are fully
/// solved; within a polymorphic definition they may mention that definition's quantified `TyVar`s and
/// size variables, which lowering substitutes when it monomorphises an instance.
#[derive(Clone, Debug)]
pub struct CheckedProgram {
    pub program: ast::Program,
    /// How many of `program.decs` (from the front) come from the prelude.
    pub prelude_decs: usize,
    /// The type of every expression node.
    pub expr_types: HashMap<NodeId, Type>,
    /// The type of every pattern node.
    pub pat_types: HashMap<NodeId, Type>,
    /// The generalised type of each declaration of `program.decs`, by index (`None` for type
    /// declarations). Lowering matches a use site's instantiated type (in `expr_types`) against the
    /// scheme to find the instance it needs.
    pub schemes: Vec<Option<Scheme>>,
}

/// Type-check a parsed program (the prelude is added by the checker).
pub fn check(program: &ast::Program) -> Result<CheckedProgram, Vec<Diagnostic>> {
    let _ = program;
    Err(vec![Diagnostic::ty(crate::Span::DUMMY, "the type checker is not built yet")])
}
