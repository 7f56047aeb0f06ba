//! Futhark's restrictions, checked on the solved types: no functions returned from `if`/`match`
//! or carried by loops, `match` must cover every value, entry points take and return primitive
//! values and arrays, tuples, records and sum types of them, and size parameters must be
//! determined by the parameters.

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::syntax::ast::{
    DimIndex, Expr, ExprKind, Literal, LoopForm, Name, NodeId, Pat, PatKind, RecordField,
    TypeParam, ValDec,
};

use super::print::show_type;
use super::{Scheme, Size, Type};

pub(crate) struct Restrict<'a> {
    pub types: &'a HashMap<NodeId, Type>,
    pub pats: &'a HashMap<NodeId, Type>,
    pub names: &'a [Name],
    pub errors: Vec<Diagnostic>,
}

fn has_arrow(t: &Type) -> bool {
    match t {
        Type::Arrow { .. } => true,
        Type::Array { elem, .. } => has_arrow(elem),
        Type::Tuple(ts) => ts.iter().any(has_arrow),
        Type::Record(fs) => fs.values().any(has_arrow),
        Type::Sum(cs) => cs.values().flatten().any(has_arrow),
        Type::Prim(_) | Type::Var(_) => false,
    }
}

/// What an entry point can take and return: primitive values, and arrays, tuples and records
/// of them (passed as their components; see `entry_leaves` in lowering). Sum types and
/// functions have no representation outside a program.
fn entry_value(t: &Type) -> bool {
    match t {
        Type::Prim(_) => true,
        Type::Array { elem, .. } => entry_value(elem),
        Type::Tuple(ts) => ts.iter().all(entry_value),
        Type::Record(fs) => fs.values().all(entry_value),
        Type::Sum(cs) => cs.values().flatten().all(entry_value),
        Type::Arrow { .. } | Type::Var(_) => false,
    }
}

