//! Type expressions, following Futhark's `TypeExp` / `TypeExpTerm` / `TypeExpAtom` layers.

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::prim::PrimType;
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;

impl Parser<'_> {
    /// `TypeExp`: function types `t1 -> t2`, `(x: t1) -> t2`, and existentials `?[n].t`.
    pub(super) fn type_exp(&mut self) -> PResult<TypeExp> {
        self.enter()?;
        let r = self.type_exp_inner();
        self.leave();
        r
    }

    fn type_exp_inner(&mut self) -> PResult<TypeExp> {
        let start = self.span();
        if self.at(&Tok::LParen)
            && matches!(self.tok_at(1), Tok::Ident(_))
            && *self.tok_at(2) == Tok::Colon
        {
            self.bump();
            let (name, _) = self.ident("a parameter name")?;
            self.bump();
            let param = self.type_exp()?;
            self.expect(Tok::RParen, "`)`")?;
            self.expect_arrow()?;
            let ret = self.type_exp()?;
            let span = start.to(ret.span);
            return Ok(TypeExp {
                kind: TypeExpKind::Arrow(Some(name), Box::new(param), Box::new(ret)),
                span,
            });
        }
        if self.eat(&Tok::Question) {
            let mut names = Vec::new();
            while self.at_lbracket() {
                self.bump();
                names.push(self.ident("a size name")?.0);
                self.expect(Tok::RBracket, "`]`")?;
            }
            if names.is_empty() {
                return Err(self.expected("`[`"));
            }
            self.expect(Tok::Dot, "`.`")?;
            let t = self.type_exp()?;
            let span = start.to(t.span);
            return Ok(TypeExp { kind: TypeExpKind::Exists(names, Box::new(t)), span });
        }
        let t = self.type_term()?;
        if self.at(&Tok::Arrow) {
            self.bump();
            let ret = self.type_exp()?;
            let span = t.span.to(ret.span);
            return Ok(TypeExp {
                kind: TypeExpKind::Arrow(None, Box::new(t), Box::new(ret)),
                span,
            });
        }
        Ok(t)
    }

    fn expect_arrow(&mut self) -> PResult<Span> {
        if let Tok::Op(op) = self.tok() {
            if op.starts_with("->") {
                let d = Diagnostic::parse(self.span(), format!("expected `->`, found `{op}`"))
                    .with_label("expected `->`")
                    .with_hint("put a space after `->`");
                return Err(self.report(d));
            }
        }
        self.expect(Tok::Arrow, "`->`")
    }

    /// `TypeExpTerm`: uniqueness `*t`, sum types `#a t | #b`, and type application.
    pub(super) fn type_term(&mut self) -> PResult<TypeExp> {
        let start = self.span();
        if self.at_op("*") {
            self.bump();
            self.enter()?;
            let t = self.type_term();
            self.leave();
            let t = t?;
            let span = start.to(t.span);
            return Ok(TypeExp { kind: TypeExpKind::Unique(Box::new(t)), span });
        }
        if matches!(self.tok(), Tok::Constructor(_)) {
            let mut clauses = Vec::new();
            loop {
                let Tok::Constructor(name) = self.tok().clone() else {
                    return Err(self.expected("a constructor"));
                };
                self.bump();
                let mut payload = Vec::new();
                while self.at_type_atom_start() {
                    payload.push(self.type_atom()?);
                }
                clauses.push((name, payload));
                if !self.at_op("|") {
                    break;
                }
                self.bump();
            }
            let span = self.span_from(start);
            return Ok(TypeExp { kind: TypeExpKind::Sum(clauses), span });
        }
        // A name applied to arguments: `vec [n] f32`.
        if let Tok::Ident(name) = self.tok().clone() {
            if PrimType::from_name(&name).is_none() {
                self.bump();
                let name = self.qualified_rest(name);
                let mut args = Vec::new();
                loop {
                    if self.at_lbracket() {
                        args.push(TypeArg::Size(self.size_exp()?));
                    } else if self.at_type_atom_start() {
                        args.push(TypeArg::Type(self.type_atom()?));
                    } else {
                        break;
                    }
                }
                let span = self.span_from(start);
                return Ok(TypeExp { kind: TypeExpKind::Named(name, args), span });
            }
        }
        self.type_atom()
    }

    /// After the name `first`: `.n` steps written without spaces make a qualified name
    /// (`M.t`, `M.N.t`), a type declared in a module.
    fn qualified_rest(&mut self, first: Name) -> Name {
        let mut name = first;
        while self.at(&Tok::Dot)
            && matches!(self.tok_at(1), Tok::Ident(_))
            && self.span().start == self.prev_end()
        {
            self.bump();
            if let Tok::Ident(n) = self.tok().clone() {
                self.bump();
                name = format!("{name}.{n}");
            }
        }
        name
    }

    fn at_type_atom_start(&self) -> bool {
        match self.tok() {
            Tok::Ident(_) | Tok::LParen | Tok::LBrace | Tok::LBracket | Tok::IndexBracket => true,
            Tok::QualIdent(n) => n.ends_with(".t"),
            _ => false,
        }
    }

    /// `TypeExpAtom`: names, tuples, records, parenthesised types, and arrays `[n]t`.
    /// Nested types recurse through `type_exp`, which counts the depth, except for arrays
    /// (`[][][]t`) and uniqueness (`* * t`), which count themselves.
    fn type_atom(&mut self) -> PResult<TypeExp> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Ident(name) => {
                self.bump();
                match PrimType::from_name(&name) {
                    Some(p) => TypeExpKind::Prim(p),
                    None => TypeExpKind::Named(self.qualified_rest(name), Vec::new()),
                }
            }
            // `f32.t`: a numeric module's type.
            Tok::QualIdent(name) if name.ends_with(".t") => {
                match PrimType::from_name(&name[..name.len() - 2]) {
                    Some(p) => {
                        self.bump();
                        TypeExpKind::Prim(p)
                    }
                    None => return Err(self.expected("a type")),
                }
            }
            Tok::LBracket | Tok::IndexBracket => {
                let d = self.size_exp()?;
                self.enter()?;
                let elem = self.type_term();
                self.leave();
                TypeExpKind::Array(d, Box::new(elem?))
            }
            Tok::LParen => {
                self.bump();
                let mut elems = Vec::new();
                let mut trailing_comma = false;
                loop {
                    if self.eat(&Tok::RParen) {
                        break;
                    }
                    elems.push(self.type_exp()?);
                    trailing_comma = self.eat(&Tok::Comma);
                    if !trailing_comma {
                        self.expect(Tok::RParen, "`,` or `)`")?;
                        break;
                    }
                }
                if elems.len() == 1 && !trailing_comma {
                    let mut t = elems.pop().ok_or(super::Reported)?;
                    t.span = self.span_from(start);
                    return Ok(t);
                }
                TypeExpKind::Tuple(elems)
            }
            Tok::LBrace => {
                self.bump();
                let mut fields = Vec::new();
                loop {
                    if self.eat(&Tok::RBrace) {
                        break;
                    }
                    let name = self.field_name()?;
                    self.expect(Tok::Colon, "`:`")?;
                    fields.push((name, self.type_exp()?));
                    if !self.eat(&Tok::Comma) {
                        self.expect(Tok::RBrace, "`,` or `}`")?;
                        break;
                    }
                }
                match super::tuple_fields(fields) {
                    Ok(elems) => TypeExpKind::Tuple(elems),
                    Err(fields) => TypeExpKind::Record(fields),
                }
            }
            _ => return Err(self.expected("a type")),
        };
        Ok(TypeExp { kind, span: self.span_from(start) })
    }

    /// `[n]`, `[3]`, `[]`, or a size computed from others with `+ - * / %` and parentheses
    /// (`[n*m]`, `[(n+1)/2]`). Other size expressions (calls, `if`) are reported as unsupported
    /// (and read as `[]`).
    pub(super) fn size_exp(&mut self) -> PResult<SizeExp> {
        let start = self.bump();
        if *self.tok() == Tok::RBracket {
            self.bump();
            return Ok(SizeExp { kind: SizeExpKind::Any, span: self.span_from(start) });
        }
        let parsed = self.size_sum(0)?;
        let kind = match parsed {
            Some(e) if *self.tok() == Tok::RBracket => e.kind,
            _ => {
                let d = Diagnostic::parse(
                    self.span(),
                    "unsupported: size expressions other than names, integer constants and `+ - * / %`",
                )
                .with_label("a size here is built from size names and constants")
                .with_hint("bind the size to a name with `let`, or use `[]` (an unknown size) and, where needed, a coercion `:>`");
                self.diags.push(d);
                self.skip_to_rbracket();
                SizeExpKind::Any
            }
        };
        self.expect(Tok::RBracket, "`]`")?;
        Ok(SizeExp { kind, span: self.span_from(start) })
    }

    /// The operators of size expressions, with their precedence (as in expressions).
    fn size_op(&self) -> Option<SizeOp> {
        match self.tok() {
            Tok::Op(o) => match o.as_str() {
                "+" => Some(SizeOp::Add),
                "-" => Some(SizeOp::Sub),
                "*" => Some(SizeOp::Mul),
                "/" => Some(SizeOp::Div),
                "%" => Some(SizeOp::Mod),
                _ => None,
            },
            _ => None,
        }
    }

    /// Operands and operators binding tighter than `min` (left-associative); `None` where what
    /// follows is not a size expression (the caller reports it and skips to `]`).
    fn size_sum(&mut self, min: u8) -> PResult<Option<SizeExp>> {
        let start = self.span();
        let Some(mut lhs) = self.size_atom()? else { return Ok(None) };
        while let Some(op) = self.size_op().filter(|op| op.prec() > min) {
            self.bump();
            let Some(rhs) = self.size_sum(op.prec())? else { return Ok(None) };
            let kind = SizeExpKind::Bin(op, Box::new(lhs), Box::new(rhs));
            lhs = SizeExp { kind, span: self.span_from(start) };
        }
        Ok(Some(lhs))
    }

    fn size_atom(&mut self) -> PResult<Option<SizeExp>> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Ident(n) => SizeExpKind::Var(n),
            Tok::Int { value, suffix: None | Some(crate::prim::IntType::I64), .. } => {
                match i64::try_from(value) {
                    Ok(v) => SizeExpKind::Const(v),
                    Err(_) => return Ok(None),
                }
            }
            Tok::LParen => {
                self.bump();
                self.enter()?;
                let e = self.size_sum(0);
                self.leave();
                let Some(e) = e? else { return Ok(None) };
                if *self.tok() != Tok::RParen {
                    return Ok(None);
                }
                self.bump();
                return Ok(Some(SizeExp { kind: e.kind, span: self.span_from(start) }));
            }
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(SizeExp { kind, span: start }))
    }

    /// Skip to the `]` closing the current bracket (not consuming it).
    fn skip_to_rbracket(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => return,
                Tok::RBracket if depth == 0 => return,
                Tok::RBracket => depth -= 1,
                Tok::LBracket | Tok::IndexBracket => depth += 1,
                _ => {}
            }
            self.bump();
        }
    }
}
