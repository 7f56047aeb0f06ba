//! The type checker: constraint generation, then solving (unification and sizes), per top-level
//! definition, with Hindley-Milner generalisation at the top level.
//!
//! Per definition: `gen` walks the body once, giving every node a type and recording constraints
//! (`constraint::Constraint`: equalities with their reasons, overloading classes, field access,
//! applications, indexing, branch joins, scopes, loops) in order; `solve` discharges them in order,
//! deferring those whose types are not known yet, then defaults overloaded literals (`i32`, `f64`);
//! `generalise` quantifies what is left; `alias` checks uniqueness and `restrict` Futhark's
//! restrictions on the solved types.
//!
//! What lowering can rely on, beyond the contract on [`CheckedProgram`]:
//! - Sizes are `Size::Const`, `Size::Var(name)`, or computed from those (`Size::Poly`,
//!   `Size::Opaque`: `[n*m]`, `[n+1]`, `[n/2]`; see `poly.rs`). A name is a size parameter of the enclosing
//!   definition (explicit `[n]`, or inferred, named `n₁`, `n₂`, ... and listed in
//!   `Scheme::size_params`), a local function's size parameter, an `i64` variable in scope (a
//!   parameter, a `let`, a loop variable, a size binder `let [n] ...`), a named function parameter
//!   (`(n: i64) -> [n]t`, bound by the arrow), or an existential the checker invented. Invented names
//!   contain subscript digits (`k₁₂`), which users cannot write; [`is_invented`] tells them apart.
//! - An invented existential is the size of a value computed at run time: a `filter` result, a
//!   slice whose bounds are not sizes, a range other than `0..<n`/literal bounds, the
//!   result of an `if`/`match` whose branches differ in size, a loop parameter whose size changes,
//!   or a value whose size was named by a variable that went out of scope. Each application of a
//!   function with `[]` in its result type gets fresh names.
//! - A `Var` node of a size parameter (`def length [n] 't (_: [n]t) = n`) has type `i64`.
//! - The result of `e : t` has type `t` (sizes checked statically); the result of `e :> t` has the
//!   sizes of `t` while `e` keeps its own: lowering checks them at run time.
//! - A backticked function (``x `f` y``) has no `Var` node: its instance is `lhs -> rhs -> result`
//!   from the operand and `BinOp` node types. `x |> f` is `f x`, `f <| x` is `f x`.
//! - Local functions (`let f ... = ... in`) are monomorphic, except in their explicit size and
//!   type parameters, which are instantiated at each use; their parameters' types mention those
//!   names. A local function's type parameter is a `TyVar` numbered after the definition's own
//!   (which its `Scheme` lists): a use's `Var` node has the instance type, to match it against.
//! - In a `Scheme`, `TyVar(i)` is the `i`-th entry of `type_params` (numbered per definition).
//!   Sizes in its type are `size_params`, names bound by a named arrow parameter, or (only in the
//!   final result) existentials. A result that aliases no parameter is marked unique (`*`).
//! - The prelude's node ids come after the user's (`program.next_id` covers both).
//!
//! Deliberate differences from Futhark: `[]` in a parameter's type is a size to infer (Futhark
//! makes it a distinct size parameter, so it rejects some programs this accepts); local functions
//! are not generalised (DESIGN.md) beyond their explicit type parameters; an unlifted type
//! parameter may be instantiated with an existentially sized type (irregularity is then a
//! run-time error).

mod alias;
pub mod automap;
mod checker;
mod constraint;
mod env;
mod gen;
mod generalise;
pub mod ilp;
mod ity;
pub mod poly;
mod prelude;
pub mod print;
mod restrict;
mod solve;
#[cfg(test)]
mod tests;
pub mod ty;
mod typeexp;
mod unify;

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::syntax::ast::{self, NodeId};
pub use ity::is_invented;
pub use prelude::PRELUDE_SRC;
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
///
/// On failure, every error found is returned: at least the first of each erroneous definition
/// (later definitions are checked with an erroneous one's uses left unconstrained).
pub fn check(program: &ast::Program) -> Result<CheckedProgram, Vec<Diagnostic>> {
    checker::check_program(program, prelude::parse_sig, true)
}

/// Type-check with AUTOMAP on or off (off: only programs whose maps and reps are all explicit).
pub fn check_with(
    program: &ast::Program,
    automap: bool,
) -> Result<CheckedProgram, Vec<Diagnostic>> {
    checker::check_program(program, prelude::parse_sig, automap)
}

/// Type-check with AUTOMAP, recording every user definition's rank ILP, its solution and the
/// insertions (for `ogham show ilp` and `ogham show elab`).
pub fn check_automap_report(
    program: &ast::Program,
) -> (Result<CheckedProgram, Vec<Diagnostic>>, Vec<automap::DefReport>) {
    checker::check_reporting(program, prelude::parse_sig)
}

/// The constraints generated for each user definition, one per line, as the solver receives them
/// (for `ogham show`-style debugging of inference).
pub fn print_constraints(program: &ast::Program) -> String {
    checker::check_recording(program, prelude::parse_sig, true).1
}
