//! Elaboration: given the solved (M, R) of every application, rewrite a definition so that every
//! inserted `map`/`rep` is explicit, as ordinary source the checker and lowering already handle.
//!
//! Each spine becomes one `map`/`mapN` nest (seed note §3.4): its depth is the final frame `F_n`;
//! argument i has its own dimensions aligned with the innermost `F_i - R_i` levels (reps add outer
//! dimensions), and is captured by the lambdas at the levels above (an induced rep, fused: never
//! materialised). Captured arguments that are not variables or literals are `let`-bound outside
//! the nest so they are computed once. A rep beyond the frame (non-induced) becomes `rep e`, the
//! intrinsic `replicate` whose size the checker infers from the context.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{
    DimIndex, Expr, ExprKind, LoopForm, Name, NodeId, Pat, PatKind, RecordField,
};

use super::rank::{MapKind, Spine};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertKind {
    /// `n` implicit maps lift the function over this argument.
    Map(i64),
    /// The argument is replicated `n` times; `fused` when every rep is induced by a map of the
    /// same spine (captured by the map's lambda, never materialised).
    Rep { n: i64, fused: bool },
}

/// One inserted map or rep, at the argument it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    pub span: Span,
    pub kind: InsertKind,
}

pub(crate) struct Elab<'a> {
    pub spines: &'a HashMap<NodeId, Spine>,
    pub maps: &'a HashMap<NodeId, MapKind>,
    pub vals: &'a [i64],
    pub next_id: &'a mut u32,
    pub used: HashSet<Name>,
    pub counter: usize,
    pub insertions: Vec<Insertion>,
    /// The `rep` nodes inserted for reps beyond the frame (their sizes come from the checker).
    pub reps: Vec<NodeId>,
    pub errors: Vec<Diagnostic>,
}

/// How the innermost application of a nest is rebuilt.
enum Head {
    /// `f a1 .. an`, with the original `Apply` ids from the innermost out.
    Apply(Expr, Vec<(NodeId, Span)>),
    BinOp {
        op: Name,
        op_span: Span,
        id: NodeId,
        span: Span,
    },
    Pipe {
        id: NodeId,
        span: Span,
        f: Expr,
    },
    Neg(NodeId, Span),
    Not(NodeId, Span),
}

