//! Patterns and type parameters.

use super::{PResult, Parser};
use crate::diag::Diagnostic;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// `Pat`: `#c p1 p2`, or an inner pattern with an optional `: t`.
    pub(super) fn pat(&mut self) -> PResult<Pat> {
        self.enter()?;
        let r = self.pat_inner();
        self.leave();
        r
    }

    fn pat_inner(&mut self) -> PResult<Pat> {
        let start = self.span();
        let p = match self.tok().clone() {
            Tok::Constructor(name) => {
                self.bump();
                let mut args = Vec::new();
                while self.at_param_start() || self.at_negative_literal() {
                    args.push(self.inner_pat(true)?);
                }
                let span = self.span_from(start);
                let p = self.mk_pat(PatKind::Constr(name, args), span)?;
                if matches!(&p.kind, PatKind::Constr(_, args) if !args.is_empty()) {
                    return Ok(p);
                }
                p
            }
            _ => self.inner_pat(true)?,
        };
        if self.eat(&Tok::Colon) {
            let t = self.type_exp()?;
            let span = p.span.to(t.span);
            return self.mk_pat(PatKind::Ascribed(Box::new(p), t), span);
        }
        Ok(p)
    }

    /// Can a function parameter (or a constructor's payload pattern) start here?
    /// Parameters, as many as follow.
    pub(super) fn params(&mut self) -> PResult<Vec<Pat>> {
        let mut params = Vec::new();
        while self.at_param_start() {
            params.push(self.param_pat()?);
        }
        Ok(params)
    }

    pub(super) fn at_param_start(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Ident(_)
                | Tok::Underscore
                | Tok::LParen
                | Tok::LBrace
                | Tok::Int { .. }
                | Tok::Float(..)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::Constructor(_)
        )
    }

    fn at_negative_literal(&self) -> bool {
        matches!(self.tok(), Tok::Op(o) if o == "-")
            && matches!(self.tok_at(1), Tok::Int { .. } | Tok::Float(..))
    }

    /// A function or lambda parameter: like an inner pattern, but a literal cannot be negative.
    pub(super) fn param_pat(&mut self) -> PResult<Pat> {
        self.inner_pat(false)
    }

    /// Nested patterns recurse through `pat`, which counts the depth.
    fn inner_pat(&mut self, allow_neg: bool) -> PResult<Pat> {
        let start = self.span();
        let negative = allow_neg && self.at_negative_literal();
        if negative {
            self.bump();
        }
        let kind = match self.tok().clone() {
            Tok::Int { value, suffix, decimal } => {
                self.check_signed_minimum(value, suffix, decimal, negative, self.span());
                PatKind::Literal(Literal::Int(if negative { -value } else { value }, suffix))
            }
            Tok::Float(v, t) => PatKind::Literal(Literal::Float(if negative { -v } else { v }, t)),
            Tok::Kw(Kw::True) => PatKind::Literal(Literal::Bool(true)),
            Tok::Kw(Kw::False) => PatKind::Literal(Literal::Bool(false)),
            Tok::Ident(n) => PatKind::Var(n),
            Tok::Underscore => PatKind::Wildcard,
            Tok::Constructor(n) => PatKind::Constr(n, Vec::new()),
            Tok::LParen => return self.paren_pat(),
            Tok::LBrace => return self.record_pat(),
            _ => return Err(self.expected("a pattern")),
        };
        self.bump();
        let span = self.span_from(start);
        self.mk_pat(kind, span)
    }

    fn paren_pat(&mut self) -> PResult<Pat> {
        let start = self.bump();
        if self.eat(&Tok::RParen) {
            let span = self.span_from(start);
            return self.mk_pat(PatKind::Tuple(Vec::new()), span);
        }
        if let (Tok::Op(op), Tok::RParen) = (self.tok(), self.tok_at(1)) {
            // `(<=)`: a variable used as an infix operator in its scope. Name resolution
            // (`modules::resolve`) tells its uses from the built-in operator's.
            let op = op.clone();
            self.bump();
            self.bump();
            self.needs_resolution = true;
            self.user_ops.insert(op.clone());
            let span = self.span_from(start);
            return self.mk_pat(PatKind::Var(op), span);
        }
        if matches!(self.tok(), Tok::Backticked(_)) && *self.tok_at(1) == Tok::RParen {
            let d = Diagnostic::parse(self.span(), "unsupported: binding a backticked name");
            return Err(self.report(d));
        }
        let mut first = self.pat()?;
        if self.eat(&Tok::RParen) {
            first.span = self.span_from(start);
            return Ok(first);
        }
        if !self.eat(&Tok::Comma) {
            return Err(self.expected("`,` or `)`"));
        }
        let mut elems = vec![first];
        loop {
            if self.eat(&Tok::RParen) {
                break;
            }
            elems.push(self.pat()?);
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RParen, "`,` or `)`")?;
                break;
            }
        }
        let span = self.span_from(start);
        self.mk_pat(PatKind::Tuple(elems), span)
    }

    fn record_pat(&mut self) -> PResult<Pat> {
        let start = self.bump();
        let mut fields = Vec::new();
        loop {
            if self.eat(&Tok::RBrace) {
                break;
            }
            let name_span = self.span();
            let name = self.field_name()?;
            let p = if self.eat(&Tok::Equals) {
                self.pat()?
            } else if name.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(self.expected("`=`"));
            } else {
                let var = self.mk_pat(PatKind::Var(name.clone()), name_span)?;
                if self.eat(&Tok::Colon) {
                    let t = self.type_exp()?;
                    let span = name_span.to(t.span);
                    self.mk_pat(PatKind::Ascribed(Box::new(var), t), span)?
                } else {
                    var
                }
            };
            fields.push((name, p));
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RBrace, "`,` or `}`")?;
                break;
            }
        }
        let span = self.span_from(start);
        match super::tuple_fields(fields) {
            Ok(elems) => self.mk_pat(PatKind::Tuple(elems), span),
            Err(fields) => self.mk_pat(PatKind::Record(fields), span),
        }
    }

    /// Type and size parameters: `[n]`, `'a`, `'~a`, `'^a`.
    pub(super) fn type_params(&mut self) -> PResult<Vec<TypeParam>> {
        let mut out = Vec::new();
        loop {
            let start = self.span();
            let liftedness = match self.tok() {
                Tok::Apostrophe => Liftedness::Unlifted,
                Tok::ApostropheTilde => Liftedness::SizeLifted,
                Tok::ApostropheHat => Liftedness::Lifted,
                Tok::LBracket | Tok::IndexBracket => {
                    self.bump();
                    let (name, _) = self.ident("a size parameter name")?;
                    self.expect(Tok::RBracket, "`]`")?;
                    out.push(TypeParam::Size { name, span: self.span_from(start) });
                    continue;
                }
                _ => return Ok(out),
            };
            self.bump();
            let (name, _) = self.ident("a type parameter name")?;
            out.push(TypeParam::Type { name, liftedness, span: self.span_from(start) });
        }
    }
}
