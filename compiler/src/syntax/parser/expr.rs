//! Expressions.
//!
//! Layers, from loosest to tightest (Futhark's grammar): `Exp` adds `e : t` and `e :> t` to `Exp2`;
//! `Exp2` is a range or a binary expression; binary operators climb Futhark's table (see
//! [`Prec`]); their operands are prefix expressions (`-e`, `!e`, and the constructs that extend as
//! far right as possible: `if`, `let`, `loop`, `match`, lambdas); then application, then atoms
//! with their postfix projections and indexing.

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::prim::{IntType, PrimType};
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

/// A numeric module's operator (`f32.+`): the module's type, the operator, and the type of its
/// result (`bool` for comparisons).
pub(super) fn qualified_op(op: &str) -> Option<(PrimType, &str, PrimType)> {
    let (module, base) = op.split_once('.')?;
    let t = PrimType::from_name(module)?;
    if !KNOWN_OPERATORS.contains(&base) {
        return None;
    }
    let cmp = ["==", "!=", "<", ">", "<=", ">="].contains(&base);
    Some((t, base, if cmp { PrimType::Bool } else { t }))
}

/// The precedence class of a symbolic binary operator, by its leading characters as in Futhark.
/// `None` for `!` alone, which is only a prefix operator.
pub fn op_prec(op: &str) -> Option<Prec> {
    if let Some((_, base, _)) = qualified_op(op) {
        return op_prec(base);
    }
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
    let op = bound_operator(op);
    if op.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        Prec::Backtick
    } else {
        op_prec(op).unwrap_or(Prec::Cmp)
    }
}

/// The operator a variable bound as `(<=)` stands for, which name resolution names `(<=)`; any
/// other name as it is.
pub fn bound_operator(op: &str) -> &str {
    op.strip_prefix('(').and_then(|o| o.strip_suffix(')')).unwrap_or(op)
}

fn is_known_operator(op: &str) -> bool {
    is_builtin_operator(op) || qualified_op(op).is_some()
}

/// An operator the language defines (not one the program may define).
pub(super) fn is_builtin_operator(op: &str) -> bool {
    KNOWN_OPERATORS.contains(&op) || op == "<-<" || op == "!"
}

