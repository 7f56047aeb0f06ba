//! Lexer, parser and pretty-printer for Ogham's Futhark dialect.

pub mod ast;

use crate::diag::Diagnostic;

/// Parse a whole program. On failure, every error the parser could recover from is returned.
pub fn parse(src: &str) -> Result<ast::Program, Vec<Diagnostic>> {
    let _ = src;
    Err(vec![Diagnostic::parse(crate::Span::DUMMY, "the parser is not built yet")])
}
