//! The module language: `module` bindings, module types, `open` and `local`, module expressions
//! (paths, structures `{...}`, application `F m`, ascription `m : S`) and module types (`{ val f:
//! t ... }`, `S with t = i32`).

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// At `module`: a module binding or, after `module type`, a module type binding.
    pub(super) fn module_dec(&mut self) -> PResult<SrcDec> {
        let start = self.bump();
        if self.eat_kw(Kw::Type) {
            let (name, name_span) = self.ident("a module type name")?;
            self.expect(Tok::Equals, "`=`")?;
            let sig = self.sig_exp()?;
            let span = start.to(sig.span);
            return Ok(SrcDec::ModType { name, name_span, sig, span });
        }
        let (name, name_span) = self.ident("a module name")?;
        let mut params = Vec::new();
        while self.at(&Tok::LParen) {
            let p_start = self.bump();
            let (pname, _) = self.ident("a module parameter name")?;
            self.expect(Tok::Colon, "`:`")?;
            let sig = self.sig_exp()?;
            self.expect(Tok::RParen, "`)`")?;
            params.push(ModParam { name: pname, sig, span: self.span_from(p_start) });
        }
        let sig = if self.eat(&Tok::Colon) { Some(self.sig_exp()?) } else { None };
        self.expect(Tok::Equals, "`=`")?;
        let body = self.mod_exp()?;
        let span = start.to(body.span);
        Ok(SrcDec::Module(ModBind { name, name_span, params, sig, body, span }))
    }

    /// `m`, `F m1 m2`, `m : S`.
    pub(super) fn mod_exp(&mut self) -> PResult<ModExp> {
        self.enter()?;
        let r = self.mod_exp_inner();
        self.leave();
        r
    }

    fn mod_exp_inner(&mut self) -> PResult<ModExp> {
        let start = self.span();
        if self.at(&Tok::Backslash) {
            let d = Diagnostic::parse(start, "unsupported: anonymous parametric modules")
                .with_hint("bind the parametric module with `module F (P: S) = ...`");
            return Err(self.report(d));
        }
        let mut m = self.mod_atom()?;
        while self.at_mod_atom_start() {
            let arg = self.mod_atom()?;
            let span = m.span.to(arg.span);
            m = ModExp { kind: ModExpKind::Apply(Box::new(m), Box::new(arg)), span };
        }
        while self.eat(&Tok::Colon) {
            let sig = self.sig_exp()?;
            let span = m.span.to(sig.span);
            m = ModExp { kind: ModExpKind::Ascribe(Box::new(m), sig), span };
        }
        Ok(m)
    }

    fn at_mod_atom_start(&self) -> bool {
        matches!(self.tok(), Tok::Ident(_) | Tok::LBrace | Tok::LParen)
    }

    fn mod_atom(&mut self) -> PResult<ModExp> {
        let start = self.span();
        let kind = match self.tok() {
            Tok::Ident(_) => ModExpKind::Var(self.path("a module name")?),
            Tok::LBrace => {
                self.bump();
                self.in_module += 1;
                let decs = self.struct_body();
                self.in_module -= 1;
                ModExpKind::Struct(decs?)
            }
            Tok::LParen => {
                self.bump();
                let m = self.mod_exp()?;
                self.expect(Tok::RParen, "`)`")?;
                return Ok(ModExp { kind: m.kind, span: self.span_from(start) });
            }
            _ => return Err(self.expected("a module expression")),
        };
        Ok(ModExp { kind, span: self.span_from(start) })
    }

    /// The declarations of `{ ... }` after the `{`, and the `}`.
    fn struct_body(&mut self) -> PResult<Vec<SrcDec>> {
        let mut decs = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if self.at(&Tok::Eof) {
                return Err(self.expected("a declaration or `}`"));
            }
            decs.push(self.src_dec()?);
        }
        Ok(decs)
    }

    /// `M`, `M.N.x`: names joined by `.` with no space around it.
    fn path(&mut self, what: &str) -> PResult<Vec<(Name, Span)>> {
        let mut out = vec![self.ident(what)?];
        while self.at(&Tok::Dot)
            && matches!(self.tok_at(1), Tok::Ident(_))
            && self.span().start == self.prev_end()
        {
            self.bump();
            out.push(self.ident(what)?);
        }
        Ok(out)
    }

    /// A module type: `S`, `{ specs }`, `S with t = t'`.
    fn sig_exp(&mut self) -> PResult<SigExp> {
        self.enter()?;
        let r = self.sig_exp_inner();
        self.leave();
        r
    }

    fn sig_exp_inner(&mut self) -> PResult<SigExp> {
        let start = self.span();
        let mut s = match self.tok() {
            Tok::Ident(_) => {
                SigExp { kind: SigExpKind::Var(self.path("a module type name")?), span: start }
            }
            Tok::LBrace => {
                self.bump();
                let mut specs = Vec::new();
                while !self.eat(&Tok::RBrace) {
                    specs.push(self.spec()?);
                }
                SigExp { kind: SigExpKind::Specs(specs), span: self.span_from(start) }
            }
            Tok::LParen => {
                self.bump();
                if matches!(self.tok(), Tok::Ident(_)) && *self.tok_at(1) == Tok::Colon {
                    return Err(self.functor_type(start));
                }
                let s = self.sig_exp()?;
                self.expect(Tok::RParen, "`)`")?;
                SigExp { kind: s.kind, span: self.span_from(start) }
            }
            _ => return Err(self.expected("a module type")),
        };
        if let SigExpKind::Var(p) = &s.kind {
            s.span = p[0].1.to(p[p.len() - 1].1);
        }
        while self.eat_kw(Kw::With) {
            let path = self.path("a type name")?;
            self.type_params()?;
            self.expect(Tok::Equals, "`=`")?;
            let t = self.type_exp()?;
            let span = s.span.to(t.span);
            let names = path.into_iter().map(|(n, _)| n).collect();
            s = SigExp { kind: SigExpKind::With(Box::new(s), names), span };
        }
        if self.at(&Tok::Arrow) {
            return Err(self.functor_type(start));
        }
        Ok(s)
    }

    fn functor_type(&mut self, start: Span) -> super::Reported {
        let d = Diagnostic::parse(start, "unsupported: module types of parametric modules")
            .with_hint("give the parametric module's parameters and result their own module types");
        self.report(d)
    }

    /// One specification in a module type.
    fn spec(&mut self) -> PResult<Spec> {
        let start = self.span();
        match self.tok() {
            Tok::Kw(Kw::Val) => {
                self.bump();
                let (name, _) = match self.operator_name() {
                    Some(op) => op,
                    None => self.ident("a name")?,
                };
                self.type_params()?;
                self.expect(Tok::Colon, "`:`")?;
                let t = self.type_exp()?;
                Ok(Spec::Val { name, span: start.to(t.span) })
            }
            Tok::Kw(Kw::Type) => {
                self.bump();
                if self.at_op("^") || self.at(&Tok::Tilde) {
                    self.bump();
                }
                let (name, name_span) = self.ident("a type name")?;
                self.type_params()?;
                let span = if self.eat(&Tok::Equals) {
                    start.to(self.type_exp()?.span)
                } else {
                    start.to(name_span)
                };
                Ok(Spec::Type { name, span })
            }
            Tok::Kw(Kw::Module) => {
                self.bump();
                let (name, _) = self.ident("a module name")?;
                self.expect(Tok::Colon, "`:`")?;
                let sig = self.sig_exp()?;
                Ok(Spec::Module { name, span: start.to(sig.span), sig })
            }
            Tok::Kw(Kw::Include) => {
                self.bump();
                Ok(Spec::Include(self.sig_exp()?))
            }
            _ => Err(self.expected("a specification (`val`, `type`, `module`, `include`) or `}`")),
        }
    }
}
