//! The contract between the checker and lowering, checked on every program the tests check:
//! every node typed, no unification variables or unknown sizes left, type variables only those of
//! the enclosing definition's scheme, size names in scope.

use crate::syntax::ast::{
    Dec, DimIndex, Expr, ExprKind, LoopForm, Name, Pat, PatKind, RecordField, TypeParam, ValDec,
};
use crate::types::{is_invented, CheckedProgram, Size, Type};

pub(crate) fn validate(cp: &CheckedProgram) {
    assert_eq!(cp.schemes.len(), cp.program.decs.len());
    for (i, d) in cp.program.decs.iter().enumerate() {
        let Dec::Val(v) = d else {
            assert!(cp.schemes[i].is_none());
            continue;
        };
        let s = cp.schemes[i].as_ref().unwrap_or_else(|| panic!("no scheme for `{}`", v.name));
        let mut v_ok =
            Validator { cp, nvars: s.type_params.len() as u32, def: v, scope: Vec::new() };
        for p in &s.size_params {
            v_ok.scope.push(p.clone());
        }
        for tp in &v.type_params {
            if let TypeParam::Size { name, .. } = tp {
                v_ok.scope.push(name.clone());
            }
        }
        v_ok.ty(&s.ty, "the scheme");
        for p in &v.params {
            v_ok.pat(p);
        }
        v_ok.expr(&v.body);
    }
}

struct Validator<'a> {
    cp: &'a CheckedProgram,
    nvars: u32,
    def: &'a ValDec,
    scope: Vec<Name>,
}

impl Validator<'_> {
    fn ty(&self, t: &Type, at: &str) {
        let mut bound: Vec<Name> = Vec::new();
        self.ty_in(t, at, &mut bound);
    }

    fn ty_in(&self, t: &Type, at: &str, bound: &mut Vec<Name>) {
        match t {
            Type::Prim(_) => {}
            Type::Var(v) => assert!(
                v.0 < self.nvars,
                "`{}`: unquantified type variable in {at}: {t}",
                self.def.name
            ),
            Type::Array { shape, elem, .. } => {
                assert!(!shape.is_empty());
                assert!(!matches!(**elem, Type::Array { .. }), "nested array type in {at}");
                for s in shape {
                    let mut unknown = false;
                    crate::types::poly::for_each_atom(s, &mut |a| {
                        unknown |= matches!(a, Size::Unknown(_))
                    });
                    assert!(!unknown, "`{}`: unknown size in {at}: {t}", self.def.name);
                    for n in s.names() {
                        assert!(
                            is_invented(n) || self.scope.contains(n) || bound.contains(n),
                            "`{}`: size `{n}` not in scope in {at}: {t}",
                            self.def.name
                        );
                    }
                }
                self.ty_in(elem, at, bound);
            }
            Type::Tuple(ts) => ts.iter().for_each(|t| self.ty_in(t, at, bound)),
            Type::Record(fs) => fs.values().for_each(|t| self.ty_in(t, at, bound)),
            Type::Sum(cs) => cs.values().flatten().for_each(|t| self.ty_in(t, at, bound)),
            Type::Arrow { param, from, to } => {
                self.ty_in(from, at, bound);
                let n = bound.len();
                bound.extend(param.iter().cloned());
                self.ty_in(to, at, bound);
                bound.truncate(n);
            }
        }
    }

    fn pat(&mut self, p: &Pat) {
        let t = self
            .cp
            .pat_types
            .get(&p.id)
            .unwrap_or_else(|| panic!("untyped pattern in `{}`", self.def.name));
        self.ty(t, "a pattern");
        match &p.kind {
            PatKind::Var(n) => self.scope.push(n.clone()),
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter().for_each(|q| self.pat(q)),
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.pat(q)),
            PatKind::Ascribed(q, _) => self.pat(q),
            PatKind::Wildcard | PatKind::Literal(_) => {}
        }
    }

    fn dims(&mut self, ds: &[DimIndex]) {
        for d in ds {
            match d {
                DimIndex::Fix(x) => self.expr(x),
                DimIndex::Slice { start, end, stride } => {
                    [start, end, stride].into_iter().flatten().for_each(|x| self.expr(x))
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        let t =
            self.cp.expr_types.get(&e.id).unwrap_or_else(|| {
                panic!("untyped expression in `{}` at {:?}", self.def.name, e.span)
            });
        self.ty(t, "an expression");
        let mark = self.scope.len();
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
                second.iter().for_each(|x| self.expr(x));
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
            ExprKind::Apply(a, b)
            | ExprKind::BinOp { lhs: a, rhs: b, .. }
            | ExprKind::Assert(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Lambda { params, body, .. } => {
                params.iter().for_each(|p| self.pat(p));
                self.expr(body);
            }
            ExprKind::If(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::Let { sizes, pat, rhs, body } => {
                self.expr(rhs);
                self.scope.extend(sizes.iter().map(|(n, _)| n.clone()));
                self.pat(pat);
                self.expr(body);
            }
            ExprKind::LetFun { type_params, params, rhs, body, .. } => {
                for tp in type_params {
                    if let TypeParam::Size { name, .. } = tp {
                        self.scope.push(name.clone());
                    }
                }
                params.iter().for_each(|p| self.pat(p));
                self.expr(rhs);
                self.scope.truncate(mark);
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
                init.iter().for_each(|x| self.expr(x));
                match form {
                    LoopForm::For { bound, var, .. } => {
                        self.expr(bound);
                        self.scope.push(var.clone());
                    }
                    LoopForm::ForIn(p, xs) => {
                        self.expr(xs);
                        self.pat(p);
                    }
                    LoopForm::While(_) => {}
                }
                self.pat(pat);
                if let LoopForm::While(c) = form {
                    self.expr(c);
                }
                self.expr(body);
            }
            ExprKind::Match(x, cases) => {
                self.expr(x);
                for (p, b) in cases {
                    let m = self.scope.len();
                    self.pat(p);
                    self.expr(b);
                    self.scope.truncate(m);
                }
            }
        }
        self.scope.truncate(mark);
    }
}
