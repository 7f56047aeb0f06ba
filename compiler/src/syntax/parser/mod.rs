//! The parser: tokens to the AST of `ast.rs`, by recursive descent with precedence climbing for
//! binary operators (Futhark's precedence table, from its grammar).
//!
//! Errors are reported into `Parser::diags` where they are found; a function that cannot go on
//! returns `Err(Reported)`, and the declaration parser then skips to the next top-level
//! `def`/`entry`/`type`/`let` at column 1, so one run reports several errors. Recursion is bounded
//! (`MAX_DEPTH`), and so is the depth of the tree built (also by loops, as in `a+b+c+...`), so
//! that no later stage can overflow its stack on what the parser accepted.

mod binding;
mod decl;
pub(crate) mod expr;
mod modules;
mod pat;
mod types;

#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok, Token};
use crate::syntax::visit;

/// The deepest nesting of expressions (and of the trees built from them) the parser accepts.
pub const MAX_DEPTH: u32 = 256;

/// Marks a failure that has already been reported in `Parser::diags`.
#[derive(Debug)]
pub struct Reported;

pub type PResult<T> = Result<T, Reported>;

pub struct Parser<'a> {
    src: &'a str,
    base: u32,
    toks: Vec<Token>,
    pos: usize,
    pub diags: Vec<Diagnostic>,
    next_id: u32,
    /// The tree depth of every node built so far, indexed by `NodeId`.
    depths: Vec<u32>,
    /// The current recursion depth of the parsing functions.
    rec: u32,
    /// Set while parsing the operand of a prefix `-`: a literal there may be `2^(bits-1)`.
    negated: bool,
    /// The operators the program has defined so far (`def (+^) ...`): uses of them are known.
    user_ops: std::collections::HashSet<String>,
    /// Whether the program needs `syntax::modules` to resolve its names though it declares no
    /// modules: it opens one locally (`m.(e)`) or binds an operator name (`(<=)`).
    pub needs_resolution: bool,
    /// How many module bodies (`{ ... }`) enclose the current position: there the built-in
    /// operators may be defined anew.
    in_module: u32,
    /// The operator nodes written qualified by a numeric module (`x f32.+ y`, `(f32.+)`): they
    /// are the built-in operators even where a module's own are in scope.
    pub builtin_ops: std::collections::HashSet<NodeId>,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, base: u32, toks: Vec<Token>) -> Parser<'a> {
        Parser {
            src,
            base,
            toks,
            pos: 0,
            diags: Vec::new(),
            next_id: 0,
            depths: Vec::new(),
            rec: 0,
            negated: false,
            user_ops: std::collections::HashSet::new(),
            needs_resolution: false,
            in_module: 0,
            builtin_ops: std::collections::HashSet::new(),
        }
    }

    pub fn next_id(&self) -> u32 {
        self.next_id
    }

    // -----------------------------------------------------------------------------------------
    // Tokens

    fn tok(&self) -> &Tok {
        self.tok_at(0)
    }

    fn tok_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len().saturating_sub(1));
        self.toks.get(i).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn token(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn span(&self) -> Span {
        self.token().map_or(Span::DUMMY, |t| t.span)
    }

    /// The end of the previous token (for spans of constructs ending there).
    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            return self.base;
        }
        self.toks.get(self.pos - 1).map_or(self.base, |t| t.span.end)
    }

    fn span_from(&self, start: Span) -> Span {
        Span { start: start.start, end: self.prev_end().max(start.start) }
    }

    fn bump(&mut self) -> Span {
        let s = self.span();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        } else {
            self.pos = self.toks.len().saturating_sub(1);
        }
        s
    }

    fn at(&self, t: &Tok) -> bool {
        self.tok() == t
    }

    fn at_kw(&self, k: Kw) -> bool {
        *self.tok() == Tok::Kw(k)
    }

    fn at_op(&self, op: &str) -> bool {
        matches!(self.tok(), Tok::Op(o) if o == op)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.at(t) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, k: Kw) -> bool {
        self.eat(&Tok::Kw(k))
    }

    fn at_lbracket(&self) -> bool {
        matches!(self.tok(), Tok::LBracket | Tok::IndexBracket)
    }

    /// How a token is named in "found X": its source text in backticks.
    fn describe(&self, i: usize) -> String {
        match self.toks.get(i) {
            None => "end of input".into(),
            Some(t) if t.tok == Tok::Eof => "end of input".into(),
            Some(t) => {
                let a = (t.span.start - self.base) as usize;
                let b = (t.span.end - self.base) as usize;
                match self.src.get(a..b) {
                    Some(text) if text.chars().count() > 40 => {
                        format!("`{}...`", text.chars().take(40).collect::<String>())
                    }
                    Some(text) => format!("`{text}`"),
                    None => "a token".into(),
                }
            }
        }
    }

    fn found(&self) -> String {
        self.describe(self.pos)
    }

    fn report(&mut self, d: Diagnostic) -> Reported {
        self.diags.push(d);
        Reported
    }

    /// Report "expected X, found Y" at the current token.
    fn expected(&mut self, what: &str) -> Reported {
        let d = Diagnostic::parse(self.span(), format!("expected {what}, found {}", self.found()))
            .with_label(format!("expected {what}"));
        self.report(d)
    }

    fn expect(&mut self, t: Tok, what: &str) -> PResult<Span> {
        if self.at(&t) {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_kw(&mut self, k: Kw) -> PResult<Span> {
        self.expect(Tok::Kw(k), &format!("`{}`", k.as_str()))
    }

    fn ident(&mut self, what: &str) -> PResult<(Name, Span)> {
        match self.tok().clone() {
            Tok::Ident(n) => Ok((n, self.bump())),
            _ => Err(self.expected(what)),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Depth bounds and node construction

    /// Enter one level of recursion; fails (reported) beyond `MAX_DEPTH`.
    fn enter(&mut self) -> PResult<()> {
        self.rec += 1;
        if self.rec > MAX_DEPTH {
            self.rec -= 1;
            return Err(self.too_deep(self.span()));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.rec -= 1;
    }

    fn too_deep(&mut self, span: Span) -> Reported {
        let d =
            Diagnostic::parse(span, format!("nested too deeply (more than {MAX_DEPTH} levels)"))
                .with_hint("split the expression with `let` bindings or separate functions");
        self.report(d)
    }

    fn fresh(&mut self, depth: u32) -> NodeId {
        let id = self.next_id;
        self.next_id += 1;
        self.depths.push(depth);
        NodeId(id)
    }

    fn depth_of(&self, id: NodeId) -> u32 {
        self.depths.get(id.0 as usize).copied().unwrap_or(0)
    }

    fn mk_pat(&mut self, kind: PatKind, span: Span) -> PResult<Pat> {
        let mut d = 0;
        visit::for_each_sub_pat(&kind, &mut |p| d = d.max(self.depth_of(p.id)));
        let d = d + 1;
        if d > MAX_DEPTH {
            return Err(self.too_deep(span));
        }
        Ok(Pat { kind, span, id: self.fresh(d) })
    }

    /// A new expression node. The parser passes expressions around boxed (as the tree stores
    /// them), which keeps its stack frames small.
    fn mk(&mut self, kind: ExprKind, span: Span) -> PResult<Box<Expr>> {
        let mut d = 0;
        visit::for_each_child(&kind, &mut |c| {
            let id = match c {
                visit::Child::Expr(e) => e.id,
                visit::Child::Pat(p) => p.id,
            };
            d = d.max(self.depth_of(id));
        });
        let d = d + 1;
        if d > MAX_DEPTH {
            return Err(self.too_deep(span));
        }
        Ok(Box::new(Expr { kind, span, id: self.fresh(d) }))
    }
}

/// The fields of a record whose labels are `0` to `n-1` (n ≥ 2), in label order: Futhark's
/// tuples are those records, so `{0 = a, 1 = b}` is `(a, b)`.
pub(crate) fn tuple_fields<T>(mut fields: Vec<(Name, T)>) -> Result<Vec<T>, Vec<(Name, T)>> {
    let n = fields.len();
    let index = |name: &str| name.parse::<usize>().ok().filter(|i| *i < n && i.to_string() == name);
    let mut seen = vec![false; n];
    let numbered = n >= 2
        && fields.iter().all(|(name, _)| match index(name) {
            Some(i) if !seen[i] => {
                seen[i] = true;
                true
            }
            _ => false,
        });
    if !numbered {
        return Err(fields);
    }
    fields.sort_by_key(|(name, _)| index(name));
    Ok(fields.into_iter().map(|(_, v)| v).collect())
}
