//! Lexer, parser and pretty-printer for Ogham's Futhark dialect.
//!
//! - [`parse`] / [`parse_with_base`]: source text to an [`ast::Program`], reporting every error the
//!   parser can recover from (it resumes at the next declaration keyword in column 1).
//! - [`parse_expr`]: one expression (tests, tools).
//! - [`parse_val_spec`]: an intrinsic's signature, `'a [n] : (as: [n]a) -> a`.
//! - [`printer`]: the AST back to idiomatic Futhark that re-parses to the same tree;
//!   [`strip`] normalises spans and node ids so that trees can be compared with `==`.

pub mod ast;
pub mod lexer;
pub(crate) mod parser;
pub mod printer;
pub mod strip;

use crate::diag::Diagnostic;

pub(crate) use parser::expr::{binop_prec, Prec};
pub use parser::MAX_DEPTH;

/// Spans of prelude nodes start here, so they never collide with spans into the user's file.
pub const PRELUDE_BASE: u32 = 1 << 30;

/// Parse a whole program. On failure, every error the parser could recover from is returned.
pub fn parse(src: &str) -> Result<ast::Program, Vec<Diagnostic>> {
    parse_with_base(src, 0)
}

/// Parse a program whose spans are offset by `base` (used for the prelude).
pub fn parse_with_base(src: &str, base: u32) -> Result<ast::Program, Vec<Diagnostic>> {
    let (toks, mut diags) = lexer::lex(src, base);
    let mut p = parser::Parser::new(src, base, toks);
    let decs = p.program();
    diags.append(&mut p.diags);
    if diags.is_empty() {
        Ok(ast::Program { decs, next_id: p.next_id() })
    } else {
        diags.sort_by_key(|d| d.span.start);
        Err(diags)
    }
}

/// Parse a single expression (node ids start at 0).
pub fn parse_expr(src: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
    let (toks, mut diags) = lexer::lex(src, 0);
    let mut p = parser::Parser::new(src, 0, toks);
    let e = p.exp().and_then(|e| p.expect_eof().map(|()| e));
    diags.append(&mut p.diags);
    match e {
        Ok(e) if diags.is_empty() => Ok(*e),
        _ => {
            diags.sort_by_key(|d| d.span.start);
            Err(diags)
        }
    }
}

/// Parse a value specification as used for intrinsics: type and size parameters, `:`, and a type
/// (`'a [n] 'x : (f: a -> x) -> (as: [n]a) -> *[n]x`). Without parameters the `:` may be left out,
/// so a plain type (`(x: i64) -> f32`, `f32`) is a specification too.
pub fn parse_val_spec(
    src: &str,
    base: u32,
) -> Result<(Vec<ast::TypeParam>, ast::TypeExp), Vec<Diagnostic>> {
    let (toks, mut diags) = lexer::lex(src, base);
    let mut p = parser::Parser::new(src, base, toks);
    let r = p.val_spec().and_then(|r| p.expect_eof().map(|()| r));
    diags.append(&mut p.diags);
    match r {
        Ok(r) if diags.is_empty() => Ok(r),
        _ => Err(diags),
    }
}

#[cfg(test)]
mod tests;
