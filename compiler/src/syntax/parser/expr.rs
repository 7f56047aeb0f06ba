//! Expressions.
//!
//! Layers, from loosest to tightest (Futhark's grammar): `Exp` adds `e : t` and `e :> t` to `Exp2`;
//! `Exp2` is a range or a binary expression; binary operators climb Futhark's table (see
//! [`Prec`]); their operands are prefix expressions (`-e`, `!e`, and the constructs that extend as
//! far right as possible: `if`, `let`, `loop`, `match`, lambdas); then application, then atoms
//! with their postfix projections and indexing.

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

/// Binding strength of binary operators and the levels above them, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Prec {
    /// `x \`f\` y`.
    Backtick,
    /// `a with [i] = v`, `r with f = v`.
    With,
    PipeRight,
    /// `<|`, the only right-associative operator.
    PipeLeft,
    Or,
    And,
    /// `== != < <= > >=` and every operator starting with `=`, `!`, `<` or `>` (so `>->` and
    /// `<-<` too).
    Cmp,
    /// `& ^ |`.
    Bitwise,
    Shift,
    /// `+ -` and every operator starting with them (`++`).
    Add,
    Mul,
    Pow,
    /// Prefix `-` and `!`.
    Prefix,
    /// Juxtaposition.
    Apply,
    /// Atoms and their postfix projections and indexing.
    Atom,
}

impl Prec {
    pub fn next(self) -> Prec {
        use Prec::*;
        match self {
            Backtick => With,
            With => PipeRight,
            PipeRight => PipeLeft,
            PipeLeft => Or,
            Or => And,
            And => Cmp,
            Cmp => Bitwise,
            Bitwise => Shift,
            Shift => Add,
            Add => Mul,
            Mul => Pow,
            Pow => Prefix,
            Prefix => Apply,
            Apply | Atom => Atom,
        }
    }
}

/// The operators Ogham defines; any other symbol is reported as unknown.
pub const KNOWN_OPERATORS: [&str; 26] = [
    "+", "-", "*", "/", "%", "//", "%%", "**", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&",
    "|", "^", "<<", ">>", ">>>", "++", "|>", "<|", ">->",
];

/// The precedence class of a symbolic binary operator, by its leading characters as in Futhark.
/// `None` for `!` alone, which is only a prefix operator.
pub fn op_prec(op: &str) -> Option<Prec> {
    const BY_PREFIX: [(&str, Prec); 21] = [
        ("|>", Prec::PipeRight),
        ("<|", Prec::PipeLeft),
        ("||", Prec::Or),
        ("&&", Prec::And),
        ("**", Prec::Pow),
        ("<<", Prec::Shift),
        (">>", Prec::Shift),
        ("<=", Prec::Cmp),
        (">=", Prec::Cmp),
        ("==", Prec::Cmp),
        ("!=", Prec::Cmp),
        ("<", Prec::Cmp),
        (">", Prec::Cmp),
        ("=", Prec::Cmp),
        ("&", Prec::Bitwise),
        ("^", Prec::Bitwise),
        ("|", Prec::Bitwise),
        ("+", Prec::Add),
        ("-", Prec::Add),
        ("*", Prec::Mul),
        ("/", Prec::Mul),
    ];
    if op == "!" {
        return None;
    }
    if op.starts_with('%') {
        return Some(Prec::Mul);
    }
    if op.starts_with('!') {
        return Some(Prec::Cmp);
    }
    BY_PREFIX.iter().find(|(p, _)| op.starts_with(p)).map(|&(_, c)| c)
}

/// The precedence of a binary operator as named in `ExprKind::BinOp` (a symbol or a backticked
/// function name).
pub fn binop_prec(op: &str) -> Prec {
    if op.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        Prec::Backtick
    } else {
        op_prec(op).unwrap_or(Prec::Cmp)
    }
}

fn is_known_operator(op: &str) -> bool {
    KNOWN_OPERATORS.contains(&op) || op == "<-<"
}

