//! Lexer, parser and pretty-printer for Ogham's Futhark dialect.
//!
//! - [`parse`] / [`parse_with_base`]: source text to an [`ast::Program`], reporting every error the
//!   parser can recover from (it resumes at the next `def`/`entry`/`type`/`let` in column 1).
//! - [`parse_expr`]: one expression (tests, tools).
//! - [`parse_val_spec`]: an intrinsic's signature, `'a [n] : (as: [n]a) -> a`.
//! - [`printer`]: the AST back to idiomatic Futhark that re-parses to the same tree;
//!   [`strip`] normalises spans and node ids so that trees can be compared with `==`.
//!
//! Decisions:
//! - Operator precedence and associativity follow Futhark's parser (its Happy grammar), which
//!   differs from the table in Futhark's language reference: there `|>` binds tighter than `*`,
//!   while the compiler parses `a + b |> f` as `(a + b) |> f`. Loosest first: `:`/`:>`, ranges,
//!   backticked functions, `with`, `|>`, `<|` (right-associative), `||`, `&&`, comparisons (and
//!   every operator starting with `=`, `!`, `<` or `>`, so `>->` and `<-<`), `& ^ |`, shifts,
//!   `+ -` (and `++`), `* / % // %%`, `**` (left-associative, as in Futhark), prefix `-`/`!`,
//!   application, then projection and indexing.
//! - `a..b` is read as the inclusive range `a...b` (the Language section of DESIGN.md lists it;
//!   current Futhark rejects it); the printer writes `a...b`.
//! - Nesting is bounded by [`MAX_DEPTH`], both the parser's recursion and the depth of the tree it
//!   builds (long left-associative chains such as `a+b+c+...` count too), so later stages can
//!   recurse over any tree the parser accepts. The parser passes expressions boxed and keeps each
//!   construct out of its recursive spine: inputs at the limit need well under 1 MiB of stack.
//! - A program's own operators (`def (+^) x y`, infix `def x +^ y`, local `let (+^) x y`) take
//!   the precedence of their leading characters, as in Futhark; the parser knows them from their
//!   definition on (definitions come before their uses), and a `BinOp` naming one is an
//!   application of it. The built-in operators cannot be redefined.
//! - A numeric module's operator (`f32.+`, `i32.<`) is one token; the parser reads `x f32.+ y`
//!   as `(x : f32) + (y : f32)` and `(f32.+)` as `((+) : f32 -> f32 -> f32)`.
//! - Attributes (`#[unsafe]`, `#[sequential]`) are advice to Futhark's compiler that never
//!   changes what a correct program computes: the lexer drops them, like comments.
//! - A section with an index among its steps (`(.[i])`, `(.f[i])`) is read as the lambda
//!   `\x -> x.f[i]` (its parameter named so that no program can capture it); `(.f.g)` alone stays
//!   a projection section.
//! - The module language (`module`, `module type`, `open`, `local`, `m.(e)`) is parsed into
//!   [`ast::SrcDec`]s and flattened by [`modules::flatten`] within [`parse`], so the program
//!   every later stage sees has none; a local open `m.(e)` is parsed as an application of a
//!   variable no program can write ([`ast::LOCAL_OPEN`]), which the flattening replaces.
//! - Not supported, each with an `unsupported: ...` error at its span: `import` (a program is
//!   one file), anonymous parametric modules and their module types, redefining a built-in
//!   operator, and size expressions other than names, constants and `+ - * / %`.
//! - As in Futhark, a character literal (`'a'`, `'\n'`) is an integer literal of its code point,
//!   and a string literal the array of its UTF-8 bytes (`"hi"` is `[104u8, 105u8]`).

pub mod ast;
pub mod lexer;
pub mod modules;
pub(crate) mod parser;
pub mod printer;
pub mod strip;
pub mod visit;

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
        let flat = modules::flatten(decs, p.next_id(), p.needs_resolution, &p.builtin_ops)?;
        Ok(ast::Program { decs: flat.decs, next_id: flat.next_id, instances: flat.instances })
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
