//! The constructs that bind names or choose between branches: `if`, lambdas, `loop`, `match`
//! and `let` (with local functions and in-place updates). Each extends as far right as possible.

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    #[inline(never)]
    pub(super) fn if_exp(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let c = self.exp()?;
        if !self.at_kw(Kw::Then) {
            return Err(self.expected("`then`"));
        }
        self.bump();
        let t = self.exp()?;
        if !self.at_kw(Kw::Else) {
            let d =
                Diagnostic::parse(self.span(), format!("expected `else`, found {}", self.found()))
                    .with_label("expected `else`")
                    .with_secondary(start, "this `if` has no `else` branch")
                    .with_hint("Futhark's `if` always needs an `else` branch");
            return Err(self.report(d));
        }
        self.bump();
        let e = self.exp()?;
        let span = start.to(e.span);
        self.mk(ExprKind::If(c, t, e), span)
    }

    #[inline(never)]
    pub(super) fn lambda(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let params = self.params()?;
        if params.is_empty() {
            return Err(self.expected("a lambda parameter"));
        }
        let ret = if self.eat(&Tok::Colon) { Some(self.type_term()?) } else { None };
        self.expect(Tok::Arrow, "`->`")?;
        let body = self.exp()?;
        let span = start.to(body.span);
        self.mk(ExprKind::Lambda { params, ret, body }, span)
    }

    #[inline(never)]
    pub(super) fn loop_exp(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let pat = self.pat()?;
        let init = if self.eat(&Tok::Equals) { Some(self.exp()?) } else { None };
        let form = if self.eat_kw(Kw::For) {
            if matches!(self.tok(), Tok::Ident(_))
                && matches!(self.tok_at(1), Tok::Op(o) if o == "<")
            {
                let (var, var_span) = self.ident("a loop variable")?;
                self.bump();
                LoopForm::For { var, var_span, bound: self.exp()? }
            } else {
                let p = self.pat()?;
                self.expect_kw(Kw::In)?;
                LoopForm::ForIn(p, self.exp()?)
            }
        } else if self.eat_kw(Kw::While) {
            LoopForm::While(self.exp()?)
        } else {
            let what = if init.is_some() { "`for` or `while`" } else { "`=`, `for` or `while`" };
            return Err(self.expected(what));
        };
        self.expect_kw(Kw::Do)?;
        let body = self.exp()?;
        let span = start.to(body.span);
        self.mk(ExprKind::Loop { pat, init, form, body }, span)
    }

    #[inline(never)]
    pub(super) fn match_exp(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let scrutinee = self.exp()?;
        let mut cases = Vec::new();
        while self.eat_kw(Kw::Case) {
            let p = self.pat()?;
            self.expect(Tok::Arrow, "`->`")?;
            let body = self.exp()?;
            cases.push((p, *body));
        }
        if cases.is_empty() {
            return Err(self.expected("`case`"));
        }
        let span = self.span_from(start);
        self.mk(ExprKind::Match(scrutinee, cases), span)
    }

    /// `let` expressions. A chain of `let`s is parsed in a loop (and nested from the inside out),
    /// so long chains cost no parser stack.
    #[inline(never)]
    pub(super) fn let_exp(&mut self) -> PResult<Box<Expr>> {
        let mut bindings = Vec::new();
        let body = loop {
            bindings.push(self.let_binding()?);
            if self.at_kw(Kw::Let) {
                continue;
            }
            if self.eat_kw(Kw::In) {
                if self.at_kw(Kw::Let) {
                    continue;
                }
                break self.exp()?;
            }
            let mut d =
                Diagnostic::parse(self.span(), format!("expected `in`, found {}", self.found()))
                    .with_label("expected `in`");
            if matches!(self.tok(), Tok::Kw(Kw::Def | Kw::Entry | Kw::Type))
                || self.token().is_some_and(|t| t.col1)
            {
                d = d.with_hint("is `in` missing after the last `let`?");
            }
            return Err(self.report(d));
        };
        let mut body = body;
        while let Some(b) = bindings.pop() {
            let span = b.start.to(body.span);
            let kind = match b.kind {
                Binding::Pat { sizes, pat, rhs } => ExprKind::Let { sizes, pat, rhs, body },
                Binding::Fun { name, name_span, type_params, params, ret, rhs } => {
                    ExprKind::LetFun { name, name_span, type_params, params, ret, rhs, body }
                }
                Binding::With { name, name_span, indices, value } => {
                    ExprKind::LetWith { name, name_span, indices, value, body }
                }
            };
            body = self.mk(kind, span)?;
        }
        Ok(body)
    }

    /// One `let ... = e`, without its body.
    #[inline(never)]
    fn let_binding(&mut self) -> PResult<LetBinding> {
        let start = self.bump();
        let kind = if self.at_lbracket()
            && matches!(self.tok_at(1), Tok::Ident(_))
            && *self.tok_at(2) == Tok::RBracket
        {
            let mut sizes = Vec::new();
            while self.at_lbracket()
                && matches!(self.tok_at(1), Tok::Ident(_))
                && *self.tok_at(2) == Tok::RBracket
            {
                self.bump();
                sizes.push(self.ident("a size name")?);
                self.bump();
            }
            let pat = self.pat()?;
            self.expect(Tok::Equals, "`=`")?;
            Binding::Pat { sizes, pat, rhs: self.exp()? }
        } else if matches!(self.tok(), Tok::Ident(_)) && *self.tok_at(1) == Tok::IndexBracket {
            let (name, name_span) = self.ident("a name")?;
            self.bump();
            let indices = self.dim_indices()?;
            self.expect(Tok::Equals, "`=`")?;
            Binding::With { name, name_span, indices, value: self.exp()? }
        } else if let Some((name, name_span)) = self.operator_name() {
            // A local operator: `let (+^) x y = ...`, or `let (+) = i32.max` (in its scope only,
            // which name resolution tells from the built-in one).
            if super::expr::is_builtin_operator(&name) {
                self.needs_resolution = true;
            } else {
                self.user_operator(&name, name_span, false)?;
            }
            if self.at(&Tok::Equals) {
                self.bump();
                let pat = self.mk_pat(PatKind::Var(name), name_span)?;
                Binding::Pat { sizes: Vec::new(), pat, rhs: self.exp()? }
            } else {
                self.local_function(name, name_span)?
            }
        } else if matches!(self.tok(), Tok::Ident(_)) && self.at_fun_params_after_name() {
            let (name, name_span) = self.ident("a name")?;
            self.local_function(name, name_span)?
        } else {
            let pat = self.pat()?;
            self.expect(Tok::Equals, "`=`")?;
            Binding::Pat { sizes: Vec::new(), pat, rhs: self.exp()? }
        };
        Ok(LetBinding { start, kind })
    }

    /// After `let name`: a local function's type parameters, parameters, return type and body.
    fn local_function(&mut self, name: Name, name_span: Span) -> PResult<Binding> {
        let type_params = self.type_params()?;
        let params = self.params()?;
        if params.is_empty() {
            return Err(self.expected("a function parameter"));
        }
        let ret = if self.eat(&Tok::Colon) { Some(self.type_exp()?) } else { None };
        self.expect(Tok::Equals, "`=`")?;
        Ok(Binding::Fun { name, name_span, type_params, params, ret, rhs: self.exp()? })
    }

    /// At `name` in `let name ...`: do parameters follow (a local function)?
    fn at_fun_params_after_name(&self) -> bool {
        matches!(
            self.tok_at(1),
            Tok::Ident(_)
                | Tok::Underscore
                | Tok::LParen
                | Tok::LBrace
                | Tok::LBracket
                | Tok::Apostrophe
                | Tok::ApostropheHat
                | Tok::ApostropheTilde
                | Tok::Int { .. }
                | Tok::Float(..)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::Constructor(_)
        )
    }
}

struct LetBinding {
    start: Span,
    kind: Binding,
}

enum Binding {
    Pat {
        sizes: Vec<(Name, Span)>,
        pat: Pat,
        rhs: Box<Expr>,
    },
    Fun {
        name: Name,
        name_span: Span,
        type_params: Vec<TypeParam>,
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        rhs: Box<Expr>,
    },
    With {
        name: Name,
        name_span: Span,
        indices: Vec<DimIndex>,
        value: Box<Expr>,
    },
}