impl Elab<'_> {
    fn id(&mut self) -> NodeId {
        *self.next_id += 1;
        NodeId(*self.next_id - 1)
    }

    fn fresh_name(&mut self) -> Name {
        loop {
            let n = format!("x{}", self.counter);
            self.counter += 1;
            if !self.used.contains(&n) {
                return n;
            }
        }
    }

    fn var(&mut self, n: &str, span: Span) -> Expr {
        Expr { kind: ExprKind::Var(n.to_string()), span, id: self.id() }
    }

    pub fn expr(&mut self, e: &Expr) -> Expr {
        if let Some(spine) = self.spines.get(&e.id) {
            let any = spine.apps.iter().any(|a| self.vals[a.m] != 0 || self.vals[a.r] != 0);
            if any {
                if let Some(x) = self.spine(e, spine) {
                    return x;
                }
            }
        }
        let mut out = e.clone();
        for_each_child_mut(&mut out.kind, &mut |c| *c = self.expr(c));
        out
    }

    fn spine(&mut self, e: &Expr, spine: &Spine) -> Option<Expr> {
        let vals = self.vals;
        let ms: Vec<i64> = spine.apps.iter().map(|a| vals[a.m]).collect();
        let rs: Vec<i64> = spine.apps.iter().map(|a| vals[a.r]).collect();
        let frames: Vec<i64> = spine.apps.iter().map(|a| a.frame.eval(vals)).collect();
        match &e.kind {
            ExprKind::Apply(..) if self.maps.get(&e.id) == Some(&MapKind::Eta) => {
                // `mapN f xs ..`: map a lambda whose body applies `f` flexibly to the elements.
                let mut args = Vec::new();
                let mut g = e;
                let mut ids = Vec::new();
                while let ExprKind::Apply(h, a) = &g.kind {
                    args.push(&**a);
                    ids.push((g.id, g.span));
                    g = h;
                }
                args.reverse();
                let (f, arrays) = args.split_first()?;
                let f = self.expr(f);
                let names: Vec<Name> = arrays.iter().map(|_| self.fresh_name()).collect();
                let elems: Vec<Expr> = names.iter().map(|n| self.var(n, e.span)).collect();
                let inner_ids: Vec<(NodeId, Span)> =
                    (0..elems.len()).map(|_| (self.id(), e.span)).collect();
                let body = self.nest(Head::Apply(f, inner_ids), elems, &ms, &rs, &frames, spine);
                let lam = self.lambda(&names, body, e.span);
                let mut out = Expr { kind: lam.kind, span: lam.span, id: lam.id };
                // Rebuild `mapN lam xs ..` around the original head and ids.
                let mut head = g.clone();
                head.id = self.id();
                let mut acc = Expr {
                    kind: ExprKind::Apply(Box::new(head), Box::new(out)),
                    span: e.span,
                    id: self.id(),
                };
                for a in arrays {
                    let a = self.expr(a);
                    acc = Expr {
                        kind: ExprKind::Apply(Box::new(acc), Box::new(a)),
                        span: e.span,
                        id: self.id(),
                    };
                }
                out = acc;
                Some(out)
            }
            ExprKind::Apply(..) => {
                let mut args = Vec::new();
                let mut ids = Vec::new();
                let mut g = e;
                while let ExprKind::Apply(h, a) = &g.kind {
                    args.push(&**a);
                    ids.push((g.id, g.span));
                    g = h;
                }
                args.reverse();
                ids.reverse();
                let f = self.expr(g);
                let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                Some(self.nest(Head::Apply(f, ids), args, &ms, &rs, &frames, spine))
            }
            ExprKind::BinOp { op, op_span, lhs, rhs } => {
                if op == "|>" || op == "<|" {
                    let (f, x) = if op == "|>" { (rhs, lhs) } else { (lhs, rhs) };
                    let f = self.expr(f);
                    let x = self.expr(x);
                    return Some(self.nest(
                        Head::Pipe { id: e.id, span: e.span, f },
                        vec![x],
                        &ms,
                        &rs,
                        &frames,
                        spine,
                    ));
                }
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let head =
                    Head::BinOp { op: op.clone(), op_span: *op_span, id: e.id, span: e.span };
                Some(self.nest(head, vec![l, r], &ms, &rs, &frames, spine))
            }
            ExprKind::Neg(x) => {
                let x = self.expr(x);
                Some(self.nest(Head::Neg(e.id, e.span), vec![x], &ms, &rs, &frames, spine))
            }
            ExprKind::Not(x) => {
                let x = self.expr(x);
                Some(self.nest(Head::Not(e.id, e.span), vec![x], &ms, &rs, &frames, spine))
            }
            _ => None,
        }
    }

    fn lambda(&mut self, names: &[Name], body: Expr, span: Span) -> Expr {
        let params = names
            .iter()
            .map(|n| Pat { kind: PatKind::Var(n.clone()), span, id: self.id() })
            .collect();
        Expr {
            kind: ExprKind::Lambda { params, ret: None, body: Box::new(body) },
            span,
            id: self.id(),
        }
    }

    /// The map nest of one spine.
    fn nest(
        &mut self,
        head: Head,
        mut args: Vec<Expr>,
        ms: &[i64],
        rs: &[i64],
        frames: &[i64],
        spine: &Spine,
    ) -> Expr {
        let n = args.len();
        let mut levels = vec![0i64; n];
        let mut depth = 0;
        for i in 0..n {
            let f = frames.get(i).copied().unwrap_or(0) + ms.get(i).copied().unwrap_or(0);
            let r = rs.get(i).copied().unwrap_or(0);
            let span = spine.apps.get(i).map_or(spine.span, |a| a.span);
            if ms.get(i).copied().unwrap_or(0) > 0 {
                self.insertions.push(Insertion { span, kind: InsertKind::Map(ms[i]) });
            }
            if r > 0 {
                let extra = r - f;
                self.insertions
                    .push(Insertion { span, kind: InsertKind::Rep { n: r, fused: extra <= 0 } });
                // Reps beyond the frame are materialised: `rep` replicates to the size the context
                // requires, which the checker infers from the elaborated program.
                for _ in 0..extra.max(0) {
                    let a = std::mem::replace(&mut args[i], self.var("rep", span));
                    let rep = self.var("rep", span);
                    self.reps.push(rep.id);
                    args[i] = Expr {
                        kind: ExprKind::Apply(Box::new(rep), Box::new(a)),
                        span,
                        id: self.id(),
                    };
                }
            }
            levels[i] = (f - r).max(0);
            depth = f;
        }
        // Captured arguments are computed once, outside the nest.
        let mut lets = Vec::new();
        for i in 0..n {
            if levels[i] < depth && !matches!(args[i].kind, ExprKind::Var(_) | ExprKind::Literal(_))
            {
                let name = self.fresh_name();
                let sp = args[i].span;
                let v = self.var(&name, sp);
                let a = std::mem::replace(&mut args[i], v);
                lets.push((name, a));
            }
        }
        let mut body = self.level(1, depth, &levels, args, &head, spine.span);
        for (name, rhs) in lets.into_iter().rev() {
            let span = rhs.span;
            let pat = Pat { kind: PatKind::Var(name), span, id: self.id() };
            body = Expr {
                kind: ExprKind::Let {
                    sizes: vec![],
                    pat,
                    rhs: Box::new(rhs),
                    body: Box::new(body),
                },
                span: spine.span,
                id: self.id(),
            };
        }
        body
    }

    fn level(
        &mut self,
        k: i64,
        depth: i64,
        levels: &[i64],
        mut args: Vec<Expr>,
        head: &Head,
        span: Span,
    ) -> Expr {
        if k > depth {
            return self.rebuild(head, args);
        }
        let part: Vec<usize> = (0..args.len()).filter(|&i| levels[i] > depth - k).collect();
        let names: Vec<Name> = part.iter().map(|_| self.fresh_name()).collect();
        let mut arrays = Vec::new();
        for (&i, name) in part.iter().zip(&names) {
            let v = self.var(name, args[i].span);
            arrays.push(std::mem::replace(&mut args[i], v));
        }
        let body = self.level(k + 1, depth, levels, args, head, span);
        let lam = self.lambda(&names, body, span);
        let fname = match arrays.len() {
            1 => "map".to_string(),
            n if n <= 5 => format!("map{n}"),
            n => {
                self.errors.push(Diagnostic::ty(
                    span,
                    format!("unsupported: AUTOMAP would map over {n} arrays at once (at most 5)"),
                ));
                "map".to_string()
            }
        };
        let mut acc = self.var(&fname, span);
        acc = Expr { kind: ExprKind::Apply(Box::new(acc), Box::new(lam)), span, id: self.id() };
        for a in arrays {
            acc = Expr { kind: ExprKind::Apply(Box::new(acc), Box::new(a)), span, id: self.id() };
        }
        acc
    }

    fn rebuild(&mut self, head: &Head, mut args: Vec<Expr>) -> Expr {
        match head {
            Head::Apply(f, ids) => {
                let mut acc = f.clone();
                if acc.id == f.id && args.len() > 1 {
                    // The head may be duplicated only if it appears once: give it fresh ids.
                }
                for (a, (id, span)) in args.into_iter().zip(ids) {
                    acc = Expr {
                        kind: ExprKind::Apply(Box::new(acc), Box::new(a)),
                        span: *span,
                        id: *id,
                    };
                }
                acc
            }
            Head::BinOp { op, op_span, id, span } => {
                let r = args.pop().unwrap_or_else(|| self.var("_", *span));
                let l = args.pop().unwrap_or_else(|| self.var("_", *span));
                Expr {
                    kind: ExprKind::BinOp {
                        op: op.clone(),
                        op_span: *op_span,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    span: *span,
                    id: *id,
                }
            }
            Head::Pipe { id, span, f } => {
                let x = args.pop().unwrap_or_else(|| self.var("_", *span));
                Expr {
                    kind: ExprKind::Apply(Box::new(f.clone()), Box::new(x)),
                    span: *span,
                    id: *id,
                }
            }
            Head::Neg(id, span) | Head::Not(id, span) => {
                let x = args.pop().unwrap_or_else(|| self.var("_", *span));
                let kind = if matches!(head, Head::Neg(..)) {
                    ExprKind::Neg(Box::new(x))
                } else {
                    ExprKind::Not(Box::new(x))
                };
                Expr { kind, span: *span, id: *id }
            }
        }
    }
}

