//! The pretty-printer: the AST back to idiomatic Futhark.
//!
//! The output re-parses to the same tree (up to spans and node ids; see `syntax::strip`).
//! Parentheses are inserted only where precedence requires them: every expression has a binding
//! level (`Lvl`), every position a minimum level, and the constructs that extend as far right
//! as possible (`if`, `let`, `loop`, `match`, lambdas) are left bare only where nothing follows
//! them (`Ctx::tail`). Layout: two-space indentation; `let` chains, `loop`s and `match`es are
//! always broken over lines, an `if` only when it does not fit; continuation lines align with the
//! column where their construct started, so a construct can start anywhere on a line.

mod types;

use crate::syntax::ast::*;
use crate::syntax::visit::for_each_child_expr;
use crate::syntax::{binop_prec, Prec};

const WIDTH: usize = 100;

/// Print a whole program: declarations separated by blank lines, with their doc comments.
pub fn print_program(p: &Program) -> String {
    let mut pr = Printer::new();
    for (i, d) in p.decs.iter().enumerate() {
        if i > 0 {
            pr.out.push_str("\n\n");
        }
        pr.dec(d);
    }
    pr.out.push('\n');
    pr.out
}

/// Print an expression as it would appear at the top level of a definition's body.
pub fn print_expr(e: &Expr) -> String {
    let mut pr = Printer::new();
    pr.expr(e, Ctx::TOP);
    pr.out
}

pub fn print_type_exp(t: &TypeExp) -> String {
    let mut pr = Printer::new();
    pr.ty(t, types::TLvl::Full);
    pr.out
}

pub fn print_pat(p: &Pat) -> String {
    let mut pr = Printer::new();
    pr.pat(p, types::PCtx::Full);
    pr.out
}

/// How tightly an expression binds, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Lvl {
    /// `e : t`, `e :> t`.
    Exp,
    Range,
    Op(Prec),
}

/// Where an expression is printed: the loosest level allowed without parentheses, and whether
/// nothing follows it (so an `if` or `let` there may extend to the right).
#[derive(Clone, Copy, Debug)]
struct Ctx {
    min: Lvl,
    tail: bool,
}

impl Ctx {
    const TOP: Ctx = Ctx { min: Lvl::Exp, tail: true };
    const ATOM: Ctx = Ctx { min: Lvl::Op(Prec::Atom), tail: false };

    fn op(p: Prec, tail: bool) -> Ctx {
        Ctx { min: Lvl::Op(p), tail }
    }
}

fn level(e: &Expr) -> Lvl {
    match &e.kind {
        ExprKind::Ascript(..) | ExprKind::Coerce(..) => Lvl::Exp,
        ExprKind::Range { .. } => Lvl::Range,
        ExprKind::BinOp { op, .. } => Lvl::Op(binop_prec(op)),
        ExprKind::Update(..) | ExprKind::RecordUpdate(..) => Lvl::Op(Prec::With),
        ExprKind::Neg(_) | ExprKind::Not(_) | ExprKind::Assert(..) => Lvl::Op(Prec::Prefix),
        _ if is_open(e) => Lvl::Op(Prec::Prefix),
        ExprKind::Apply(..) => Lvl::Op(Prec::Apply),
        ExprKind::Constr(_, args) if !args.is_empty() => Lvl::Op(Prec::Apply),
        _ => Lvl::Op(Prec::Atom),
    }
}

/// The constructs whose last part extends as far right as possible.
fn is_open(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::If(..)
            | ExprKind::Let { .. }
            | ExprKind::LetFun { .. }
            | ExprKind::LetWith { .. }
            | ExprKind::Loop { .. }
            | ExprKind::Match(..)
            | ExprKind::Lambda { .. }
    ) && index_section(e).is_none()
}

fn is_let(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Let { .. } | ExprKind::LetFun { .. } | ExprKind::LetWith { .. })
}

/// Whether an expression should be laid out over several lines (it contains a `let` or a
/// `match`).
fn wants_break(e: &Expr) -> bool {
    let mut found = false;
    for_each_child_expr(&e.kind, &mut |c| found = found || wants_break(c));
    found || matches!(e.kind, ExprKind::Match(..)) || is_let(e)
}

/// Whether the last thing printed for `e` (bare) is a `match`, which would take any following
/// `case` as its own.
fn ends_in_match(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Match(..) => true,
        ExprKind::If(_, _, x)
        | ExprKind::Let { body: x, .. }
        | ExprKind::LetFun { body: x, .. }
        | ExprKind::LetWith { body: x, .. }
        | ExprKind::Loop { body: x, .. }
        | ExprKind::Lambda { body: x, .. }
        | ExprKind::BinOp { rhs: x, .. }
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::Update(_, _, x)
        | ExprKind::RecordUpdate(_, _, x)
        | ExprKind::Range { end: x, .. } => ends_in_match(x),
        _ => false,
    }
}

