//! Printing type expressions and patterns.

use super::{literal_text, Printer};
use crate::syntax::ast::*;

/// Type positions, loosest first: a full type (arrows, existentials), a term (`*t`, sums, applied
/// names), an atom (names, tuples, records, arrays), and an argument of a type application or sum
/// payload, where an array must be parenthesised (`[n]` there is a size argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum TLvl {
    Full,
    Term,
    Atom,
    Arg,
}

fn type_level(t: &TypeExp) -> TLvl {
    match &t.kind {
        TypeExpKind::Arrow(..) | TypeExpKind::Exists(..) => TLvl::Full,
        TypeExpKind::Unique(_) | TypeExpKind::Sum(_) => TLvl::Term,
        TypeExpKind::Named(_, args) if !args.is_empty() => TLvl::Term,
        TypeExpKind::Array(..) => TLvl::Atom,
        _ => TLvl::Arg,
    }
}

/// Pattern positions: a full pattern; a `case` pattern (an ascription would take the `->`); the
/// inside of a constructor pattern or ascription; a function parameter (no negative literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PCtx {
    Full,
    Case,
    Inner,
    Param,
}

impl Printer {
    pub(super) fn ty(&mut self, t: &TypeExp, min: TLvl) {
        if type_level(t) < min {
            self.w("(");
            self.ty_bare(t);
            self.w(")");
        } else {
            self.ty_bare(t);
        }
    }

    fn size(&mut self, d: &SizeExp) {
        self.w("[");
        self.size_inner(d, 0);
        self.w("]");
    }

    /// A size expression inside operators binding at `min` or tighter (a right operand binds
    /// one tighter, as the operators are left-associative).
    fn size_inner(&mut self, d: &SizeExp, min: u8) {
        match &d.kind {
            SizeExpKind::Any => {}
            SizeExpKind::Var(n) => self.w(n),
            SizeExpKind::Const(c) => self.w(&c.to_string()),
            SizeExpKind::Bin(op, a, b) => {
                let paren = op.prec() < min;
                if paren {
                    self.w("(");
                }
                self.size_inner(a, op.prec());
                self.w(op.symbol());
                self.size_inner(b, op.prec() + 1);
                if paren {
                    self.w(")");
                }
            }
        }
    }

    fn ty_bare(&mut self, t: &TypeExp) {
        match &t.kind {
            TypeExpKind::Prim(p) => self.w(p.name()),
            TypeExpKind::Named(n, args) => {
                self.w(n);
                for a in args {
                    self.w(" ");
                    match a {
                        TypeArg::Size(d) => self.size(d),
                        TypeArg::Type(t) => self.ty(t, TLvl::Arg),
                    }
                }
            }
            TypeExpKind::Array(d, elem) => {
                self.size(d);
                self.ty(elem, TLvl::Term);
            }
            TypeExpKind::Tuple(ts) => {
                self.w("(");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.ty(t, TLvl::Full);
                }
                self.w(if ts.len() == 1 { ",)" } else { ")" });
            }
            TypeExpKind::Record(fs) => {
                self.w("{");
                for (i, (n, t)) in fs.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.w(n);
                    self.w(": ");
                    self.ty(t, TLvl::Full);
                }
                self.w("}");
            }
            TypeExpKind::Arrow(name, a, b) => {
                match name {
                    Some(n) => {
                        self.w("(");
                        self.w(n);
                        self.w(": ");
                        self.ty(a, TLvl::Full);
                        self.w(")");
                    }
                    None => self.ty(a, TLvl::Term),
                }
                self.w(" -> ");
                self.ty(b, TLvl::Full);
            }
            TypeExpKind::Unique(t) => {
                self.w("*");
                // `**t` would lex as the operator `**`.
                let min =
                    if matches!(t.kind, TypeExpKind::Unique(_)) { TLvl::Atom } else { TLvl::Term };
                self.ty(t, min);
            }
            TypeExpKind::Exists(names, t) => {
                self.w("?");
                for n in names {
                    self.w("[");
                    self.w(n);
                    self.w("]");
                }
                self.w(".");
                self.ty(t, TLvl::Full);
            }
            TypeExpKind::Sum(clauses) => {
                for (i, (n, payload)) in clauses.iter().enumerate() {
                    if i > 0 {
                        self.w(" | ");
                    }
                    self.w("#");
                    self.w(n);
                    for t in payload {
                        self.w(" ");
                        self.ty(t, TLvl::Arg);
                    }
                }
            }
        }
    }

    pub(super) fn pat(&mut self, p: &Pat, ctx: PCtx) {
        let parens = match &p.kind {
            PatKind::Ascribed(..) => ctx != PCtx::Full,
            PatKind::Constr(_, args) => {
                !args.is_empty() && matches!(ctx, PCtx::Inner | PCtx::Param)
            }
            PatKind::Literal(l) => ctx == PCtx::Param && literal_text(l).starts_with('-'),
            _ => false,
        };
        if parens {
            self.w("(");
            self.pat_bare(p);
            self.w(")");
        } else {
            self.pat_bare(p);
        }
    }

    fn pat_bare(&mut self, p: &Pat) {
        match &p.kind {
            PatKind::Var(n) => self.w(n),
            PatKind::Wildcard => self.w("_"),
            PatKind::Tuple(ps) => {
                self.w("(");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.pat(p, PCtx::Full);
                }
                self.w(if ps.len() == 1 { ",)" } else { ")" });
            }
            PatKind::Record(fs) => {
                self.w("{");
                for (i, (n, p)) in fs.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.w(n);
                    match &p.kind {
                        PatKind::Var(v) if v == n => {}
                        PatKind::Ascribed(inner, t) if matches!(&inner.kind, PatKind::Var(v) if v == n) =>
                        {
                            self.w(": ");
                            self.ty(t, TLvl::Full);
                        }
                        _ => {
                            self.w(" = ");
                            self.pat(p, PCtx::Full);
                        }
                    }
                }
                self.w("}");
            }
            PatKind::Ascribed(p, t) => {
                self.pat(p, PCtx::Inner);
                self.w(": ");
                self.ty(t, TLvl::Full);
            }
            PatKind::Literal(l) => self.w(&literal_text(l)),
            PatKind::Constr(n, args) => {
                self.w("#");
                self.w(n);
                for a in args {
                    self.w(" ");
                    self.pat(a, PCtx::Inner);
                }
            }
        }
    }
}
