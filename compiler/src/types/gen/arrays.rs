//! Indexing, slicing, ranges and loops.

use crate::diag::Span;
use crate::syntax::ast::{DimIndex, Expr, ExprKind, LoopForm, Name, Pat, PatKind, RangeEnd};

use super::super::constraint::{Bound, IndexDim, Kind, Reason, SliceKey, SliceSize};
use super::super::ity::{Dim, PrimSet, Ty};
use super::super::typeexp::AnySize;
use super::{int_literal, Gen, Local, LocalKind};

impl Gen<'_> {
    pub(super) fn index_dims(&mut self, dims: &[DimIndex]) -> Vec<IndexDim> {
        let mut out = Vec::new();
        for d in dims {
            match d {
                DimIndex::Fix(i) => {
                    // Any signed integer, as in Futhark; slice bounds are `i64`.
                    let t = self.expr(i);
                    self.push(
                        Kind::Prim { ty: t, set: PrimSet::signed_ints() },
                        i.span,
                        Reason::IndexValue,
                    );
                    out.push(IndexDim::Fix);
                }
                DimIndex::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        let t = self.expr(x);
                        self.eq(Ty::i64(), t, x.span, Reason::IndexValue);
                    }
                    out.push(IndexDim::Slice(self.slice_size(
                        start.as_ref(),
                        end.as_ref(),
                        stride.as_ref(),
                    )));
                }
            }
        }
        out
    }

    pub(super) fn slice_size(
        &self,
        start: Option<&Expr>,
        end: Option<&Expr>,
        stride: Option<&Expr>,
    ) -> SliceSize {
        let step = stride.map_or(Some(1), int_literal);
        // `a[::1]` and `a[::-1]` are the whole dimension (the latter reversed).
        if start.is_none() && end.is_none() && matches!(step, Some(1 | -1)) {
            return SliceSize::Whole;
        }
        // Constant bounds: the size the run-time check will also find (or refuse).
        if let (Some(i), Some(j), Some(s)) =
            (start.and_then(int_literal), end.and_then(int_literal), step)
        {
            let n = match s {
                s if s > 0 => (j - i + s - 1).div_euclid(s),
                s if s < 0 => (i - j - s - 1).div_euclid(-s),
                _ => return SliceSize::Unknown,
            };
            return i64::try_from(n.max(0))
                .map_or(SliceSize::Unknown, |k| SliceSize::Known(Dim::Const(k)));
        }
        if step != Some(1) {
            return self.slice_key(start, end, stride);
        }
        // Bounds that are sizes: the difference (`xs[1:]` is `[n-1]`, `xs[i:i+k]` is `[k]`).
        let (start_expr, end_expr) = (start, end);
        let start_size = match start {
            None => Some(Dim::Const(0)),
            Some(e) => self.size_of(e, 0),
        };
        let end_size = match end {
            None => Some(None),
            Some(e) => self.size_of(e, 0).map(Some),
        };
        match (start_size, end_size) {
            (Some(Dim::Const(0)), Some(None)) => SliceSize::Whole,
            (Some(start), Some(end)) => {
                let key = match self.slice_key(start_expr, end_expr, stride) {
                    SliceSize::Keyed(k) => Some(k),
                    _ => None,
                };
                SliceSize::Span { start, end, key }
            }
            _ => self.slice_key(start_expr, end_expr, stride),
        }
    }

    /// A slice whose bounds are constants, local variables, and sums, differences and products
    /// of them gets a key (the solver gives slices with one key, of equal dimensions, one
    /// size); any other bound, a fresh size.
    fn slice_key(
        &self,
        start: Option<&Expr>,
        end: Option<&Expr>,
        stride: Option<&Expr>,
    ) -> SliceSize {
        let bound = |x: Option<&Expr>| match x {
            None => Some(Bound::Absent),
            Some(e) => self.bound(e, 0),
        };
        match (bound(start), bound(end), bound(stride)) {
            (Some(a), Some(b), Some(c)) => SliceSize::Keyed(SliceKey([a, b, c])),
            _ => SliceSize::Unknown,
        }
    }

    /// The key of a slice bound, if it is built from constants and locals by `+`, `-` and `*`
    /// (kept small: a bound nested deeper gets no key).
    fn bound(&self, e: &Expr, depth: usize) -> Option<Bound> {
        if depth > 8 {
            return None;
        }
        match (&e.kind, int_literal(e)) {
            (_, Some(k)) => Some(Bound::Const(k)),
            (ExprKind::Var(n), _) => self.lookup_local(n).map(|l| Bound::Local(l.id)),
            (ExprKind::BinOp { op, lhs, rhs, .. }, _) => {
                let op = match op.as_str() {
                    "+" => '+',
                    "-" => '-',
                    "*" => '*',
                    _ => return None,
                };
                let (a, b) = (self.bound(lhs, depth + 1)?, self.bound(rhs, depth + 1)?);
                Some(Bound::Op(op, Box::new(a), Box::new(b)))
            }
            _ => None,
        }
    }

    pub(super) fn range_size(
        &mut self,
        start: &Expr,
        second: Option<&Expr>,
        end: &Expr,
        kind: RangeEnd,
        elem: &Ty,
        span: Span,
    ) -> Dim {
        let (a, b) = (int_literal(start), int_literal(end));
        let step = second.map(int_literal);
        if step.is_none() {
            let known = match (kind, a, b) {
                (RangeEnd::UpToExclusive, Some(a), Some(b)) => Some((b - a).max(0)),
                (RangeEnd::Inclusive, Some(a), Some(b)) => Some((b - a + 1).max(0)),
                (RangeEnd::DownToExclusive, Some(a), Some(b)) => Some((a - b).max(0)),
                _ => None,
            };
            if let Some(k) = known.and_then(|k| i64::try_from(k).ok()) {
                return Dim::Const(k);
            }
        }
        // The forms Futhark's checker gives the size `n` (when `n` is an `i64`; the solver
        // decides): `0..<n`, `0..1..<n` and `1..2...n`.
        let sized_by_end = matches!(
            (kind, a, step),
            (RangeEnd::UpToExclusive, Some(0), None | Some(Some(1)))
                | (RangeEnd::Inclusive, Some(1), Some(Some(2)))
        );
        if let (true, ExprKind::Var(n)) = (sized_by_end, &end.kind) {
            if self.lookup_local(n).is_some() {
                let d = self.store.fresh_dim();
                self.push(
                    Kind::RangeSize { elem: elem.clone(), name: n.clone(), dim: d.clone() },
                    span,
                    Reason::None,
                );
                return d;
            }
        }
        self.store.existential("the size of this range", span)
    }

    pub(super) fn loop_expr(
        &mut self,
        span: Span,
        pat: &Pat,
        init: Option<&Expr>,
        form: &LoopForm,
        body: &Expr,
    ) -> Ty {
        let ti = match init {
            Some(x) => self.expr(x),
            None => self.pat_from_scope(pat),
        };
        // The loop's bound or array is evaluated before the loop, outside its scope.
        let form_ty = match form {
            LoopForm::For { bound, .. } => {
                let t = self.expr(bound);
                self.push(
                    Kind::Prim { ty: t.clone(), set: PrimSet::ints() },
                    bound.span,
                    Reason::LoopBound,
                );
                Some(t)
            }
            LoopForm::ForIn(_, xs) => {
                let t = self.expr(xs);
                let elem = self.fresh(xs.span);
                let d = self.store.fresh_dim();
                self.eq(Ty::array(d, elem.clone()), t, xs.span, Reason::None);
                Some(elem)
            }
            LoopForm::While(_) => None,
        };
        let mark = self.locals.len();
        let mut bound = Vec::new();
        let tp = self.pat(pat, AnySize::Infer, &mut bound);
        self.push(
            Kind::LoopParam { param: tp.clone(), init: ti.clone() },
            pat.span,
            Reason::LoopInit(pat.span),
        );
        let mut names: Vec<Name> = bound.iter().map(|(n, _, _)| n.clone()).collect();
        self.bind(bound);
        match (form, form_ty) {
            (LoopForm::For { var, .. }, Some(t)) => {
                names.push(var.clone());
                self.push_local(Local { id: 0, name: var.clone(), ty: t, kind: LocalKind::Value });
            }
            (LoopForm::ForIn(p, _), Some(elem)) => {
                let mut b = Vec::new();
                let t = self.pat(p, AnySize::Infer, &mut b);
                self.eq(t, elem, p.span, Reason::Pattern);
                names.extend(b.iter().map(|(n, _, _)| n.clone()));
                self.bind(b);
            }
            (LoopForm::While(c), _) => {
                let t = self.expr(c);
                self.eq(Ty::bool(), t, c.span, Reason::WhileCond);
            }
            _ => {}
        }
        let tb = self.expr(body);
        self.push(
            Kind::LoopResult { param: tp.clone(), init: ti, body: tb },
            body.span,
            Reason::LoopBody(pat.span),
        );
        self.locals.truncate(mark);
        self.escape(tp, names, span)
    }

    /// `loop (x, y) for ...` without an initial value: the pattern's variables from the scope.
    pub(super) fn pat_from_scope(&mut self, p: &Pat) -> Ty {
        match &p.kind {
            PatKind::Var(n) => match self.lookup_local(n) {
                Some(l) => l.ty.clone(),
                None => {
                    self.unknown_var(n, p.span);
                    Ty::Err
                }
            },
            PatKind::Tuple(ps) => Ty::Tuple(ps.iter().map(|q| self.pat_from_scope(q)).collect()),
            PatKind::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, q)| (n.clone(), self.pat_from_scope(q))).collect())
            }
            PatKind::Ascribed(q, _) => self.pat_from_scope(q),
            _ => self.fresh(p.span),
        }
    }
}