impl Restrict<'_> {
    fn show(&self, t: &Type) -> String {
        show_type(t, self.names)
    }

    /// A pattern outside `match` (a parameter, `let`, loop) must match every value of its type:
    /// constructors only of a type that has no other (`let #point x y = p`), no literals.
    fn irrefutable(&mut self, p: &Pat) {
        if !p.is_refutable_form() {
            return;
        }
        let Some(t) = self.pats.get(&p.id) else { return };
        if let Some(missing) = uncovered(&[vec![p]], std::slice::from_ref(t), 0) {
            self.errors.push(
                Diagnostic::ty(
                    p.span,
                    format!("refutable pattern: `{}` is not covered", missing.join(" ")),
                )
                .with_hint("only `match` may have cases that fail; match on the value instead"),
            );
        }
    }

    /// Checks on a definition's signature.
    pub fn def(&mut self, d: &ValDec, scheme: &Scheme) {
        for p in &d.params {
            self.irrefutable(p);
        }
        // Size parameters must be found in the shape of some (non-function) parameter.
        for tp in &d.type_params {
            if let TypeParam::Size { name, span } = tp {
                let used = d
                    .params
                    .iter()
                    .any(|p| self.pats.get(&p.id).is_some_and(|t| constructive(t, name)));
                if !used {
                    let mut e = Diagnostic::ty(
                        *span,
                        format!("the size parameter `{name}` is not the size of any parameter"),
                    )
                    .with_hint("a size parameter must appear in the type of a parameter, outside of function types");
                    let computed = d.params.iter().find_map(|p| {
                        self.pats.get(&p.id).and_then(|t| computed_mentioning(t, name))
                    });
                    if let Some(size) = computed {
                        e = e.with_hint(format!(
                            "`{name}` appears only in the computed size `{size}`, from which a call \
                             cannot tell it: give some parameter the size `[{name}]`"
                        ));
                    }
                    self.errors.push(e);
                }
            }
        }
        if !d.entry {
            return;
        }
        if d.type_params.iter().any(|p| matches!(p, TypeParam::Type { .. })) {
            self.errors
                .push(Diagnostic::ty(d.name_span, "entry points cannot have type parameters"));
        }
        for p in &d.params {
            if let Some(t) = self.pats.get(&p.id) {
                if !entry_value(t) {
                    self.errors.push(Diagnostic::ty(
                        p.span,
                        format!("entry point parameters must be primitive values, or arrays, tuples, records and sum types of them; found `{}`", self.show(t)),
                    ));
                }
            }
        }
        let mut ret = &scheme.ty;
        for _ in &d.params {
            if let Type::Arrow { to, .. } = ret {
                ret = to;
            }
        }
        // A function result takes the entry point's further arguments (`entry main = map f`),
        // which must be entry point values too.
        while let Type::Arrow { from, to, .. } = ret {
            if !entry_value(from) {
                break;
            }
            ret = to;
        }
        if !entry_value(ret) {
            let span = d.ret.as_ref().map_or(d.body.span, |t| t.span);
            self.errors.push(Diagnostic::ty(
                span,
                format!(
                    "entry point results must be primitive values, or arrays, tuples, records and sum types of them; found `{}`",
                    self.show(ret)
                ),
            ));
        }
    }

    fn dims(&mut self, ds: &[DimIndex]) {
        for d in ds {
            match d {
                DimIndex::Fix(x) => self.expr(x),
                DimIndex::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.expr(x);
                    }
                }
            }
        }
    }

    pub fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(_)
            | ExprKind::Var(_)
            | ExprKind::OpSection(_)
            | ExprKind::ProjectSection(_) => {}
            ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
                es.iter().for_each(|x| self.expr(x))
            }
            ExprKind::Record(fs) => {
                for f in fs {
                    let (RecordField::Explicit(_, x) | RecordField::Implicit(_, x)) = f;
                    self.expr(x);
                }
            }
            ExprKind::Range { start, second, end, .. } => {
                self.expr(start);
                if let Some(s) = second {
                    self.expr(s);
                }
                self.expr(end);
            }
            ExprKind::Project(x, _)
            | ExprKind::Neg(x)
            | ExprKind::Not(x)
            | ExprKind::LeftSection(_, x)
            | ExprKind::RightSection(_, x)
            | ExprKind::Ascript(x, _)
            | ExprKind::Coerce(x, _) => self.expr(x),
            ExprKind::Index(x, ds) => {
                self.expr(x);
                self.dims(ds);
            }
            ExprKind::Apply(..) => {
                let mut cur = e;
                while let ExprKind::Apply(f, a) = &cur.kind {
                    self.expr(a);
                    cur = f;
                }
                self.expr(cur);
            }
            ExprKind::BinOp { lhs, rhs, .. } | ExprKind::Assert(lhs, rhs) => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Lambda { params, body, .. } => {
                for p in params {
                    self.irrefutable(p);
                }
                self.expr(body)
            }
            ExprKind::If(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
                if let Some(t) = self.types.get(&e.id).filter(|t| has_arrow(t)) {
                    self.errors.push(
                        Diagnostic::ty(e.span, format!("functions cannot be returned from `if`; the branches have type `{}`", self.show(t)))
                            .with_hint("apply the function inside each branch instead"),
                    );
                }
            }
            ExprKind::Match(x, cases) => {
                self.expr(x);
                for (_, b) in cases {
                    self.expr(b);
                }
                if let Some(t) = self.types.get(&e.id).filter(|t| has_arrow(t)) {
                    self.errors.push(Diagnostic::ty(
                        e.span,
                        format!(
                            "functions cannot be returned from `match`; the cases have type `{}`",
                            self.show(t)
                        ),
                    ));
                }
                self.exhaustive(e, x, cases);
            }
            ExprKind::Let { pat, rhs, body, .. } => {
                self.irrefutable(pat);
                self.expr(rhs);
                self.expr(body);
            }
            ExprKind::LetFun { params, rhs, body, .. } => {
                for p in params {
                    self.irrefutable(p);
                }
                self.expr(rhs);
                self.expr(body);
            }
            ExprKind::LetWith { indices, value, body, .. } => {
                self.dims(indices);
                self.expr(value);
                self.expr(body);
            }
            ExprKind::Update(x, ds, v) => {
                self.expr(x);
                self.dims(ds);
                self.expr(v);
            }
            ExprKind::RecordUpdate(x, _, v) => {
                self.expr(x);
                self.expr(v);
            }
            ExprKind::Loop { pat, init, form, body } => {
                self.irrefutable(pat);
                if let Some(i) = init {
                    self.expr(i);
                }
                match form {
                    LoopForm::For { bound, .. } => self.expr(bound),
                    LoopForm::ForIn(_, xs) => self.expr(xs),
                    LoopForm::While(c) => self.expr(c),
                }
                self.expr(body);
                if let Some(t) = self.pats.get(&pat.id).filter(|t| has_arrow(t)) {
                    self.errors.push(Diagnostic::ty(
                        pat.span,
                        format!(
                            "a loop cannot carry a function; the loop parameter has type `{}`",
                            self.show(t)
                        ),
                    ));
                }
            }
        }
    }

    fn exhaustive(&mut self, e: &Expr, x: &Expr, cases: &[(Pat, Expr)]) {
        let Some(t) = self.types.get(&x.id) else { return };
        let rows: Vec<Vec<&Pat>> = cases.iter().map(|(p, _)| vec![p]).collect();
        if let Some(missing) = uncovered(&rows, std::slice::from_ref(t), 0) {
            self.errors.push(
                Diagnostic::ty(
                    e.span,
                    format!("unmatched cases in `match`: `{}` is not covered", missing.join(" ")),
                )
                .with_hint("add a case for it, or a catch-all case `_`"),
            );
        }
    }
}

