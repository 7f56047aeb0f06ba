//! The direct children of an expression, in source order: one traversal for the parser's depth
//! bound, the printer's layout decisions, and anyone else who needs to walk the tree.

use crate::syntax::ast::*;

/// A direct child of an expression.
#[derive(Clone, Copy, Debug)]
pub enum Child<'a> {
    Expr(&'a Expr),
    Pat(&'a Pat),
}

/// Calls `f` on every direct child (expressions and patterns, not types) of `kind`.
pub fn for_each_child<'a>(kind: &'a ExprKind, f: &mut dyn FnMut(Child<'a>)) {
    let mut e = |x: &'a Expr| f(Child::Expr(x));
    match kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpSection(_)
        | ExprKind::ProjectSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
            es.iter().for_each(e)
        }
        ExprKind::Record(fs) => fs.iter().for_each(|fl| match fl {
            RecordField::Explicit(_, x) | RecordField::Implicit(_, x) => e(x),
        }),
        ExprKind::Range { start, second, end, .. } => {
            e(start);
            if let Some(s) = second {
                e(s);
            }
            e(end);
        }
        ExprKind::Project(x, _)
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::LeftSection(_, x)
        | ExprKind::RightSection(_, x)
        | ExprKind::Ascript(x, _)
        | ExprKind::Coerce(x, _) => e(x),
        ExprKind::Index(x, idx) => {
            e(x);
            dims(idx, &mut e);
        }
        ExprKind::Apply(a, b)
        | ExprKind::BinOp { lhs: a, rhs: b, .. }
        | ExprKind::Assert(a, b)
        | ExprKind::RecordUpdate(a, _, b) => {
            e(a);
            e(b);
        }
        ExprKind::If(a, b, c) => {
            e(a);
            e(b);
            e(c);
        }
        ExprKind::Update(a, idx, b) => {
            e(a);
            dims(idx, &mut e);
            e(b);
        }
        ExprKind::LetWith { indices, value, body, .. } => {
            dims(indices, &mut e);
            e(value);
            e(body);
        }
        ExprKind::Lambda { params, body, .. } => {
            params.iter().for_each(|p| f(Child::Pat(p)));
            f(Child::Expr(body));
        }
        ExprKind::Let { pat, rhs, body, .. } => {
            f(Child::Pat(pat));
            f(Child::Expr(rhs));
            f(Child::Expr(body));
        }
        ExprKind::LetFun { params, rhs, body, .. } => {
            params.iter().for_each(|p| f(Child::Pat(p)));
            f(Child::Expr(rhs));
            f(Child::Expr(body));
        }
        ExprKind::Loop { pat, init, form, body } => {
            f(Child::Pat(pat));
            if let Some(i) = init {
                f(Child::Expr(i));
            }
            match form {
                LoopForm::For { bound, .. } => f(Child::Expr(bound)),
                LoopForm::ForIn(p, xs) => {
                    f(Child::Pat(p));
                    f(Child::Expr(xs));
                }
                LoopForm::While(c) => f(Child::Expr(c)),
            }
            f(Child::Expr(body));
        }
        ExprKind::Match(x, cases) => {
            f(Child::Expr(x));
            for (p, b) in cases {
                f(Child::Pat(p));
                f(Child::Expr(b));
            }
        }
    }
}

/// Calls `f` on every direct child expression of `kind`.
pub fn for_each_child_expr<'a>(kind: &'a ExprKind, f: &mut dyn FnMut(&'a Expr)) {
    for_each_child(kind, &mut |c| {
        if let Child::Expr(x) = c {
            f(x)
        }
    });
}

/// Calls `f` on every direct sub-pattern of `kind`.
pub fn for_each_sub_pat<'a>(kind: &'a PatKind, f: &mut dyn FnMut(&'a Pat)) {
    match kind {
        PatKind::Var(_) | PatKind::Wildcard | PatKind::Literal(_) => {}
        PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter().for_each(f),
        PatKind::Record(fs) => fs.iter().for_each(|(_, p)| f(p)),
        PatKind::Ascribed(p, _) => f(p),
    }
}

fn dims<'a>(idx: &'a [DimIndex], e: &mut impl FnMut(&'a Expr)) {
    for d in idx {
        match d {
            DimIndex::Fix(x) => e(x),
            DimIndex::Slice { start, end, stride } => {
                for x in [start, end, stride].into_iter().flatten() {
                    e(x);
                }
            }
        }
    }
}
