//! The prelude: `prelude.fut`, parsed with `syntax::PRELUDE_BASE` and checked before the user's
//! program, and the parser for intrinsic signatures.

use crate::diag::Diagnostic;
use crate::syntax::ast::{
    Dec, DimIndex, Expr, ExprKind, LoopForm, NodeId, Pat, PatKind, Program, RecordField, TypeExp,
    TypeParam,
};
use crate::syntax::{self, PRELUDE_BASE};

/// The source of the prelude.
pub const PRELUDE_SRC: &str = include_str!("../prelude.fut");

/// Parse the prelude, renumbering its nodes to start at `first_id` so they never collide with the
/// user's program.
pub(crate) fn parse_prelude(first_id: u32) -> Result<Program, Vec<Diagnostic>> {
    let mut p = syntax::parse_with_base(PRELUDE_SRC, PRELUDE_BASE).map_err(|es| {
        es.into_iter()
            .map(|mut e| {
                e.message = format!("internal error: in the prelude: {}", e.message);
                e
            })
            .collect::<Vec<_>>()
    })?;
    for d in &mut p.decs {
        if let Dec::Val(v) = d {
            for q in &mut v.params {
                shift_pat(q, first_id);
            }
            shift_expr(&mut v.body, first_id);
        }
    }
    p.next_id += first_id;
    Ok(p)
}

/// Parse an intrinsic's signature.
pub(crate) fn parse_sig(sig: &str) -> Result<(Vec<TypeParam>, TypeExp), Vec<Diagnostic>> {
    syntax::parse_val_spec(sig, PRELUDE_BASE)
}

fn shift(id: &mut NodeId, by: u32) {
    id.0 += by;
}

fn shift_pat(p: &mut Pat, by: u32) {
    shift(&mut p.id, by);
    match &mut p.kind {
        PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter_mut().for_each(|q| shift_pat(q, by)),
        PatKind::Record(fs) => fs.iter_mut().for_each(|(_, q)| shift_pat(q, by)),
        PatKind::Ascribed(q, _) => shift_pat(q, by),
        PatKind::Var(_) | PatKind::Wildcard | PatKind::Literal(_) => {}
    }
}

fn shift_dims(ds: &mut [DimIndex], by: u32) {
    for d in ds {
        match d {
            DimIndex::Fix(e) => shift_expr(e, by),
            DimIndex::Slice { start, end, stride } => {
                for e in [start, end, stride].into_iter().flatten() {
                    shift_expr(e, by);
                }
            }
        }
    }
}

/// The prelude is small and written by us, so plain recursion is fine here.
fn shift_expr(e: &mut Expr, by: u32) {
    shift(&mut e.id, by);
    match &mut e.kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpSection(_)
        | ExprKind::ProjectSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
            es.iter_mut().for_each(|x| shift_expr(x, by))
        }
        ExprKind::Record(fs) => {
            for f in fs {
                match f {
                    RecordField::Explicit(_, x) | RecordField::Implicit(_, x) => shift_expr(x, by),
                }
            }
        }
        ExprKind::Range { start, second, end, .. } => {
            shift_expr(start, by);
            if let Some(s) = second {
                shift_expr(s, by);
            }
            shift_expr(end, by);
        }
        ExprKind::Project(x, _)
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::LeftSection(_, x)
        | ExprKind::RightSection(_, x)
        | ExprKind::Ascript(x, _)
        | ExprKind::Coerce(x, _) => shift_expr(x, by),
        ExprKind::Index(x, ds) => {
            shift_expr(x, by);
            shift_dims(ds, by);
        }
        ExprKind::Apply(a, b) | ExprKind::BinOp { lhs: a, rhs: b, .. } | ExprKind::Assert(a, b) => {
            shift_expr(a, by);
            shift_expr(b, by);
        }
        ExprKind::Lambda { params, body, .. } => {
            params.iter_mut().for_each(|p| shift_pat(p, by));
            shift_expr(body, by);
        }
        ExprKind::If(a, b, c) => {
            shift_expr(a, by);
            shift_expr(b, by);
            shift_expr(c, by);
        }
        ExprKind::Let { pat, rhs, body, .. } => {
            shift_pat(pat, by);
            shift_expr(rhs, by);
            shift_expr(body, by);
        }
        ExprKind::LetFun { params, rhs, body, .. } => {
            params.iter_mut().for_each(|p| shift_pat(p, by));
            shift_expr(rhs, by);
            shift_expr(body, by);
        }
        ExprKind::LetWith { indices, value, body, .. } => {
            shift_dims(indices, by);
            shift_expr(value, by);
            shift_expr(body, by);
        }
        ExprKind::Update(x, ds, v) => {
            shift_expr(x, by);
            shift_dims(ds, by);
            shift_expr(v, by);
        }
        ExprKind::RecordUpdate(x, _, v) => {
            shift_expr(x, by);
            shift_expr(v, by);
        }
        ExprKind::Loop { pat, init, form, body } => {
            shift_pat(pat, by);
            if let Some(i) = init {
                shift_expr(i, by);
            }
            match form {
                LoopForm::For { bound, .. } => shift_expr(bound, by),
                LoopForm::ForIn(p, xs) => {
                    shift_pat(p, by);
                    shift_expr(xs, by);
                }
                LoopForm::While(c) => shift_expr(c, by),
            }
            shift_expr(body, by);
        }
        ExprKind::Match(x, cases) => {
            shift_expr(x, by);
            for (p, b) in cases {
                shift_pat(p, by);
                shift_expr(b, by);
            }
        }
    }
}