fn is_symbolic(op: &str) -> bool {
    !op.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// An operator as written between operands or in a section: `+`, or `` `f` ``.
fn op_text(op: &str) -> String {
    let op = crate::syntax::parser::expr::bound_operator(op);
    if is_symbolic(op) {
        op.to_string()
    } else {
        format!("`{op}`")
    }
}

pub(super) fn literal_text(l: &Literal) -> String {
    match *l {
        Literal::Int(v, t) => format!("{v}{}", t.map_or("", |t| t.name())),
        Literal::Float(v, t) => {
            let suffix = t.map_or("", |t| t.name());
            if v.is_nan() {
                format!("{}.nan", t.map_or("f64", |t| t.name()))
            } else if v.is_infinite() {
                let sign = if v < 0.0 { "-" } else { "" };
                format!("{sign}{}.inf", t.map_or("f64", |t| t.name()))
            } else {
                // `{:?}` is the shortest text that reads back to the same value, with a `.0` or
                // an exponent, so it lexes as a float.
                format!("{v:?}{suffix}")
            }
        }
        Literal::Bool(b) => b.to_string(),
    }
}

fn is_negative(l: &Literal) -> bool {
    match *l {
        Literal::Int(v, _) => v < 0,
        Literal::Float(v, _) => v.is_sign_negative() && !v.is_nan(),
        Literal::Bool(_) => false,
    }
}

struct Printer {
    out: String,
    /// Print everything on one line (used to measure and for short constructs).
    flat: bool,
}

impl Printer {
    fn new() -> Printer {
        Printer { out: String::new(), flat: false }
    }

    /// A defined name; an operator's in parentheses (`def (+^) x y`).
    fn binding_name(&mut self, name: &str) {
        let name = crate::syntax::parser::expr::bound_operator(name);
        if name.starts_with(|c: char| !c.is_alphanumeric() && c != '_') {
            self.w("(");
            self.w(name);
            self.w(")");
        } else {
            self.w(name);
        }
    }

    fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn col(&self) -> usize {
        let line = self.out.rsplit('\n').next().unwrap_or("");
        line.chars().count()
    }

    /// The indentation of the current line.
    fn line_indent(&self) -> usize {
        let line = self.out.rsplit('\n').next().unwrap_or("");
        line.len() - line.trim_start_matches(' ').len()
    }

    /// Start a new line indented to `col` (a space in flat mode).
    fn nl(&mut self, col: usize) {
        if self.flat {
            self.out.push(' ');
        } else {
            self.out.push('\n');
            self.out.extend(std::iter::repeat_n(' ', col));
        }
    }

    /// The one-line rendering of an expression.
    fn flat_text(&self, e: &Expr, ctx: Ctx) -> String {
        let mut p = Printer { out: String::new(), flat: true };
        p.expr(e, ctx);
        p.out
    }

    /// Whether `e` is short and simple enough to print on the rest of the current line.
    fn fits(&self, e: &Expr, ctx: Ctx) -> bool {
        self.flat || (!wants_break(e) && self.col() + self.flat_text(e, ctx).len() <= WIDTH)
    }

    fn dec(&mut self, d: &Dec) {
        match d {
            Dec::Val(v) => {
                if let Some(doc) = &v.doc {
                    for line in doc.split('\n') {
                        self.w(if line.is_empty() { "--" } else { "-- " });
                        self.w(line);
                        self.w("\n");
                    }
                }
                self.w(if v.entry { "entry " } else { "def " });
                self.binding_name(&v.name);
                self.type_params(&v.type_params);
                for p in &v.params {
                    self.w(" ");
                    self.pat(p, types::PCtx::Param);
                }
                if let Some(t) = &v.ret {
                    self.w(" : ");
                    self.ty(t, types::TLvl::Full);
                }
                self.w(" =");
                self.body(&v.body, 0);
            }
            Dec::Type(t) => {
                self.w(match t.liftedness {
                    Liftedness::Unlifted => "type ",
                    Liftedness::SizeLifted => "type~ ",
                    Liftedness::Lifted => "type^ ",
                });
                self.w(&t.name);
                self.type_params(&t.params);
                self.w(" = ");
                self.ty(&t.def, types::TLvl::Full);
            }
        }
    }

    /// After `=` or `->`: the body on the same line if it fits, else on the next line, indented.
    fn body(&mut self, e: &Expr, base: usize) {
        if self.fits(e, Ctx::TOP) {
            self.w(" ");
            self.expr(e, Ctx::TOP);
        } else {
            self.nl(base + 2);
            self.expr(e, Ctx::TOP);
        }
    }

    fn type_params(&mut self, ps: &[TypeParam]) {
        for (i, p) in ps.iter().enumerate() {
            // `[n][m]`, as Futhark programs write them.
            let after_size = i > 0 && matches!(ps[i - 1], TypeParam::Size { .. });
            if !(after_size && matches!(p, TypeParam::Size { .. })) {
                self.w(" ");
            }
            match p {
                TypeParam::Size { name, .. } => {
                    self.w("[");
                    self.w(name);
                    self.w("]");
                }
                TypeParam::Type { name, liftedness, .. } => {
                    self.w(match liftedness {
                        Liftedness::Unlifted => "'",
                        Liftedness::SizeLifted => "'~",
                        Liftedness::Lifted => "'^",
                    });
                    self.w(name);
                }
            }
        }
    }

    fn needs_parens(e: &Expr, ctx: Ctx) -> bool {
        if let ExprKind::Literal(l) = &e.kind {
            return is_negative(l);
        }
        level(e) < ctx.min || (is_open(e) && (!ctx.tail || ctx.min > Lvl::Op(Prec::Prefix)))
    }

    fn expr(&mut self, e: &Expr, ctx: Ctx) {
        if Self::needs_parens(e, ctx) {
            self.w("(");
            self.expr_bare(e, Ctx::TOP);
            self.w(")");
        } else {
            self.expr_bare(e, ctx);
        }
    }

    /// Comma-separated expressions between `open` and `close`.
    fn exprs(&mut self, open: &str, es: &[Expr], close: &str) {
        self.w(open);
        for (i, x) in es.iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            self.expr(x, Ctx::TOP);
        }
        self.w(close);
    }

    fn expr_bare(&mut self, e: &Expr, ctx: Ctx) {
        match &e.kind {
            ExprKind::Literal(l) => self.w(&literal_text(l)),
            ExprKind::Var(n) => self.w(n),
            ExprKind::Tuple(es) => {
                self.exprs("(", es, if es.len() == 1 { ",)" } else { ")" });
            }
            ExprKind::ArrayLit(es) => self.exprs("[", es, "]"),
            ExprKind::Record(fs) => {
                self.w("{");
                for (i, f) in fs.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    match f {
                        RecordField::Explicit(n, x) => {
                            self.w(n);
                            self.w(" = ");
                            self.expr(x, Ctx::TOP);
                        }
                        RecordField::Implicit(n, _) => self.w(n),
                    }
                }
                self.w("}");
            }
            ExprKind::Range { start, second, end, kind } => {
                let operand = |tail| Ctx::op(Prec::Backtick, tail);
                self.expr(start, operand(false));
                if let Some(s) = second {
                    self.w("..");
                    self.expr(s, operand(false));
                }
                self.w(match kind {
                    RangeEnd::Inclusive => "...",
                    RangeEnd::UpToExclusive => "..<",
                    RangeEnd::DownToExclusive => "..>",
                });
                self.expr(end, operand(ctx.tail));
            }
            ExprKind::Project(x, f) => {
                self.postfix_base(x);
                self.w(".");
                self.w(f);
            }
            ExprKind::Index(x, idx) => {
                self.postfix_base(x);
                self.dims(idx);
            }
            ExprKind::Apply(f, x) => {
                let head_is_constr = matches!(f.kind, ExprKind::Constr(..));
                if head_is_constr {
                    self.w("(");
                    self.expr(f, Ctx::TOP);
                    self.w(")");
                } else {
                    self.expr(f, Ctx::op(Prec::Apply, false));
                }
                self.w(" ");
                self.expr(x, Ctx::ATOM);
            }
            ExprKind::BinOp { op, lhs, rhs, .. } => {
                let p = binop_prec(op);
                let (lmin, rmin) = if p == Prec::PipeLeft { (p.next(), p) } else { (p, p.next()) };
                self.expr(lhs, Ctx::op(lmin, false));
                self.w(" ");
                self.w(&op_text(op));
                self.w(" ");
                self.expr(rhs, Ctx::op(rmin, ctx.tail));
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => {
                self.w(if matches!(e.kind, ExprKind::Neg(_)) { "-" } else { "!" });
                // `--` would start a comment and `-!` lex as one operator.
                if matches!(x.kind, ExprKind::Neg(_) | ExprKind::Not(_)) {
                    self.w(" ");
                }
                self.expr(x, Ctx::op(Prec::Prefix, ctx.tail));
            }
            ExprKind::OpSection(op) => {
                self.w("(");
                self.w(&op_text(op));
                self.w(")");
            }
            ExprKind::LeftSection(op, x) => {
                self.w("(");
                self.expr(x, Ctx { min: Lvl::Range, tail: false });
                self.w(" ");
                self.w(&op_text(op));
                self.w(")");
            }
            ExprKind::RightSection(op, x) => {
                self.w("(");
                self.w(&op_text(op));
                self.w(" ");
                self.expr(x, Ctx { min: Lvl::Range, tail: true });
                self.w(")");
            }
            ExprKind::ProjectSection(fs) => {
                self.w("(");
                for f in fs {
                    self.w(".");
                    self.w(f);
                }
                self.w(")");
            }
            ExprKind::Lambda { .. } if index_section(e).is_some() => {
                self.w("(");
                for step in index_section(e).unwrap_or_default() {
                    self.w(".");
                    match step {
                        Ok(f) => self.w(f),
                        Err(idx) => self.dims(idx),
                    }
                }
                self.w(")");
            }
            ExprKind::Lambda { params, ret, body } => {
                let base = self.line_indent();
                self.w("\\");
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        self.w(" ");
                    }
                    self.pat(p, types::PCtx::Param);
                }
                if let Some(t) = ret {
                    self.w(" : ");
                    self.ty(t, types::TLvl::Term);
                }
                self.w(" ->");
                self.body(body, base);
            }
            ExprKind::If(..) => self.if_exp(e),
            ExprKind::Let { .. } | ExprKind::LetFun { .. } | ExprKind::LetWith { .. } => {
                self.let_chain(e)
            }
            ExprKind::Update(a, idx, v) => {
                self.expr(a, Ctx::op(Prec::With, false));
                self.w(" with ");
                self.dims(idx);
                self.w(" = ");
                self.expr(v, Ctx::op(Prec::With.next(), ctx.tail));
            }
            ExprKind::RecordUpdate(r, path, v) => {
                self.expr(r, Ctx::op(Prec::With, false));
                self.w(" with ");
                self.w(&path.join("."));
                self.w(" = ");
                self.expr(v, Ctx::op(Prec::With.next(), ctx.tail));
            }
            ExprKind::Loop { pat, init, form, body } => {
                let base = self.col();
                self.w("loop ");
                self.pat(pat, types::PCtx::Full);
                if let Some(i) = init {
                    self.w(" = ");
                    self.expr(i, Ctx::TOP);
                }
                match form {
                    LoopForm::For { var, bound, .. } => {
                        self.w(" for ");
                        self.w(var);
                        self.w(" < ");
                        self.expr(bound, Ctx::TOP);
                    }
                    LoopForm::ForIn(p, xs) => {
                        self.w(" for ");
                        self.pat(p, types::PCtx::Full);
                        self.w(" in ");
                        self.expr(xs, Ctx::TOP);
                    }
                    LoopForm::While(c) => {
                        self.w(" while ");
                        self.expr(c, Ctx::TOP);
                    }
                }
                self.w(" do");
                self.body(body, base);
            }
            ExprKind::Match(x, cases) => {
                let base = self.col();
                self.w("match ");
                self.expr(x, Ctx { min: Lvl::Exp, tail: !ends_in_match(x) });
                for (i, (p, b)) in cases.iter().enumerate() {
                    self.nl(base);
                    self.w("case ");
                    self.pat(p, types::PCtx::Case);
                    self.w(" ->");
                    let last = i + 1 == cases.len();
                    let ctx = Ctx { min: Lvl::Exp, tail: last || !ends_in_match(b) };
                    if self.fits(b, ctx) {
                        self.w(" ");
                    } else {
                        self.nl(base + 2);
                    }
                    self.expr(b, ctx);
                }
            }
            ExprKind::Ascript(x, t) | ExprKind::Coerce(x, t) => {
                self.expr(x, Ctx { min: Lvl::Exp, tail: false });
                self.w(if matches!(e.kind, ExprKind::Ascript(..)) { " : " } else { " :> " });
                self.ty(t, types::TLvl::Full);
            }
            ExprKind::Assert(c, x) => {
                self.w("assert ");
                self.expr(c, Ctx::ATOM);
                self.w(" ");
                self.expr(x, Ctx::ATOM);
            }
            ExprKind::Constr(n, args) => {
                self.w("#");
                self.w(n);
                for a in args {
                    self.w(" ");
                    self.expr(a, Ctx::ATOM);
                }
            }
        }
    }

    /// The expression before `.f` or `[i]`: an atom that lexes so that the postfix attaches.
    fn postfix_base(&mut self, x: &Expr) {
        let parens = match &x.kind {
            // `1.0` would be a float; `{..}[i]` an application; `#c[i]` a payload.
            ExprKind::Literal(_) | ExprKind::Record(_) | ExprKind::Constr(..) => true,
            // `f32.x` would be a qualified name.
            ExprKind::Var(n) => NUMERIC_MODULES.contains(&n.as_str()),
            _ => false,
        };
        if parens {
            self.w("(");
            self.expr(x, Ctx::TOP);
            self.w(")");
        } else {
            self.expr(x, Ctx::ATOM);
        }
    }

    fn dims(&mut self, idx: &[DimIndex]) {
        self.w("[");
        let part = Ctx { min: Lvl::Range, tail: false };
        for (i, d) in idx.iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            match d {
                DimIndex::Fix(x) => self.expr(x, Ctx { min: Lvl::Range, tail: true }),
                DimIndex::Slice { start, end, stride } => {
                    if let Some(s) = start {
                        self.expr(s, part);
                    }
                    self.w(":");
                    if let Some(x) = end {
                        self.expr(x, part);
                    }
                    if let Some(s) = stride {
                        self.w(":");
                        self.expr(s, part);
                    }
                }
            }
        }
        self.w("]");
    }

    fn if_exp(&mut self, e: &Expr) {
        if !self.flat && self.fits(e, Ctx::TOP) {
            let text = self.flat_text(e, Ctx::TOP);
            self.w(&text);
            return;
        }
        let base = self.col();
        let mut e = e;
        // `else if` chains keep their `then`/`else` in one column.
        while let ExprKind::If(c, t, f) = &e.kind {
            self.w("if ");
            self.expr(c, Ctx::TOP);
            self.nl(base);
            self.w("then ");
            self.expr(t, Ctx::TOP);
            self.nl(base);
            self.w("else ");
            if matches!(f.kind, ExprKind::If(..)) && !self.flat {
                e = f;
            } else {
                self.expr(f, Ctx::TOP);
                return;
            }
        }
    }

    /// A chain of `let`s: `in` is left out before a following `let`.
    fn let_chain(&mut self, e: &Expr) {
        let base = self.col();
        let mut e = e;
        loop {
            self.w("let ");
            let (rhs, body) = match &e.kind {
                ExprKind::Let { sizes, pat, rhs, body } => {
                    for (n, _) in sizes {
                        self.w("[");
                        self.w(n);
                        self.w("] ");
                    }
                    self.pat(pat, types::PCtx::Full);
                    (rhs, body)
                }
                ExprKind::LetFun { name, type_params, params, ret, rhs, body, .. } => {
                    self.binding_name(name);
                    self.type_params(type_params);
                    for p in params {
                        self.w(" ");
                        self.pat(p, types::PCtx::Param);
                    }
                    if let Some(t) = ret {
                        self.w(" : ");
                        self.ty(t, types::TLvl::Full);
                    }
                    (rhs, body)
                }
                ExprKind::LetWith { name, indices, value, body, .. } => {
                    self.w(name);
                    self.dims(indices);
                    (value, body)
                }
                _ => return,
            };
            self.w(" =");
            self.body(rhs, base);
            self.nl(base);
            if is_let(body) && !self.flat {
                e = body;
                continue;
            }
            self.w("in ");
            self.expr(body, Ctx::TOP);
            return;
        }
    }
}

#[cfg(test)]
mod tests;

/// The steps of an index section (`(.f[i])`, read as `\x% -> x%.f[i]`): fields and indices, in
/// order; `None` for any other expression.
fn index_section(e: &Expr) -> Option<Vec<Result<&Name, &[DimIndex]>>> {
    let ExprKind::Lambda { params, ret: None, body } = &e.kind else { return None };
    let [p] = params.as_slice() else { return None };
    if !matches!(&p.kind, PatKind::Var(n) if n == INDEX_SECTION_PARAM) {
        return None;
    }
    let mut steps = Vec::new();
    let mut cur = &**body;
    loop {
        match &cur.kind {
            ExprKind::Project(x, f) => {
                steps.push(Ok(f));
                cur = x;
            }
            ExprKind::Index(x, idx) => {
                steps.push(Err(idx.as_slice()));
                cur = x;
            }
            ExprKind::Var(n) if n == INDEX_SECTION_PARAM => break,
            _ => return None,
        }
    }
    steps.reverse();
    Some(steps)
}