impl Parser<'_> {
    /// `Exp`: an expression, possibly with type ascriptions and coercions.
    pub fn exp(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.exp_inner();
        self.leave();
        r
    }

    fn exp_inner(&mut self) -> PResult<Expr> {
        let mut e = self.exp2()?;
        loop {
            let coerce = match self.tok() {
                Tok::Colon => false,
                Tok::ColonGt => true,
                _ => return Ok(e),
            };
            self.bump();
            let t = self.type_exp()?;
            let span = e.span.to(t.span);
            let kind = if coerce {
                ExprKind::Coerce(Box::new(e), t)
            } else {
                ExprKind::Ascript(Box::new(e), t)
            };
            e = self.mk(kind, span)?;
        }
    }

    /// `Exp2`: a range, or a binary expression.
    pub(super) fn exp2(&mut self) -> PResult<Expr> {
        let start = self.binary(Prec::Backtick)?;
        let (second, kind) = match self.tok() {
            Tok::DotDot => {
                self.bump();
                let second = self.binary(Prec::Backtick)?;
                match self.range_end() {
                    Some(kind) => (Some(second), kind),
                    // `a..b`: an inclusive range, as `a...b`.
                    None => {
                        let span = start.span.to(second.span);
                        let range = ExprKind::Range {
                            start: Box::new(start),
                            second: None,
                            end: Box::new(second),
                            kind: RangeEnd::Inclusive,
                        };
                        return self.mk(range, span);
                    }
                }
            }
            _ => match self.range_end() {
                Some(kind) => (None, kind),
                None => return Ok(start),
            },
        };
        let end = self.binary(Prec::Backtick)?;
        let span = start.span.to(end.span);
        let range = ExprKind::Range {
            start: Box::new(start),
            second: second.map(Box::new),
            end: Box::new(end),
            kind,
        };
        self.mk(range, span)
    }

    /// Consume `...`, `..<` or `..>`.
    fn range_end(&mut self) -> Option<RangeEnd> {
        let kind = match self.tok() {
            Tok::DotDotDot => RangeEnd::Inclusive,
            Tok::DotDotLt => RangeEnd::UpToExclusive,
            Tok::DotDotGt => RangeEnd::DownToExclusive,
            _ => return None,
        };
        self.bump();
        Some(kind)
    }

    /// The binary operator at the current token, if any: its name and precedence.
    fn peek_binop(&self) -> Option<(String, Prec)> {
        match self.tok() {
            Tok::Op(op) => op_prec(op).map(|p| (op.clone(), p)),
            Tok::Backticked(f) => Some((f.clone(), Prec::Backtick)),
            Tok::Kw(Kw::With) => Some(("with".into(), Prec::With)),
            _ => None,
        }
    }

    /// Precedence climbing over binary operators of at least `min` precedence.
    pub(super) fn binary(&mut self, min: Prec) -> PResult<Expr> {
        let mut lhs = self.prefix()?;
        while let Some((op, prec)) = self.peek_binop() {
            // `(e op)` is a left section: leave the operator to the parenthesis.
            if prec < min || *self.tok_at(1) == Tok::RParen {
                break;
            }
            let op_span = self.bump();
            if prec == Prec::With {
                lhs = self.with_update(lhs)?;
                continue;
            }
            if matches!(self.toks.get(self.pos - 1).map(|t| &t.tok), Some(Tok::Op(_)))
                && !is_known_operator(&op)
            {
                self.unknown_operator(&op, op_span);
            }
            let rhs_min = if prec == Prec::PipeLeft { prec } else { prec.next() };
            let rhs = self.binary(rhs_min)?;
            let span = lhs.span.to(rhs.span);
            let kind = ExprKind::BinOp { op, op_span, lhs: Box::new(lhs), rhs: Box::new(rhs) };
            lhs = self.mk(kind, span)?;
        }
        Ok(lhs)
    }

    fn unknown_operator(&mut self, op: &str, span: Span) {
        let d = Diagnostic::parse(span, format!("unknown operator `{op}`"))
            .with_label("not an operator Ogham defines")
            .with_hint("user-defined operators are not supported; if this is two operators, separate them with a space");
        self.diags.push(d);
    }

    /// After `lhs with`: `[i] = v` or `f.g = v`.
    fn with_update(&mut self, lhs: Expr) -> PResult<Expr> {
        if self.at_lbracket() {
            self.bump();
            let idx = self.dim_indices()?;
            self.expect(Tok::Equals, "`=`")?;
            let v = self.binary(Prec::With.next())?;
            let span = lhs.span.to(v.span);
            return self.mk(ExprKind::Update(Box::new(lhs), idx, Box::new(v)), span);
        }
        let mut path = vec![self.field_name()?];
        while self.eat(&Tok::Dot) {
            path.push(self.field_name()?);
        }
        self.expect(Tok::Equals, "`=`")?;
        let v = self.binary(Prec::With.next())?;
        let span = lhs.span.to(v.span);
        self.mk(ExprKind::RecordUpdate(Box::new(lhs), path, Box::new(v)), span)
    }

    /// A record field name: a name or a tuple position.
    pub(super) fn field_name(&mut self) -> PResult<Name> {
        match self.tok().clone() {
            Tok::Ident(n) => {
                self.bump();
                Ok(n)
            }
            Tok::Int { value, suffix: None, .. } => {
                self.bump();
                Ok(value.to_string())
            }
            _ => Err(self.expected("a field name")),
        }
    }

    /// Prefix operators, and the constructs that extend as far right as possible.
    fn prefix(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.prefix_inner();
        self.leave();
        r
    }

    fn prefix_inner(&mut self) -> PResult<Expr> {
        let start = self.span();
        match self.tok() {
            Tok::Op(op) if op == "-" || op == "!" => {
                let neg = op == "-";
                self.bump();
                self.negated = neg;
                let e = self.prefix();
                self.negated = false;
                let e = Box::new(e?);
                let span = start.to(e.span);
                self.mk(if neg { ExprKind::Neg(e) } else { ExprKind::Not(e) }, span)
            }
            Tok::Kw(Kw::If) => self.if_exp(),
            Tok::Kw(Kw::Let) => self.let_exp(),
            Tok::Kw(Kw::Loop) => self.loop_exp(),
            Tok::Kw(Kw::Match) => self.match_exp(),
            Tok::Backslash => self.lambda(),
            Tok::Kw(Kw::Assert) => {
                self.bump();
                let c = self.atom_postfix()?;
                let e = self.atom_postfix()?;
                let span = start.to(e.span);
                self.mk(ExprKind::Assert(Box::new(c), Box::new(e)), span)
            }
            _ => self.application(),
        }
    }

    fn at_atom_start(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Ident(_)
                | Tok::QualIdent(_)
                | Tok::Int { .. }
                | Tok::Float(..)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::LParen
                | Tok::LBracket
                | Tok::IndexBracket
                | Tok::LBrace
                | Tok::Constructor(_)
        )
    }

    /// Juxtaposition: `f x y`, and constructor application `#c x y`.
    fn application(&mut self) -> PResult<Expr> {
        if let Tok::Constructor(name) = self.tok().clone() {
            let start = self.bump();
            let mut args = Vec::new();
            while self.at_atom_start() {
                args.push(self.atom_postfix()?);
            }
            let span = self.span_from(start);
            return self.mk(ExprKind::Constr(name, args), span);
        }
        let mut f = self.atom_postfix()?;
        while self.at_atom_start() {
            let x = self.atom_postfix()?;
            let span = f.span.to(x.span);
            f = self.mk(ExprKind::Apply(Box::new(f), Box::new(x)), span)?;
        }
        Ok(f)
    }

    /// An atom followed by projections `.f`, `.0` and indexing `[i, j:k]`.
    pub(super) fn atom_postfix(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        loop {
            match self.tok() {
                Tok::Dot => {
                    self.bump();
                    if self.at(&Tok::LParen) {
                        let d = Diagnostic::parse(
                            self.span(),
                            "unsupported: local module opens (`m.(e)`)",
                        );
                        return Err(self.report(d));
                    }
                    let f = self.field_name()?;
                    let span = self.span_from(e.span);
                    e = self.mk(ExprKind::Project(Box::new(e), f), span)?;
                }
                Tok::IndexBracket => {
                    self.bump();
                    let idx = self.dim_indices()?;
                    let span = self.span_from(e.span);
                    e = self.mk(ExprKind::Index(Box::new(e), idx), span)?;
                }
                _ => return Ok(e),
            }
        }
    }

    /// After `[`: index and slice components up to and including `]`.
    pub(super) fn dim_indices(&mut self) -> PResult<Vec<DimIndex>> {
        let mut out = Vec::new();
        loop {
            if self.eat(&Tok::RBracket) {
                return Ok(out);
            }
            out.push(self.dim_index()?);
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RBracket, "`,` or `]`")?;
                return Ok(out);
            }
        }
    }

    fn at_index_part_end(&self) -> bool {
        matches!(self.tok(), Tok::Colon | Tok::Comma | Tok::RBracket)
    }

    fn dim_index(&mut self) -> PResult<DimIndex> {
        let start = if self.at(&Tok::Colon) { None } else { Some(self.exp2()?) };
        if !self.eat(&Tok::Colon) {
            return match start {
                Some(e) => Ok(DimIndex::Fix(e)),
                None => Err(self.expected("an index")),
            };
        }
        let end = if self.at_index_part_end() { None } else { Some(self.exp2()?) };
        let stride = if self.eat(&Tok::Colon) && !self.at_index_part_end() {
            Some(self.exp2()?)
        } else {
            None
        };
        Ok(DimIndex::Slice { start, end, stride })
    }

    fn literal(&mut self, lit: Literal) -> PResult<Expr> {
        let span = self.bump();
        self.mk(ExprKind::Literal(lit), span)
    }

    fn atom(&mut self) -> PResult<Expr> {
        let negated = std::mem::replace(&mut self.negated, false);
        let start = self.span();
        match self.tok().clone() {
            Tok::Int { value, suffix, decimal } => {
                if let Some(t) = suffix {
                    if t.signed() && decimal && !negated && value == 1i128 << (t.bits() - 1) {
                        let d = Diagnostic::parse(
                            start,
                            format!("literal `{}` is out of range for `{}`", value, t.name()),
                        );
                        self.diags.push(d);
                    }
                }
                self.literal(Literal::Int(value, suffix))
            }
            Tok::Float(v, t) => self.literal(Literal::Float(v, t)),
            Tok::Kw(Kw::True) => self.literal(Literal::Bool(true)),
            Tok::Kw(Kw::False) => self.literal(Literal::Bool(false)),
            Tok::Ident(n) | Tok::QualIdent(n) => {
                self.bump();
                self.mk(ExprKind::Var(n), start)
            }
            Tok::Constructor(n) => {
                self.bump();
                self.mk(ExprKind::Constr(n, Vec::new()), start)
            }
            Tok::LParen => self.paren(),
            Tok::LBracket | Tok::IndexBracket => {
                self.bump();
                let elems = self.exps_until(Tok::RBracket, "`,` or `]`")?;
                let span = self.span_from(start);
                self.mk(ExprKind::ArrayLit(elems), span)
            }
            Tok::LBrace => self.record(),
            _ => Err(self.expected_expression()),
        }
    }

    fn expected_expression(&mut self) -> super::Reported {
        let mut d = Diagnostic::parse(
            self.span(),
            format!("expected an expression, found {}", self.found()),
        )
        .with_label("expected an expression");
        if matches!(self.tok(), Tok::Kw(Kw::Def | Kw::Entry | Kw::Type)) {
            d = d.with_hint(
                "a declaration cannot start here: is the previous definition unfinished?",
            );
        }
        self.report(d)
    }

    /// Comma-separated expressions up to `close` (consumed); a trailing comma is allowed.
    fn exps_until(&mut self, close: Tok, what: &str) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        loop {
            if self.eat(&close) {
                return Ok(out);
            }
            out.push(self.exp()?);
            if !self.eat(&Tok::Comma) {
                self.expect(close, what)?;
                return Ok(out);
            }
        }
    }

    /// After `(`: unit, parentheses, tuples, and operator sections.
    fn paren(&mut self) -> PResult<Expr> {
        let start = self.bump();
        if self.eat(&Tok::RParen) {
            let span = self.span_from(start);
            return self.mk(ExprKind::Tuple(Vec::new()), span);
        }
        let section_op = match self.tok() {
            Tok::Op(op) => Some(op.clone()),
            Tok::Backticked(f) => Some(f.clone()),
            _ => None,
        };
        if let Some(op) = section_op {
            let is_symbol = matches!(self.tok(), Tok::Op(_));
            if *self.tok_at(1) == Tok::RParen {
                // `(+)`, `(-)`.
                let op_span = self.bump();
                self.check_section_op(&op, is_symbol, op_span)?;
                self.bump();
                let span = self.span_from(start);
                return self.mk(ExprKind::OpSection(op), span);
            }
            // `(+ e)`; but `(-e)` and `(!e)` are negations.
            if op != "-" && op != "!" {
                let op_span = self.bump();
                self.check_section_op(&op, is_symbol, op_span)?;
                let e = self.exp2()?;
                self.expect(Tok::RParen, "`)`")?;
                let span = self.span_from(start);
                return self.mk(ExprKind::RightSection(op, Box::new(e)), span);
            }
        }
        if self.at(&Tok::Dot) {
            let mut fields = Vec::new();
            while self.eat(&Tok::Dot) {
                if self.at_lbracket() {
                    let d =
                        Diagnostic::parse(self.span(), "unsupported: index sections (`(.[i])`)");
                    return Err(self.report(d));
                }
                fields.push(self.field_name()?);
            }
            self.expect(Tok::RParen, "`.` or `)`")?;
            let span = self.span_from(start);
            return self.mk(ExprKind::ProjectSection(fields), span);
        }
        let e = self.exp()?;
        if let Some((op, _)) = self.peek_binop().filter(|(op, _)| op != "with") {
            if *self.tok_at(1) == Tok::RParen {
                // `(e +)`.
                let is_symbol = matches!(self.tok(), Tok::Op(_));
                let op_span = self.bump();
                self.check_section_op(&op, is_symbol, op_span)?;
                self.bump();
                let span = self.span_from(start);
                return self.mk(ExprKind::LeftSection(op, Box::new(e)), span);
            }
        }
        if self.eat(&Tok::RParen) {
            return Ok(e);
        }
        if !self.eat(&Tok::Comma) {
            return Err(self.expected("`,` or `)`"));
        }
        let mut elems = vec![e];
        elems.extend(self.exps_until(Tok::RParen, "`,` or `)`")?);
        let span = self.span_from(start);
        self.mk(ExprKind::Tuple(elems), span)
    }

    fn check_section_op(&mut self, op: &str, is_symbol: bool, span: Span) -> PResult<()> {
        if !is_symbol {
            return Ok(());
        }
        if op == "!" {
            let d =
                Diagnostic::parse(span, "`!` is a prefix operator and cannot be used in a section")
                    .with_hint("write a lambda instead: `\\x -> !x`");
            return Err(self.report(d));
        }
        if !is_known_operator(op) {
            self.unknown_operator(op, span);
        }
        Ok(())
    }

    /// After `{`: a record `{x = 1, y}`.
    fn record(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let mut fields = Vec::new();
        loop {
            if self.eat(&Tok::RBrace) {
                break;
            }
            let name_span = self.span();
            let name = self.field_name()?;
            if self.eat(&Tok::Equals) {
                fields.push(RecordField::Explicit(name, self.exp()?));
            } else if name.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(self.expected("`=`"));
            } else {
                let var = self.mk(ExprKind::Var(name.clone()), name_span)?;
                fields.push(RecordField::Implicit(name, var));
            }
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RBrace, "`,` or `}`")?;
                break;
            }
        }
        let span = self.span_from(start);
        self.mk(ExprKind::Record(fields), span)
    }

    fn if_exp(&mut self) -> PResult<Expr> {
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
        self.mk(ExprKind::If(Box::new(c), Box::new(t), Box::new(e)), span)
    }

    fn lambda(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let mut params = Vec::new();
        while self.at_param_start() {
            params.push(self.param_pat()?);
        }
        if params.is_empty() {
            return Err(self.expected("a lambda parameter"));
        }
        let ret = if self.eat(&Tok::Colon) { Some(self.type_term()?) } else { None };
        self.expect(Tok::Arrow, "`->`")?;
        let body = self.exp()?;
        let span = start.to(body.span);
        self.mk(ExprKind::Lambda { params, ret, body: Box::new(body) }, span)
    }

    fn loop_exp(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let pat = self.pat()?;
        let init = if self.eat(&Tok::Equals) { Some(Box::new(self.exp()?)) } else { None };
        let form = if self.eat_kw(Kw::For) {
            if matches!(self.tok(), Tok::Ident(_))
                && matches!(self.tok_at(1), Tok::Op(o) if o == "<")
            {
                let (var, var_span) = self.ident("a loop variable")?;
                self.bump();
                LoopForm::For { var, var_span, bound: Box::new(self.exp()?) }
            } else {
                let p = self.pat()?;
                self.expect_kw(Kw::In)?;
                LoopForm::ForIn(p, Box::new(self.exp()?))
            }
        } else if self.eat_kw(Kw::While) {
            LoopForm::While(Box::new(self.exp()?))
        } else {
            let what = if init.is_some() { "`for` or `while`" } else { "`=`, `for` or `while`" };
            return Err(self.expected(what));
        };
        self.expect_kw(Kw::Do)?;
        let body = self.exp()?;
        let span = start.to(body.span);
        self.mk(ExprKind::Loop { pat, init, form, body: Box::new(body) }, span)
    }

    fn match_exp(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let scrutinee = self.exp()?;
        let mut cases = Vec::new();
        while self.eat_kw(Kw::Case) {
            let p = self.pat()?;
            self.expect(Tok::Arrow, "`->`")?;
            let body = self.exp()?;
            cases.push((p, body));
        }
        if cases.is_empty() {
            return Err(self.expected("`case`"));
        }
        let span = self.span_from(start);
        self.mk(ExprKind::Match(Box::new(scrutinee), cases), span)
    }

    /// `let` expressions. A chain of `let`s is parsed in a loop (and nested from the inside out),
    /// so long chains cost no parser stack.
    fn let_exp(&mut self) -> PResult<Expr> {
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
            let body_box = Box::new(body);
            let kind = match b.kind {
                Binding::Pat { sizes, pat, rhs } => {
                    ExprKind::Let { sizes, pat, rhs: Box::new(rhs), body: body_box }
                }
                Binding::Fun { name, name_span, type_params, params, ret, rhs } => {
                    ExprKind::LetFun {
                        name,
                        name_span,
                        type_params,
                        params,
                        ret,
                        rhs: Box::new(rhs),
                        body: body_box,
                    }
                }
                Binding::With { name, name_span, indices, value } => ExprKind::LetWith {
                    name,
                    name_span,
                    indices,
                    value: Box::new(value),
                    body: body_box,
                },
            };
            body = self.mk(kind, span)?;
        }
        Ok(body)
    }

    /// One `let ... = e`, without its body.
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
        } else if matches!(self.tok(), Tok::Ident(_)) && self.at_fun_params_after_name() {
            let (name, name_span) = self.ident("a name")?;
            let type_params = self.type_params()?;
            let mut params = Vec::new();
            while self.at_param_start() {
                params.push(self.param_pat()?);
            }
            if params.is_empty() {
                return Err(self.expected("a function parameter"));
            }
            let ret = if self.eat(&Tok::Colon) { Some(self.type_exp()?) } else { None };
            self.expect(Tok::Equals, "`=`")?;
            Binding::Fun { name, name_span, type_params, params, ret, rhs: self.exp()? }
        } else {
            let pat = self.pat()?;
            self.expect(Tok::Equals, "`=`")?;
            Binding::Pat { sizes: Vec::new(), pat, rhs: self.exp()? }
        };
        Ok(LetBinding { start, kind })
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
        rhs: Expr,
    },
    Fun {
        name: Name,
        name_span: Span,
        type_params: Vec<TypeParam>,
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        rhs: Expr,
    },
    With {
        name: Name,
        name_span: Span,
        indices: Vec<DimIndex>,
        value: Expr,
    },
}