/// Does a size parameter appear in a parameter's shape (not under a function type)?
fn constructive(t: &Type, name: &str) -> bool {
    match t {
        Type::Array { shape, elem, .. } => {
            shape.iter().any(|s| matches!(s, Size::Var(n) if n == name)) || constructive(elem, name)
        }
        Type::Tuple(ts) => ts.iter().any(|t| constructive(t, name)),
        Type::Record(fs) => fs.values().any(|t| constructive(t, name)),
        Type::Sum(cs) => cs.values().flatten().any(|t| constructive(t, name)),
        Type::Prim(_) | Type::Var(_) | Type::Arrow { .. } => false,
    }
}

/// A computed size (`[n+1]`) in `t`, outside function types, that mentions `name`.
fn computed_mentioning(t: &Type, name: &str) -> Option<Size> {
    match t {
        Type::Array { shape, elem, .. } => shape
            .iter()
            .find(|s| s.is_computed() && s.names().iter().any(|n| *n == name))
            .cloned()
            .or_else(|| computed_mentioning(elem, name)),
        Type::Tuple(ts) => ts.iter().find_map(|t| computed_mentioning(t, name)),
        Type::Record(fs) => fs.values().find_map(|t| computed_mentioning(t, name)),
        Type::Sum(cs) => cs.values().flatten().find_map(|t| computed_mentioning(t, name)),
        Type::Prim(_) | Type::Var(_) | Type::Arrow { .. } => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Exhaustiveness of `match`: the usefulness algorithm on a matrix of patterns.

fn strip(p: &Pat) -> &Pat {
    match &p.kind {
        PatKind::Ascribed(q, _) => strip(q),
        _ => p,
    }
}

fn is_wild(p: &Pat) -> bool {
    matches!(strip(p).kind, PatKind::Var(_) | PatKind::Wildcard)
}

/// Rows whose first pattern is a wildcard, with that column removed.
fn defaults<'p>(rows: &[Vec<&'p Pat>]) -> Vec<Vec<&'p Pat>> {
    rows.iter().filter(|r| r.first().is_some_and(|p| is_wild(p))).map(|r| r[1..].to_vec()).collect()
}