impl Parser<'_> {
    /// `Exp`: an expression, possibly with type ascriptions and coercions.
    ///
    /// This function and the others on the recursive path (`binary`, `prefix`, `application`,
    /// `atom_postfix`, `atom`) keep their stack frames small: every construct is parsed by a
    /// function of its own that is not inlined into them, so deep nesting costs little stack.
    pub fn exp(&mut self) -> PResult<Box<Expr>> {
        self.enter()?;
        let r = self.exp2();
        self.leave();
        if matches!(self.tok(), Tok::Colon | Tok::ColonGt) {
            self.ascriptions(r?)
        } else {
            r
        }
    }

    #[inline(never)]
    fn ascriptions(&mut self, mut e: Box<Expr>) -> PResult<Box<Expr>> {
        loop {
            let coerce = match self.tok() {
                Tok::Colon => false,
                Tok::ColonGt => true,
                _ => return Ok(e),
            };
            self.bump();
            let t = self.type_exp()?;
            let span = e.span.to(t.span);
            let kind = if coerce { ExprKind::Coerce(e, t) } else { ExprKind::Ascript(e, t) };
            e = self.mk(kind, span)?;
        }
    }

    /// `Exp2`: a range, or a binary expression.
    pub(super) fn exp2(&mut self) -> PResult<Box<Expr>> {
        let start = self.binary(Prec::Backtick);
        if matches!(self.tok(), Tok::DotDot | Tok::DotDotDot | Tok::DotDotLt | Tok::DotDotGt) {
            self.range(start?)
        } else {
            start
        }
    }

    #[inline(never)]
    fn range(&mut self, start: Box<Expr>) -> PResult<Box<Expr>> {
        let (second, kind, end) = if self.eat(&Tok::DotDot) {
            let second = self.binary(Prec::Backtick)?;
            match self.range_end() {
                Some(kind) => (Some(second), kind, self.binary(Prec::Backtick)?),
                // `a..b`: an inclusive range, as `a...b`.
                None => (None, RangeEnd::Inclusive, second),
            }
        } else {
            match self.range_end() {
                Some(kind) => (None, kind, self.binary(Prec::Backtick)?),
                None => return Ok(start),
            }
        };
        let span = start.span.to(end.span);
        self.mk(ExprKind::Range { start, second, end, kind }, span)
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
    pub(super) fn binary(&mut self, min: Prec) -> PResult<Box<Expr>> {
        let lhs = self.prefix();
        if matches!(self.tok(), Tok::Op(_) | Tok::Backticked(_) | Tok::Kw(Kw::With)) {
            self.binary_ops(lhs?, min)
        } else {
            lhs
        }
    }

    #[inline(never)]
    fn binary_ops(&mut self, mut lhs: Box<Expr>, min: Prec) -> PResult<Box<Expr>> {
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
                && !self.user_ops.contains(&op)
            {
                self.unknown_operator(&op, op_span);
            }
            let rhs_min = if prec == Prec::PipeLeft { prec } else { prec.next() };
            let rhs = self.binary(rhs_min)?;
            lhs = self.binop_node(op, op_span, lhs, rhs)?;
        }
        Ok(lhs)
    }

    #[inline(never)]
    fn binop_node(
        &mut self,
        op: Name,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    ) -> PResult<Box<Expr>> {
        let span = lhs.span.to(rhs.span);
        if let Some((t, base, _)) = qualified_op(&op) {
            // `x f32.+ y` is `(x : f32) + (y : f32)`.
            let base = base.to_string();
            let lhs = self.ascribed(lhs, prim_type(t, op_span))?;
            let rhs = self.ascribed(rhs, prim_type(t, op_span))?;
            let e = self.mk(ExprKind::BinOp { op: base, op_span, lhs, rhs }, span)?;
            self.builtin_ops.insert(e.id);
            return Ok(e);
        }
        self.mk(ExprKind::BinOp { op, op_span, lhs, rhs }, span)
    }

    #[inline(never)]
    fn unknown_operator(&mut self, op: &str, span: Span) {
        let d = Diagnostic::parse(span, format!("unknown operator `{op}`"))
            .with_label("not an operator Ogham defines")
            .with_hint("define it before its use (`def (op) x y = ...`); if this is two operators, separate them with a space");
        self.diags.push(d);
    }

    /// After `lhs with`: `[i] = v` or `f.g = v`.
    #[inline(never)]
    fn with_update(&mut self, lhs: Box<Expr>) -> PResult<Box<Expr>> {
        if self.at_lbracket() {
            self.bump();
            let idx = self.dim_indices()?;
            self.expect(Tok::Equals, "`=`")?;
            let v = self.binary(Prec::With.next())?;
            let span = lhs.span.to(v.span);
            return self.mk(ExprKind::Update(lhs, idx, v), span);
        }
        let mut path = vec![self.field_name()?];
        while self.eat(&Tok::Dot) {
            path.push(self.field_name()?);
        }
        self.expect(Tok::Equals, "`=`")?;
        let v = self.binary(Prec::With.next())?;
        let span = lhs.span.to(v.span);
        self.mk(ExprKind::RecordUpdate(lhs, path, v), span)
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
    fn prefix(&mut self) -> PResult<Box<Expr>> {
        match self.tok() {
            Tok::Op(op) if op == "-" || op == "!" => self.prefix_op(),
            Tok::Kw(Kw::If) => self.if_exp(),
            Tok::Kw(Kw::Let) => self.let_exp(),
            Tok::Kw(Kw::Loop) => self.loop_exp(),
            Tok::Kw(Kw::Match) => self.match_exp(),
            Tok::Backslash => self.lambda(),
            Tok::Kw(Kw::Assert) => self.assert_exp(),
            _ => self.application(),
        }
    }

    /// `-e`, `!e`.
    #[inline(never)]
    fn prefix_op(&mut self) -> PResult<Box<Expr>> {
        let neg = self.at_op("-");
        let start = self.bump();
        self.enter()?;
        self.negated = neg;
        let e = self.prefix();
        self.negated = false;
        self.leave();
        let e = e?;
        let span = start.to(e.span);
        self.mk(if neg { ExprKind::Neg(e) } else { ExprKind::Not(e) }, span)
    }

    #[inline(never)]
    fn assert_exp(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let c = self.atom_postfix()?;
        let e = self.atom_postfix()?;
        let span = start.to(e.span);
        self.mk(ExprKind::Assert(c, e), span)
    }

    fn at_atom_start(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Ident(_)
                | Tok::QualIdent(_)
                | Tok::Int { .. }
                | Tok::Float(..)
                | Tok::Str(_)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::LParen
                | Tok::LBracket
                | Tok::IndexBracket
                | Tok::LBrace
                | Tok::Constructor(_)
        )
    }

    /// Juxtaposition: `f x y`, and constructor application `#c x y`.
    fn application(&mut self) -> PResult<Box<Expr>> {
        if matches!(self.tok(), Tok::Constructor(_)) {
            return self.constr_app();
        }
        let f = self.atom_postfix();
        if self.at_atom_start() {
            self.applications(f?)
        } else {
            f
        }
    }

    #[inline(never)]
    fn applications(&mut self, mut f: Box<Expr>) -> PResult<Box<Expr>> {
        while self.at_atom_start() {
            let x = self.atom_postfix()?;
            let span = f.span.to(x.span);
            f = self.mk(ExprKind::Apply(f, x), span)?;
        }
        Ok(f)
    }

    /// `#c x y`.
    #[inline(never)]
    fn constr_app(&mut self) -> PResult<Box<Expr>> {
        let Tok::Constructor(name) = self.tok().clone() else {
            return Err(self.expected("a constructor"));
        };
        let start = self.bump();
        let mut args = Vec::new();
        while self.at_atom_start() {
            args.push(*self.atom_postfix()?);
        }
        let span = self.span_from(start);
        self.mk(ExprKind::Constr(name, args), span)
    }

    /// An atom followed by projections `.f`, `.0` and indexing `[i, j:k]`.
    pub(super) fn atom_postfix(&mut self) -> PResult<Box<Expr>> {
        let e = self.atom();
        if matches!(self.tok(), Tok::Dot | Tok::IndexBracket) {
            self.postfixes(e?)
        } else {
            e
        }
    }

    #[inline(never)]
    fn postfixes(&mut self, mut e: Box<Expr>) -> PResult<Box<Expr>> {
        loop {
            match self.tok() {
                Tok::Dot => {
                    self.bump();
                    if self.at(&Tok::LParen) {
                        e = self.local_open(e)?;
                        continue;
                    }
                    let f = self.field_name()?;
                    let span = self.span_from(e.span);
                    e = self.mk(ExprKind::Project(e, f), span)?;
                }
                Tok::IndexBracket => {
                    self.bump();
                    let idx = self.dim_indices()?;
                    let span = self.span_from(e.span);
                    e = self.mk(ExprKind::Index(e, idx), span)?;
                }
                _ => return Ok(e),
            }
        }
    }

    /// At the `(` of `m.(e)`, `m` parsed as `e`: the module path `m` opened in `e`, which the
    /// parser writes as the application of [`LOCAL_OPEN`]`m` to `e` (`syntax::modules` resolves
    /// it).
    #[inline(never)]
    fn local_open(&mut self, m: Box<Expr>) -> PResult<Box<Expr>> {
        fn path(e: &Expr) -> Option<String> {
            match &e.kind {
                ExprKind::Var(n) if !n.contains('.') => Some(n.clone()),
                ExprKind::Project(inner, f) => Some(format!("{}.{f}", path(inner)?)),
                _ => None,
            }
        }
        let Some(p) = path(&m) else {
            let d = Diagnostic::parse(m.span, "only a module can be opened with `.(...)`")
                .with_hint("write a module name (`m.(e)`, `f32.(e)`)");
            return Err(self.report(d));
        };
        self.bump();
        let inner = self.exp()?;
        self.expect(Tok::RParen, "`)`")?;
        self.needs_resolution = true;
        let span = self.span_from(m.span);
        let f = self.mk(ExprKind::Var(format!("{LOCAL_OPEN}{p}")), m.span)?;
        self.mk(ExprKind::Apply(f, inner), span)
    }

    /// After `[`: index and slice components up to and including `]`.
    pub(super) fn dim_indices(&mut self) -> PResult<Vec<DimIndex>> {
        let mut out = Vec::new();
        loop {
            if self.eat(&Tok::RBracket) {
                return Ok(out);
            }
            let d = self.dim_index()?;
            push_dim(&mut out, d);
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RBracket, "`,` or `]`")?;
                return Ok(out);
            }
        }
    }

    fn at_index_part_end(&self) -> bool {
        matches!(self.tok(), Tok::Colon | Tok::Comma | Tok::RBracket)
    }

    /// One index or slice, with its parts boxed (a `DimIndex` holds three whole expressions,
    /// too much for a frame on the recursive path).
    #[inline(never)]
    fn dim_index(&mut self) -> PResult<BoxedDim> {
        let start = if self.at(&Tok::Colon) { None } else { Some(self.exp2()?) };
        if !self.eat(&Tok::Colon) {
            return match start {
                Some(e) => Ok(BoxedDim::Fix(e)),
                None => Err(self.expected("an index")),
            };
        }
        let end = if self.at_index_part_end() { None } else { Some(self.exp2()?) };
        let stride = if self.eat(&Tok::Colon) && !self.at_index_part_end() {
            Some(self.exp2()?)
        } else {
            None
        };
        Ok(BoxedDim::Slice(start, end, stride))
    }

    #[inline(never)]
    fn literal(&mut self, lit: Literal) -> PResult<Box<Expr>> {
        let span = self.bump();
        self.mk(ExprKind::Literal(lit), span)
    }

    fn atom(&mut self) -> PResult<Box<Expr>> {
        match self.tok() {
            Tok::LParen => self.paren(),
            Tok::LBracket | Tok::IndexBracket => self.array_lit(),
            Tok::LBrace => self.record(),
            _ => self.simple_atom(),
        }
    }

    /// Literals, names and constructors.
    #[inline(never)]
    fn simple_atom(&mut self) -> PResult<Box<Expr>> {
        let negated = std::mem::replace(&mut self.negated, false);
        let start = self.span();
        match self.tok().clone() {
            Tok::Int { value, suffix, decimal } => {
                self.check_signed_minimum(value, suffix, decimal, negated, start);
                self.literal(Literal::Int(value, suffix))
            }
            Tok::Float(v, t) => self.literal(Literal::Float(v, t)),
            Tok::Str(bytes) => self.string_literal(bytes, start),
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
            _ => Err(self.expected_expression()),
        }
    }

    /// `"text"` is the array of its UTF-8 bytes, `[116u8, 101u8, ...]`; `""` is `([] : [0]u8)`.
    #[inline(never)]
    fn string_literal(&mut self, bytes: Vec<u8>, span: Span) -> PResult<Box<Expr>> {
        self.bump();
        let mut elems = Vec::with_capacity(bytes.len());
        for b in bytes {
            let lit = Literal::Int(i128::from(b), Some(IntType::U8));
            elems.push(*self.mk(ExprKind::Literal(lit), span)?);
        }
        let empty = elems.is_empty();
        let array = self.mk(ExprKind::ArrayLit(elems), span)?;
        if !empty {
            return Ok(array);
        }
        let ty = TypeExp {
            kind: TypeExpKind::Array(
                SizeExp { kind: SizeExpKind::Const(0), span },
                Box::new(TypeExp { kind: TypeExpKind::Prim(PrimType::Int(IntType::U8)), span }),
            ),
            span,
        };
        self.mk(ExprKind::Ascript(array, ty), span)
    }

    #[inline(never)]
    fn array_lit(&mut self) -> PResult<Box<Expr>> {
        self.negated = false;
        let start = self.bump();
        let elems = self.exps_until(Tok::RBracket, "`,` or `]`")?;
        let span = self.span_from(start);
        self.mk(ExprKind::ArrayLit(elems), span)
    }

    /// `128i8` is out of range unless negated (the lexer allows it so that `-128i8` works).
    pub(super) fn check_signed_minimum(
        &mut self,
        value: i128,
        suffix: Option<crate::prim::IntType>,
        decimal: bool,
        negated: bool,
        span: Span,
    ) {
        if let Some(t) = suffix {
            if t.signed() && decimal && !negated && value == 1i128 << (t.bits() - 1) {
                let msg =
                    format!("literal `{}{}` is out of range for `{}`", value, t.name(), t.name());
                self.diags.push(Diagnostic::parse(span, msg));
            }
        }
    }

    #[inline(never)]
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
            out.push(*self.exp()?);
            if !self.eat(&Tok::Comma) {
                self.expect(close, what)?;
                return Ok(out);
            }
        }
    }

    /// After `(`: unit, parentheses, tuples, and operator sections.
    #[inline(never)]
    fn paren(&mut self) -> PResult<Box<Expr>> {
        self.negated = false;
        let start = self.span();
        match (self.tok_at(1), self.tok_at(2)) {
            (Tok::RParen, _) | (Tok::Dot, _) => return self.paren_special(),
            (Tok::Op(op), _) if op != "-" && op != "!" => return self.paren_special(),
            (Tok::Op(_) | Tok::Backticked(_), Tok::RParen) | (Tok::Backticked(_), _) => {
                return self.paren_special()
            }
            _ => {}
        }
        self.bump();
        let e = self.exp();
        if *self.tok() == Tok::RParen {
            let mut e = e?;
            self.bump();
            e.span = self.span_from(start);
            Ok(e)
        } else {
            self.paren_tail(start, e?)
        }
    }

    /// `()`, and sections whose operator comes first: `(+)`, `(+ e)`, `(.f)`.
    #[inline(never)]
    fn paren_special(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        if self.eat(&Tok::RParen) {
            let span = self.span_from(start);
            return self.mk(ExprKind::Tuple(Vec::new()), span);
        }
        if self.at(&Tok::Dot) {
            // `(.f.g)` projects; with an index among its steps (`(.[i])`, `(.f[i].g)`) it is
            // the function `\x -> x.f[i].g`.
            let mut steps: Vec<Result<Name, (Vec<DimIndex>, Span)>> = Vec::new();
            loop {
                if self.eat(&Tok::Dot) {
                    if self.at_lbracket() {
                        let at = self.bump();
                        steps.push(Err((self.dim_indices()?, at)));
                    } else {
                        steps.push(Ok(self.field_name()?));
                    }
                } else if self.at(&Tok::IndexBracket) && !steps.is_empty() {
                    let at = self.bump();
                    steps.push(Err((self.dim_indices()?, at)));
                } else {
                    break;
                }
            }
            self.expect(Tok::RParen, "`.`, `[` or `)`")?;
            let span = self.span_from(start);
            if steps.iter().all(Result::is_ok) {
                let fields = steps.into_iter().filter_map(Result::ok).collect();
                return self.mk(ExprKind::ProjectSection(fields), span);
            }
            let var = Name::from(INDEX_SECTION_PARAM);
            let param = self.mk_pat(PatKind::Var(var.clone()), span)?;
            let mut body = self.mk(ExprKind::Var(var), span)?;
            for step in steps {
                body = match step {
                    Ok(f) => self.mk(ExprKind::Project(body, f), span)?,
                    Err((idx, _)) => self.mk(ExprKind::Index(body, idx), span)?,
                };
            }
            return self.mk(ExprKind::Lambda { params: vec![param], ret: None, body }, span);
        }
        let (op, is_symbol) = match self.tok() {
            Tok::Op(op) => (op.clone(), true),
            Tok::Backticked(f) => (f.clone(), false),
            _ => return Err(self.expected("an operator")),
        };
        let op_span = self.bump();
        self.check_section_op(&op, is_symbol, op_span)?;
        if self.eat(&Tok::RParen) {
            // `(+)`, `(-)`.
            let span = self.span_from(start);
            return self.section(op, op_span, None, span);
        }
        // `(+ e)`; `(-e)` and `(!e)` never get here: they are negations.
        let e = self.exp2()?;
        self.expect(Tok::RParen, "`)`")?;
        let span = self.span_from(start);
        self.section(op, op_span, Some((e, false)), span)
    }

    /// A section of `op`: `(op)`, or with its left (`(e op)`) or right (`(op e)`) operand. A
    /// numeric module's operator (`f32.+`) is the plain operator's section, its operand and the
    /// section ascribed its types: `(f32.+ e)` is `((+ (e : f32)) : f32 -> f32)`.
    fn section(
        &mut self,
        op: Name,
        op_span: Span,
        operand: Option<(Box<Expr>, bool)>,
        span: Span,
    ) -> PResult<Box<Expr>> {
        let (op, typed) = match qualified_op(&op) {
            Some((t, base, r)) => (base.to_string(), Some((t, r))),
            None => (op, None),
        };
        let has_operand = operand.is_some();
        let kind = match operand {
            None => ExprKind::OpSection(op),
            Some((e, left)) => {
                let e = match typed {
                    Some((t, _)) => self.ascribed(e, prim_type(t, op_span))?,
                    None => e,
                };
                if left {
                    ExprKind::LeftSection(op, e)
                } else {
                    ExprKind::RightSection(op, e)
                }
            }
        };
        let sec = self.mk(kind, span)?;
        let Some((t, r)) = typed else { return Ok(sec) };
        self.builtin_ops.insert(sec.id);
        let mut ty = arrow(prim_type(t, op_span), prim_type(r, op_span));
        if !has_operand {
            ty = arrow(prim_type(t, op_span), ty);
        }
        self.ascribed(sec, ty)
    }

    /// `e : t`, spanning `e`.
    fn ascribed(&mut self, e: Box<Expr>, t: TypeExp) -> PResult<Box<Expr>> {
        let span = e.span;
        self.mk(ExprKind::Ascript(e, t), span)
    }

    /// After `(e`: a left section `(e +)` or a tuple `(e, ...)`.
    #[inline(never)]
    fn paren_tail(&mut self, start: Span, e: Box<Expr>) -> PResult<Box<Expr>> {
        if let Some((op, _)) = self.peek_binop().filter(|(op, _)| op != "with") {
            if *self.tok_at(1) == Tok::RParen {
                let is_symbol = matches!(self.tok(), Tok::Op(_));
                let op_span = self.bump();
                self.check_section_op(&op, is_symbol, op_span)?;
                self.bump();
                let span = self.span_from(start);
                return self.section(op, op_span, Some((e, true)), span);
            }
        }
        if !self.eat(&Tok::Comma) {
            return Err(self.expected("`,` or `)`"));
        }
        let mut elems = vec![*e];
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
        if !is_known_operator(op) && !self.user_ops.contains(op) {
            self.unknown_operator(op, span);
        }
        Ok(())
    }

    /// After `{`: a record `{x = 1, y}`.
    #[inline(never)]
    fn record(&mut self) -> PResult<Box<Expr>> {
        let start = self.bump();
        let mut fields = Vec::new();
        loop {
            if self.eat(&Tok::RBrace) {
                break;
            }
            let name_span = self.span();
            let name = self.field_name()?;
            if self.eat(&Tok::Equals) {
                fields.push(RecordField::Explicit(name, *self.exp()?));
            } else if name.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(self.expected("`=`"));
            } else {
                let var = self.mk(ExprKind::Var(name.clone()), name_span)?;
                fields.push(RecordField::Implicit(name, *var));
            }
            if !self.eat(&Tok::Comma) {
                self.expect(Tok::RBrace, "`,` or `}`")?;
                break;
            }
        }
        let span = self.span_from(start);
        // Numbered fields are all written `n = e` (a number is no variable).
        if fields.iter().all(|f| matches!(f, RecordField::Explicit(..))) {
            let named = fields.into_iter().map(|f| match f {
                RecordField::Explicit(n, e) | RecordField::Implicit(n, e) => (n, e),
            });
            return match super::tuple_fields(named.collect()) {
                Ok(elems) => self.mk(ExprKind::Tuple(elems), span),
                Err(named) => {
                    let fields = named.into_iter().map(|(n, e)| RecordField::Explicit(n, e));
                    self.mk(ExprKind::Record(fields.collect()), span)
                }
            };
        }
        self.mk(ExprKind::Record(fields), span)
    }
}

enum BoxedDim {
    Fix(Box<Expr>),
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
}

#[inline(never)]
fn push_dim(out: &mut Vec<DimIndex>, d: BoxedDim) {
    out.push(match d {
        BoxedDim::Fix(e) => DimIndex::Fix(*e),
        BoxedDim::Slice(start, end, stride) => DimIndex::Slice {
            start: start.map(|e| *e),
            end: end.map(|e| *e),
            stride: stride.map(|e| *e),
        },
    });
}

fn prim_type(t: PrimType, span: Span) -> TypeExp {
    TypeExp { kind: TypeExpKind::Prim(t), span }
}

fn arrow(a: TypeExp, b: TypeExp) -> TypeExp {
    let span = a.span;
    TypeExp { kind: TypeExpKind::Arrow(None, Box::new(a), Box::new(b)), span }
}