/// Every identifier a definition mentions (so inserted names never capture or shadow one).
pub(crate) fn names_in(e: &Expr, out: &mut HashSet<Name>) {
    match &e.kind {
        ExprKind::Var(n) => {
            out.insert(n.clone());
        }
        ExprKind::LetFun { name, .. } | ExprKind::LetWith { name, .. } => {
            out.insert(name.clone());
        }
        ExprKind::Loop { form: LoopForm::For { var, .. }, .. } => {
            out.insert(var.clone());
        }
        _ => {}
    }
    crate::syntax::visit::for_each_child(&e.kind, &mut |c| match c {
        crate::syntax::visit::Child::Expr(x) => names_in(x, out),
        crate::syntax::visit::Child::Pat(p) => pat_names(p, out),
    });
}

pub(crate) fn pat_names(p: &Pat, out: &mut HashSet<Name>) {
    if let PatKind::Var(n) = &p.kind {
        out.insert(n.clone());
    }
    crate::syntax::visit::for_each_sub_pat(&p.kind, &mut |q| pat_names(q, out));
}

/// Calls `f` on every direct child expression, mutably.
fn for_each_child_mut(kind: &mut ExprKind, f: &mut dyn FnMut(&mut Expr)) {
    fn dims(idx: &mut [DimIndex], f: &mut dyn FnMut(&mut Expr)) {
        for d in idx {
            match d {
                DimIndex::Fix(e) => f(e),
                DimIndex::Slice { start, end, stride } => {
                    for e in [start, end, stride].into_iter().flatten() {
                        f(e)
                    }
                }
            }
        }
    }
    match kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpSection(_)
        | ExprKind::ProjectSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constr(_, es) => {
            es.iter_mut().for_each(f)
        }
        ExprKind::Record(fs) => {
            for fl in fs {
                match fl {
                    RecordField::Explicit(_, x) | RecordField::Implicit(_, x) => f(x),
                }
            }
        }
        ExprKind::Range { start, second, end, .. } => {
            f(start);
            if let Some(s) = second {
                f(s);
            }
            f(end);
        }
        ExprKind::Project(x, _)
        | ExprKind::Neg(x)
        | ExprKind::Not(x)
        | ExprKind::LeftSection(_, x)
        | ExprKind::RightSection(_, x)
        | ExprKind::Ascript(x, _)
        | ExprKind::Coerce(x, _) => f(x),
        ExprKind::Index(a, idx) => {
            f(a);
            dims(idx, f);
        }
        ExprKind::Apply(a, b) | ExprKind::Assert(a, b) => {
            f(a);
            f(b);
        }
        ExprKind::BinOp { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Lambda { body, .. } => f(body),
        ExprKind::If(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
        ExprKind::Let { rhs, body, .. } | ExprKind::LetFun { rhs, body, .. } => {
            f(rhs);
            f(body);
        }
        ExprKind::LetWith { indices, value, body, .. } => {
            dims(indices, f);
            f(value);
            f(body);
        }
        ExprKind::Update(a, idx, v) => {
            f(a);
            dims(idx, f);
            f(v);
        }
        ExprKind::RecordUpdate(a, _, v) => {
            f(a);
            f(v);
        }
        ExprKind::Loop { init, form, body, .. } => {
            if let Some(i) = init {
                f(i);
            }
            match form {
                LoopForm::For { bound, .. } => f(bound),
                LoopForm::ForIn(_, xs) => f(xs),
                LoopForm::While(c) => f(c),
            }
            f(body);
        }
        ExprKind::Match(s, cases) => {
            f(s);
            for (_, b) in cases {
                f(b);
            }
        }
    }
}
