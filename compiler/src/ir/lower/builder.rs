//! Emitting core IR: fresh variables with display names, a stack of open bodies, and small helpers
//! that fold constant `i64` arithmetic (so statically known sizes stay constants).

use crate::diag::Span;
use crate::ir::*;
use crate::prim::{IntType, PrimType, PrimValue};

/// Builds statements into a stack of open bodies.
#[derive(Debug, Default)]
pub struct Builder {
    /// Display name of each variable (becomes `Program::names`).
    pub names: Vec<String>,
    open: Vec<Vec<Stm>>,
    /// The span given to emitted statements.
    pub span: Span,
}

pub fn i64c(v: i64) -> Atom {
    Atom::Const(PrimValue::I64(v))
}

pub fn boolc(b: bool) -> Atom {
    Atom::Const(PrimValue::Bool(b))
}

pub fn i64t() -> Type {
    Type::Prim(PrimType::I64)
}

/// `elem` with `shape` in front (a scalar type when `shape` is empty).
pub fn array_ty(elem: PrimType, shape: Vec<Dim>) -> Type {
    if shape.is_empty() {
        Type::Prim(elem)
    } else {
        Type::Array { elem, shape }
    }
}

pub fn shape(t: &Type) -> &[Dim] {
    match t {
        Type::Prim(_) => &[],
        Type::Array { shape, .. } => shape,
    }
}

/// The type of one row of an array type.
pub fn row_ty(t: &Type) -> Type {
    array_ty(t.elem(), shape(t).get(1..).unwrap_or(&[]).to_vec())
}

/// `t` with an outer dimension `d` added.
pub fn outer_ty(d: Dim, t: &Type) -> Type {
    let mut s = vec![d];
    s.extend_from_slice(shape(t));
    array_ty(t.elem(), s)
}

pub fn dim_atom(d: Dim) -> Atom {
    match d {
        Dim::Const(c) => i64c(c),
        Dim::Var(v) => Atom::Var(v),
    }
}

