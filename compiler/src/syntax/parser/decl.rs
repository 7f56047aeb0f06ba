//! Declarations, whole programs, and error recovery between declarations.

use super::{PResult, Parser};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// A whole program. Errors are in `self.diags`; the declarations that parsed are returned.
    pub fn program(&mut self) -> Vec<SrcDec> {
        let mut decs = Vec::new();
        while !self.at(&Tok::Eof) {
            let start = self.pos;
            match self.src_dec() {
                Ok(d) => decs.push(d),
                Err(_) => {
                    if self.pos == start {
                        self.bump();
                    }
                    self.recover();
                }
            }
        }
        decs
    }

    /// Skip to the next declaration keyword at column 1.
    fn recover(&mut self) {
        self.rec = 0;
        self.negated = false;
        while !self.at(&Tok::Eof) {
            let at_dec = matches!(
                self.tok(),
                Tok::Kw(
                    Kw::Def | Kw::Entry | Kw::Type | Kw::Let | Kw::Module | Kw::Open | Kw::Local
                )
            );
            if at_dec && self.token().is_some_and(|t| t.col1) {
                return;
            }
            self.bump();
        }
    }

    /// A declaration, module language included.
    pub(super) fn src_dec(&mut self) -> PResult<SrcDec> {
        let start = self.span();
        let doc = self.token().and_then(|t| t.doc.clone());
        match self.tok() {
            Tok::Kw(Kw::Def | Kw::Let) => {
                self.val_dec(false, doc).map(|d| SrcDec::Dec(Dec::Val(d)))
            }
            Tok::Kw(Kw::Entry) => self.val_dec(true, doc).map(|d| SrcDec::Dec(Dec::Val(d))),
            Tok::Kw(Kw::Type) => self.type_dec().map(|d| SrcDec::Dec(Dec::Type(d))),
            Tok::Kw(Kw::Module) => self.module_dec(),
            Tok::Kw(Kw::Open) => {
                self.bump();
                let m = self.mod_exp()?;
                let span = start.to(m.span);
                Ok(SrcDec::Open(m, span))
            }
            Tok::Kw(Kw::Local) => {
                self.bump();
                let d = self.src_dec()?;
                Ok(SrcDec::Local(Box::new(d), self.span_from(start)))
            }
            Tok::Kw(Kw::Import) => {
                let d = Diagnostic::parse(start, "unsupported: `import`")
                    .with_hint("an Ogham program is one file: copy the imported declarations into it, in modules if need be");
                Err(self.report(d))
            }
            Tok::Kw(Kw::Include) => {
                let d = Diagnostic::parse(start, "`include` belongs in a module type")
                    .with_hint("to bring a module's names into scope, `open` it");
                Err(self.report(d))
            }
            Tok::Kw(Kw::Val) => {
                let d = Diagnostic::parse(
                    start,
                    "unsupported: `val` specifications outside module types",
                );
                Err(self.report(d))
            }
            _ => Err(self
                .expected("a declaration (`def`, `entry`, `type`, `module`, `open` or `local`)")),
        }
    }

    fn val_dec(&mut self, entry: bool, doc: Option<String>) -> PResult<ValDec> {
        let start = self.bump();
        let named = match self.operator_name() {
            // `def (+^) x y`
            Some((name, span)) => {
                self.user_operator(&name, span, entry)?;
                Some((name, span))
            }
            None if self.at_infix_definition() => None,
            None => Some(self.ident("a name")?),
        };
        let (name, name_span, type_params, params) = match named {
            Some((name, span)) => (name, span, self.type_params()?, self.params()?),
            None => {
                // `def x +^ y` or `def (x: t) +^ (y: t)`
                let x = self.param_pat()?;
                let Tok::Op(name) = self.tok().clone() else {
                    return Err(self.expected("an operator"));
                };
                let span = self.bump();
                self.user_operator(&name, span, entry)?;
                let y = self.param_pat()?;
                (name, span, Vec::new(), vec![x, y])
            }
        };
        let ret = if self.eat(&Tok::Colon) { Some(self.type_exp()?) } else { None };
        if !self.at(&Tok::Equals) {
            let what = if ret.is_some() { "`=`" } else { "a parameter, `:` or `=`" };
            return Err(self.expected(what));
        }
        self.bump();
        let body = self.exp()?;
        let span = start.to(body.span);
        Ok(ValDec { entry, name, name_span, type_params, params, ret, body: *body, doc, span })
    }

    /// At `(op)`: the operator and its span, after reading it.
    pub(super) fn operator_name(&mut self) -> Option<(Name, Span)> {
        let Tok::Op(op) = self.tok_at(1).clone() else { return None };
        if !self.at(&Tok::LParen) || *self.tok_at(2) != Tok::RParen {
            return None;
        }
        self.bump();
        let span = self.bump();
        self.bump();
        Some((op, span))
    }

    /// At the first parameter of an infix definition: a name or a parenthesised pattern, then
    /// an operator.
    fn at_infix_definition(&self) -> bool {
        match self.tok() {
            Tok::Ident(_) => matches!(self.tok_at(1), Tok::Op(_)),
            Tok::LParen => {
                // The operator after the matching parenthesis.
                let mut depth = 0usize;
                let mut k = 0;
                loop {
                    match self.tok_at(k) {
                        Tok::LParen => depth += 1,
                        Tok::RParen => {
                            depth -= 1;
                            if depth == 0 {
                                return matches!(self.tok_at(k + 1), Tok::Op(_));
                            }
                        }
                        Tok::Eof => return false,
                        _ => {}
                    }
                    k += 1;
                }
            }
            _ => false,
        }
    }

    /// Record an operator the program defines; the built-in ones cannot be redefined.
    pub(super) fn user_operator(&mut self, op: &str, span: Span, entry: bool) -> PResult<()> {
        if entry {
            let d =
                Diagnostic::parse(span, format!("an entry point cannot be an operator (`{op}`)"))
                    .with_hint("give the entry point a name and call the operator in it");
            return Err(self.report(d));
        }
        // In a module, `def (+)` declares the module's own `+` (used qualified or opened, as
        // `m.(a + b)`); at the top level it would change every later `+`.
        if super::expr::is_builtin_operator(op) && self.in_module == 0 {
            let d = Diagnostic::parse(
                span,
                format!("unsupported: redefining the built-in operator `{op}` at the top level"),
            )
            .with_hint(
                "define an operator of your own, such as `+^`, or define it in a module and use it there or opened (`m.(a + b)`)",
            );
            return Err(self.report(d));
        }
        self.user_ops.insert(op.to_string());
        Ok(())
    }

    fn type_dec(&mut self) -> PResult<TypeDec> {
        let start = self.bump();
        let liftedness = if self.at_op("^") {
            self.bump();
            Liftedness::Lifted
        } else if self.eat(&Tok::Tilde) {
            Liftedness::SizeLifted
        } else {
            Liftedness::Unlifted
        };
        let (name, _) = self.ident("a type name")?;
        let params = self.type_params()?;
        self.expect(Tok::Equals, "`=`")?;
        let def = self.type_exp()?;
        let span = start.to(def.span);
        Ok(TypeDec { liftedness, name, params, def, span })
    }

    /// A signature `'a [n] : t` (or just `t`); the caller checks that all input was read.
    pub fn val_spec(&mut self) -> PResult<(Vec<TypeParam>, TypeExp)> {
        // Type parameters are tried first; if no `:` follows them, the whole is a type (`[n]t`
        // starts like a size parameter).
        let diags = self.diags.len();
        let pos = self.pos;
        if let Ok(params) = self.type_params() {
            if !params.is_empty() && self.eat(&Tok::Colon) {
                let t = self.type_exp()?;
                return Ok((params, t));
            }
        }
        self.diags.truncate(diags);
        self.pos = pos;
        self.eat(&Tok::Colon);
        Ok((Vec::new(), self.type_exp()?))
    }

    pub fn expect_eof(&mut self) -> PResult<()> {
        if self.at(&Tok::Eof) {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }
}