/// If some value of types `tys` matches no row, one such value (as pattern text).
fn uncovered(rows: &[Vec<&Pat>], tys: &[Type], depth: usize) -> Option<Vec<String>> {
    let Some((t0, rest_tys)) = tys.split_first() else {
        return if rows.is_empty() { Some(vec![]) } else { None };
    };
    if depth > 64 {
        return None;
    }
    match t0 {
        Type::Tuple(_) | Type::Record(_) => {
            let (comps, field_names): (Vec<Type>, Vec<Name>) = match t0 {
                Type::Tuple(ts) => (ts.clone(), vec![]),
                Type::Record(fs) => (fs.values().cloned().collect(), fs.keys().cloned().collect()),
                _ => (vec![], vec![]),
            };
            let mut new_rows = Vec::new();
            for r in rows {
                let Some(first) = r.first() else { continue };
                let p = strip(first);
                let expanded: Option<Vec<&Pat>> = match &p.kind {
                    PatKind::Tuple(ps) if ps.len() == comps.len() => Some(ps.iter().collect()),
                    PatKind::Record(fs) => {
                        let mut v = Vec::new();
                        for n in &field_names {
                            v.push(fs.iter().find(|(m, _)| m == n).map(|(_, q)| q)?);
                        }
                        Some(v)
                    }
                    _ if is_wild(p) => None,
                    _ => continue,
                };
                let mut row: Vec<&Pat> = match expanded {
                    Some(v) => v,
                    None => {
                        // A wildcard stands for a tuple of wildcards: reuse it for every component.
                        std::iter::repeat_n(p, comps.len()).collect()
                    }
                };
                row.extend_from_slice(&r[1..]);
                new_rows.push(row);
            }
            let mut all_tys = comps.clone();
            all_tys.extend_from_slice(rest_tys);
            let mut w = uncovered(&new_rows, &all_tys, depth + 1)?;
            let parts: Vec<String> = w.drain(..comps.len()).collect();
            let shown = match t0 {
                Type::Record(_) => format!(
                    "{{{}}}",
                    field_names
                        .iter()
                        .zip(&parts)
                        .map(|(n, p)| format!("{n} = {p}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => format!("({})", parts.join(", ")),
            };
            w.insert(0, shown);
            Some(w)
        }
        Type::Prim(crate::prim::PrimType::Bool) => {
            for b in [true, false] {
                let spec: Vec<Vec<&Pat>> = rows
                    .iter()
                    .filter(|r| match r.first().map(|p| &strip(p).kind) {
                        Some(PatKind::Literal(Literal::Bool(c))) => *c == b,
                        Some(_) => r.first().is_some_and(|p| is_wild(p)),
                        None => false,
                    })
                    .map(|r| r[1..].to_vec())
                    .collect();
                if let Some(mut w) = uncovered(&spec, rest_tys, depth + 1) {
                    w.insert(0, b.to_string());
                    return Some(w);
                }
            }
            None
        }
        Type::Sum(cs) => {
            for (c, args) in cs {
                let mut spec = Vec::new();
                for r in rows {
                    let Some(first) = r.first() else { continue };
                    let p = strip(first);
                    match &p.kind {
                        PatKind::Constr(d, ps) if d == c && ps.len() == args.len() => {
                            let mut row: Vec<&Pat> = ps.iter().collect();
                            row.extend_from_slice(&r[1..]);
                            spec.push(row);
                        }
                        _ if is_wild(p) => {
                            let mut row: Vec<&Pat> = std::iter::repeat_n(p, args.len()).collect();
                            row.extend_from_slice(&r[1..]);
                            spec.push(row);
                        }
                        _ => {}
                    }
                }
                let mut all_tys = args.clone();
                all_tys.extend_from_slice(rest_tys);
                if let Some(mut w) = uncovered(&spec, &all_tys, depth + 1) {
                    let parts: Vec<String> = w.drain(..args.len()).collect();
                    let mut s = format!("#{c}");
                    for p in parts {
                        s.push(' ');
                        s.push_str(&p);
                    }
                    w.insert(0, if args.is_empty() { s } else { format!("({s})") });
                    return Some(w);
                }
            }
            None
        }
        _ => {
            // Infinitely many values (numbers, arrays): only wildcards cover them.
            let mut w = uncovered(&defaults(rows), rest_tys, depth + 1)?;
            w.insert(0, "_".to_string());
            Some(w)
        }
    }
}
