//! Applications, operators and sections.

use crate::diag::Span;
use crate::syntax::ast::{Expr, ExprKind, Literal, Name, NodeId, SizeOp};

use super::super::constraint::{ApplyInfo, ArgSize, Kind, Reason};
use super::super::ity::{Dim, PrimSet, Ty};
use super::super::poly::arith;
use super::{is_operator, var_name, Gen, ARITH, BITWISE, ORDER};

/// Beyond this many nested operators an argument's size is an existential: the normal form of a
/// product of sums grows exponentially with their number.
const MAX_SIZE_DEPTH: usize = 8;

impl Gen<'_> {
    pub(super) fn arg_size(&self, a: &Expr) -> ArgSize {
        match self.size_of(a, 0) {
            Some(Dim::Name(n)) => ArgSize::Var(n),
            Some(Dim::Const(k)) => ArgSize::Const(k),
            Some(d) => ArgSize::Expr(d),
            None => ArgSize::Other,
        }
    }

    /// The size an `i64` argument stands for when it is built from variables in scope and
    /// integer literals with `+ - * / %` (`iota (n+1)` has the size `n+1`, as in Futhark).
    pub(super) fn size_of(&self, a: &Expr, depth: usize) -> Option<Dim> {
        match &a.kind {
            ExprKind::Var(n) if self.lookup_local(n).is_some() => Some(Dim::Name(n.clone())),
            ExprKind::Literal(Literal::Int(v, None | Some(crate::prim::IntType::I64))) => {
                i64::try_from(*v).ok().map(Dim::Const)
            }
            ExprKind::BinOp { op, lhs, rhs, .. } if depth < MAX_SIZE_DEPTH => {
                let op = match op.as_str() {
                    "+" => SizeOp::Add,
                    "-" => SizeOp::Sub,
                    "*" => SizeOp::Mul,
                    "/" => SizeOp::Div,
                    "%" => SizeOp::Mod,
                    _ => return None,
                };
                let a = self.size_of(lhs, depth + 1)?;
                let b = self.size_of(rhs, depth + 1)?;
                Some(arith(op, &a, &b))
            }
            ExprKind::Neg(e) if depth < MAX_SIZE_DEPTH => {
                Some(arith(SizeOp::Sub, &Dim::Const(0), &self.size_of(e, depth + 1)?))
            }
            _ => None,
        }
    }

    pub(super) fn apply_info(
        &self,
        callee: Option<Name>,
        index: usize,
        fun_span: Span,
        a: &Expr,
        node: NodeId,
    ) -> ApplyInfo {
        ApplyInfo {
            callee: callee.clone(),
            index,
            fun_span,
            arg_span: a.span,
            arg_name: match &a.kind {
                ExprKind::Var(n) => Some(n.clone()),
                _ => None,
            },
            arg_size: self.arg_size(a),
            fresh: callee.as_deref() == Some("copy")
                && self.lookup_local("copy").is_none()
                && self.globals.is_intrinsic("copy"),
            node,
        }
    }

    /// `f a1 .. an`, typed one argument at a time.
    pub(super) fn apply_spine(&mut self, e: &Expr) -> Ty {
        let mut args = Vec::new();
        let mut cur = e;
        while let ExprKind::Apply(f, a) = &cur.kind {
            args.push((a.as_ref(), cur));
            cur = f;
        }
        args.reverse();
        let callee = match &cur.kind {
            ExprKind::Var(n) => Some(n.clone()),
            _ => None,
        };
        let mut ft = self.expr(cur);
        for (i, (a, node)) in args.into_iter().enumerate() {
            let at = self.expr(a);
            let result = self.fresh(node.span);
            let info = self.apply_info(callee.clone(), i, cur.span, a, node.id);
            self.push(
                Kind::Apply { fun: ft, arg: at, result: result.clone(), info },
                a.span,
                Reason::None,
            );
            self.expr_ty.insert(node.id, result.clone());
            ft = result;
        }
        ft
    }

    pub(super) fn binop(
        &mut self,
        e: &Expr,
        op: &str,
        op_span: Span,
        lhs: &Expr,
        rhs: &Expr,
    ) -> Ty {
        let apply =
            |g: &mut Self, fun: Ty, fun_span: Span, callee: Option<Name>, args: &[&Expr]| {
                let mut ft = fun;
                for (i, a) in args.iter().enumerate() {
                    let at = g.expr(a);
                    let result = g.fresh(e.span);
                    let info = g.apply_info(callee.clone(), i, fun_span, a, e.id);
                    g.push(
                        Kind::Apply { fun: ft, arg: at, result: result.clone(), info },
                        a.span,
                        Reason::None,
                    );
                    ft = result;
                }
                ft
            };
        match op {
            "|>" => {
                // Evaluate the argument first, as written.
                let at = self.expr(lhs);
                let ft = self.expr(rhs);
                let callee = var_name(rhs);
                let result = self.fresh(e.span);
                let info = self.apply_info(callee, 0, rhs.span, lhs, e.id);
                self.push(
                    Kind::Apply { fun: ft, arg: at, result: result.clone(), info },
                    lhs.span,
                    Reason::None,
                );
                result
            }
            "<|" => {
                let ft = self.expr(lhs);
                apply(self, ft, lhs.span, var_name(lhs), &[rhs])
            }
            _ if !is_operator(op) => {
                // A backticked function: x `f` y is f x y.
                let ft = self.var(op, op_span);
                apply(self, ft, op_span, Some(op.to_string()), &[lhs, rhs])
            }
            _ => {
                let lt = self.expr(lhs);
                let rt = self.expr(rhs);
                let operand = Reason::Operand { op: op.to_string(), other: lhs.span };
                let opr = Reason::Operator { op: op.to_string() };
                let prim = |g: &mut Self, set: PrimSet| {
                    g.push(Kind::Prim { ty: lt.clone(), set }, lhs.span, opr.clone());
                    g.eq(lt.clone(), rt.clone(), rhs.span, operand.clone());
                };
                if ARITH.contains(&op) {
                    prim(self, PrimSet::numeric());
                    lt
                } else if BITWISE.contains(&op) {
                    prim(self, PrimSet::ints());
                    lt
                } else if ORDER.contains(&op) {
                    prim(self, PrimSet::ordered());
                    Ty::bool()
                } else if op == "==" || op == "!=" {
                    self.eq(lt.clone(), rt, rhs.span, operand);
                    self.push(
                        Kind::NoFun { ty: lt, what: "functions cannot be compared" },
                        lhs.span,
                        Reason::None,
                    );
                    Ty::bool()
                } else if op == "&&" || op == "||" {
                    self.eq(Ty::bool(), lt, lhs.span, opr.clone());
                    self.eq(Ty::bool(), rt, rhs.span, opr);
                    Ty::bool()
                } else if op == "++" {
                    let elem = self.fresh(e.span);
                    let (n, m) = (self.store.fresh_dim(), self.store.fresh_dim());
                    let a = Ty::array(n.clone(), elem.clone());
                    let b = Ty::array(m.clone(), elem.clone());
                    self.eq(a, lt, lhs.span, opr);
                    self.eq(b, rt, rhs.span, operand);
                    let k = arith(SizeOp::Add, &n, &m);
                    Ty::Array { dim: k, elem: Box::new(elem), unique: true }
                } else {
                    // `>->` and `<-<`: function composition.
                    let (a, b, c) = (self.fresh(e.span), self.fresh(e.span), self.fresh(e.span));
                    let (first, second) = if op == ">->" { (lhs, rhs) } else { (rhs, lhs) };
                    let (tf, tg) = if op == ">->" { (lt, rt) } else { (rt, lt) };
                    self.eq(Ty::arrow(a.clone(), b.clone()), tf, first.span, opr.clone());
                    self.eq(Ty::arrow(b, c.clone()), tg, second.span, opr);
                    Ty::arrow(a, c)
                }
            }
        }
    }

    /// The operand and result types of an operator used as a function (sections).
    pub(super) fn op_sig(&mut self, op: &str, span: Span) -> (Ty, Ty, Ty) {
        let reason = Reason::Operator { op: op.to_string() };
        let prim = |g: &mut Self, set: PrimSet| {
            let t = g.fresh(span);
            g.push(Kind::Prim { ty: t.clone(), set }, span, reason.clone());
            t
        };
        if ARITH.contains(&op) {
            let t = prim(self, PrimSet::numeric());
            (t.clone(), t.clone(), t)
        } else if BITWISE.contains(&op) {
            let t = prim(self, PrimSet::ints());
            (t.clone(), t.clone(), t)
        } else if ORDER.contains(&op) {
            let t = prim(self, PrimSet::ordered());
            (t.clone(), t, Ty::bool())
        } else if op == "==" || op == "!=" {
            let t = self.fresh(span);
            self.push(
                Kind::NoFun { ty: t.clone(), what: "functions cannot be compared" },
                span,
                Reason::None,
            );
            (t.clone(), t, Ty::bool())
        } else if op == "&&" || op == "||" {
            (Ty::bool(), Ty::bool(), Ty::bool())
        } else if op == "++" {
            let elem = self.fresh(span);
            let a = Ty::array(self.store.fresh_dim(), elem.clone());
            let b = Ty::array(self.store.fresh_dim(), elem.clone());
            let k = self.store.per_app_existential("the size of a concatenation", span);
            (a, b, Ty::Array { dim: k, elem: Box::new(elem), unique: true })
        } else if op == "|>" || op == "<|" {
            let (a, b) = (self.fresh(span), self.fresh(span));
            let f = Ty::arrow(a.clone(), b.clone());
            if op == "|>" {
                (a, f, b)
            } else {
                (f, a, b)
            }
        } else if op == ">->" || op == "<-<" {
            let (a, b, c) = (self.fresh(span), self.fresh(span), self.fresh(span));
            let f = Ty::arrow(a.clone(), b.clone());
            let g = Ty::arrow(b, c.clone());
            if op == ">->" {
                (f, g, Ty::arrow(a, c))
            } else {
                (g, f, Ty::arrow(a, c))
            }
        } else {
            // A backticked function in a section.
            let ft = self.var(op, span);
            let (a, b, c) = (self.fresh(span), self.fresh(span), self.fresh(span));
            self.eq(Ty::arrow(a.clone(), Ty::arrow(b.clone(), c.clone())), ft, span, Reason::None);
            (a, b, c)
        }
    }
}
