//! Normalising spans and node ids, so that two trees can be compared structurally with `==`:
//! `strip_program(&mut a); strip_program(&mut b); a == b`. Used by the printer's round-trip
//! tests and by later stages that compare elaborated programs.

use crate::diag::Span;
use crate::syntax::ast::*;

/// Set every span to `Span::DUMMY` and every node id (and `next_id`) to 0.
pub fn strip_program(p: &mut Program) {
    p.next_id = 0;
    for d in &mut p.decs {
        strip_dec(d);
    }
}

/// A stripped copy of a program.
pub fn stripped(p: &Program) -> Program {
    let mut p = p.clone();
    strip_program(&mut p);
    p
}

/// Whether two programs are equal up to spans and node ids.
pub fn same_program(a: &Program, b: &Program) -> bool {
    stripped(a) == stripped(b)
}

/// Whether two expressions are equal up to spans and node ids.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip_expr(&mut a);
    strip_expr(&mut b);
    a == b
}

pub fn strip_dec(d: &mut Dec) {
    match d {
        Dec::Val(v) => {
            v.name_span = Span::DUMMY;
            v.span = Span::DUMMY;
            v.type_params.iter_mut().for_each(strip_type_param);
            v.params.iter_mut().for_each(strip_pat);
            v.ret.iter_mut().for_each(strip_type);
            strip_expr(&mut v.body);
        }
        Dec::Type(t) => {
            t.span = Span::DUMMY;
            t.params.iter_mut().for_each(strip_type_param);
            strip_type(&mut t.def);
        }
    }
}

pub fn strip_type_param(p: &mut TypeParam) {
    match p {
        TypeParam::Size { span, .. } | TypeParam::Type { span, .. } => *span = Span::DUMMY,
    }
}

fn strip_size(s: &mut SizeExp) {
    s.span = Span::DUMMY;
    if let SizeExpKind::Bin(_, a, b) = &mut s.kind {
        strip_size(a);
        strip_size(b);
    }
}

pub fn strip_type(t: &mut TypeExp) {
    t.span = Span::DUMMY;
    match &mut t.kind {
        TypeExpKind::Prim(_) => {}
        TypeExpKind::Named(_, args) => {
            for a in args {
                match a {
                    TypeArg::Size(s) => strip_size(s),
                    TypeArg::Type(t) => strip_type(t),
                }
            }
        }
        TypeExpKind::Array(d, t) => {
            strip_size(d);
            strip_type(t);
        }
        TypeExpKind::Tuple(ts) => ts.iter_mut().for_each(strip_type),
        TypeExpKind::Record(fs) => fs.iter_mut().for_each(|(_, t)| strip_type(t)),
        TypeExpKind::Arrow(_, a, b) => {
            strip_type(a);
            strip_type(b);
        }
        TypeExpKind::Unique(t) | TypeExpKind::Exists(_, t) => strip_type(t),
        TypeExpKind::Sum(cs) => {
            cs.iter_mut().for_each(|(_, ts)| ts.iter_mut().for_each(strip_type))
        }
    }
}

pub fn strip_pat(p: &mut Pat) {
    p.span = Span::DUMMY;
    p.id = NodeId(0);
    match &mut p.kind {
        PatKind::Var(_) | PatKind::Wildcard | PatKind::Literal(_) => {}
        PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter_mut().for_each(strip_pat),
        PatKind::Record(fs) => fs.iter_mut().for_each(|(_, p)| strip_pat(p)),
        PatKind::Ascribed(p, t) => {
            strip_pat(p);
            strip_type(t);
        }
    }
}

fn strip_dims(idx: &mut [DimIndex]) {
    for d in idx {
        match d {
            DimIndex::Fix(e) => strip_expr(e),
            DimIndex::Slice { start, end, stride } => {
                for e in [start, end, stride].into_iter().flatten() {
                    strip_expr(e);
                }
            }
        }
    }
}

pub fn strip_expr(e: &mut Expr) {
    e.span = Span::DUMMY;
    e.id = NodeId(0);
    match &mut e.kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpSection(_)
        | ExprKind::ProjectSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
            es.iter_mut().for_each(strip_expr)
        }
        ExprKind::Record(fs) => fs.iter_mut().for_each(|f| match f {
            RecordField::Explicit(_, e) | RecordField::Implicit(_, e) => strip_expr(e),
        }),
        ExprKind::Range { start, second, end, .. } => {
            strip_expr(start);
            second.iter_mut().for_each(|e| strip_expr(e));
            strip_expr(end);
        }
        ExprKind::Project(x, _)
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::LeftSection(_, x)
        | ExprKind::RightSection(_, x) => strip_expr(x),
        ExprKind::Ascript(x, t) | ExprKind::Coerce(x, t) => {
            strip_expr(x);
            strip_type(t);
        }
        ExprKind::Index(x, idx) => {
            strip_expr(x);
            strip_dims(idx);
        }
        ExprKind::BinOp { op_span, lhs, rhs, .. } => {
            *op_span = Span::DUMMY;
            strip_expr(lhs);
            strip_expr(rhs);
        }
        ExprKind::Apply(a, b) | ExprKind::Assert(a, b) | ExprKind::RecordUpdate(a, _, b) => {
            strip_expr(a);
            strip_expr(b);
        }
        ExprKind::Lambda { params, ret, body } => {
            params.iter_mut().for_each(strip_pat);
            ret.iter_mut().for_each(strip_type);
            strip_expr(body);
        }
        ExprKind::If(a, b, c) => {
            strip_expr(a);
            strip_expr(b);
            strip_expr(c);
        }
        ExprKind::Let { sizes, pat, rhs, body } => {
            sizes.iter_mut().for_each(|(_, s)| *s = Span::DUMMY);
            strip_pat(pat);
            strip_expr(rhs);
            strip_expr(body);
        }
        ExprKind::LetFun { name_span, type_params, params, ret, rhs, body, .. } => {
            *name_span = Span::DUMMY;
            type_params.iter_mut().for_each(strip_type_param);
            params.iter_mut().for_each(strip_pat);
            ret.iter_mut().for_each(strip_type);
            strip_expr(rhs);
            strip_expr(body);
        }
        ExprKind::LetWith { name_span, indices, value, body, .. } => {
            *name_span = Span::DUMMY;
            strip_dims(indices);
            strip_expr(value);
            strip_expr(body);
        }
        ExprKind::Update(a, idx, v) => {
            strip_expr(a);
            strip_dims(idx);
            strip_expr(v);
        }
        ExprKind::Loop { pat, init, form, body } => {
            strip_pat(pat);
            init.iter_mut().for_each(|e| strip_expr(e));
            match form {
                LoopForm::For { var_span, bound, .. } => {
                    *var_span = Span::DUMMY;
                    strip_expr(bound);
                }
                LoopForm::ForIn(p, xs) => {
                    strip_pat(p);
                    strip_expr(xs);
                }
                LoopForm::While(c) => strip_expr(c),
            }
            strip_expr(body);
        }
        ExprKind::Match(x, cases) => {
            strip_expr(x);
            for (p, b) in cases {
                strip_pat(p);
                strip_expr(b);
            }
        }
    }
}