/// The dim an `i64` atom denotes (`None` for a constant of another type).
pub fn atom_dim(a: Atom) -> Option<Dim> {
    match a {
        Atom::Var(v) => Some(Dim::Var(v)),
        Atom::Const(PrimValue::I64(c)) => Some(Dim::Const(c)),
        Atom::Const(_) => None,
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder { names: Vec::new(), open: vec![Vec::new()], span: Span::DUMMY }
    }

    pub fn fresh(&mut self, name: &str) -> Var {
        let v = Var(self.names.len() as u32);
        self.names.push(name.to_string());
        v
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Param {
        Param { var: self.fresh(name), ty }
    }

    /// Append a statement to the innermost open body.
    pub fn push(&mut self, pat: Vec<Param>, exp: Exp) {
        let stm = Stm { pat, exp, span: self.span };
        match self.open.last_mut() {
            Some(b) => b.push(stm),
            None => self.open.push(vec![stm]),
        }
    }

    /// `let name: ty = exp`, returning the variable.
    pub fn let1(&mut self, name: &str, ty: Type, exp: Exp) -> Var {
        let p = self.param(name, ty);
        let v = p.var;
        self.push(vec![p], exp);
        v
    }

    /// Start a nested body.
    pub fn open(&mut self) {
        self.open.push(Vec::new());
    }

    /// Finish the innermost body with its result.
    pub fn close(&mut self, result: Vec<Atom>) -> Body {
        let stms = if self.open.len() > 1 {
            self.open.pop().unwrap_or_default()
        } else {
            std::mem::take(&mut self.open[0])
        };
        Body { stms, result }
    }

    /// How many bodies are open (1 at the top).
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The statements of the innermost open body so far.
    pub fn current(&self) -> &[Stm] {
        self.open.last().map_or(&[], |b| b.as_slice())
    }

    pub fn current_mut(&mut self) -> &mut Vec<Stm> {
        if self.open.is_empty() {
            self.open.push(Vec::new());
        }
        let n = self.open.len();
        &mut self.open[n - 1]
    }

    // --- scalar helpers ------------------------------------------------------------------------

    pub fn binop(&mut self, op: BinOp, t: PrimType, a: Atom, b: Atom) -> Atom {
        if let (
            PrimType::Int(IntType::I64),
            Atom::Const(PrimValue::I64(x)),
            Atom::Const(PrimValue::I64(y)),
        ) = (t, a, b)
        {
            let folded = match op {
                BinOp::Add => Some(x.wrapping_add(y)),
                BinOp::Sub => Some(x.wrapping_sub(y)),
                BinOp::Mul => Some(x.wrapping_mul(y)),
                BinOp::Max => Some(x.max(y)),
                BinOp::Min => Some(x.min(y)),
                _ => None,
            };
            if let Some(v) = folded {
                return i64c(v);
            }
        }
        let name = match op {
            BinOp::Add => "sum",
            BinOp::Sub => "diff",
            BinOp::Mul => "prod",
            _ => "t",
        };
        Atom::Var(self.let1(name, Type::Prim(t), Exp::BinOp(op, t, a, b)))
    }

    pub fn cmp(&mut self, op: CmpOp, t: PrimType, a: Atom, b: Atom) -> Atom {
        if let (Atom::Const(PrimValue::I64(x)), Atom::Const(PrimValue::I64(y))) = (a, b) {
            let r = match op {
                CmpOp::Eq => x == y,
                CmpOp::Neq => x != y,
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
            };
            return boolc(r);
        }
        Atom::Var(self.let1("c", Type::Prim(PrimType::Bool), Exp::Cmp(op, t, a, b)))
    }

    pub fn unop(&mut self, op: UnOp, t: PrimType, a: Atom) -> Atom {
        Atom::Var(self.let1("t", Type::Prim(t), Exp::UnOp(op, t, a)))
    }

    pub fn convert(&mut self, from: PrimType, to: PrimType, a: Atom) -> Atom {
        if from == to {
            return a;
        }
        if let (Atom::Const(c), PrimType::Int(IntType::I64)) = (a, to) {
            if let Some(v) = c.as_i128() {
                return i64c(v as i64);
            }
        }
        Atom::Var(self.let1("t", Type::Prim(to), Exp::Convert { from, to, arg: a }))
    }

    /// `a && b` on already computed booleans.
    pub fn and(&mut self, a: Atom, b: Atom) -> Atom {
        match (a, b) {
            (Atom::Const(PrimValue::Bool(true)), x) | (x, Atom::Const(PrimValue::Bool(true))) => x,
            _ => self.binop(BinOp::LogAnd, PrimType::Bool, a, b),
        }
    }

    /// A run-time check: fails with `msg` (holes `{}` filled from `vals`) unless `cond`.
    pub fn assert(&mut self, cond: Atom, msg: String, vals: Vec<Atom>) {
        if cond == boolc(true) {
            return;
        }
        self.push(Vec::new(), Exp::Assert { cond, msg, vals });
    }

    /// Make sure an atom is a variable (binding constants), for operands that must be `Var`s.
    pub fn var_of(&mut self, a: Atom, ty: &Type, name: &str) -> Var {
        match a {
            Atom::Var(v) => v,
            Atom::Const(_) => self.let1(name, ty.clone(), Exp::Atom(a)),
        }
    }

    /// Build a lambda: `params` are created first, `f` emits the body and returns its result.
    pub fn lambda<E>(
        &mut self,
        params: Vec<Param>,
        f: impl FnOnce(&mut Builder, &[Param]) -> Result<(Vec<Atom>, Vec<Type>), E>,
    ) -> Result<Lambda, E> {
        self.open();
        let r = f(self, &params);
        match r {
            Ok((result, ret)) => {
                let body = self.close(result);
                Ok(Lambda { params, body, ret })
            }
            Err(e) => {
                self.close(Vec::new());
                Err(e)
            }
        }
    }
}
