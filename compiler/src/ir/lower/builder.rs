//! Emitting core IR: fresh variables with display names, a stack of open bodies, and small helpers
//! that fold constant `i64` arithmetic (so statically known sizes stay constants).

use crate::diag::Span;
use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

/// Builds statements into a stack of open bodies.
#[derive(Debug, Default)]
pub struct Builder {
    /// Display name of each variable (becomes `Program::names`).
    pub names: Vec<String>,
    /// Whether a variable's name is a generic one that a source name may replace.
    generic: Vec<bool>,
    open: Vec<Vec<Stm>>,
    /// The span given to emitted statements.
    pub span: Span,
}

/// Names lowering gives to temporaries; a source name bound to such a variable replaces it.
const GENERIC_NAMES: &[&str] =
    &["t", "sum", "diff", "prod", "c", "r", "res", "tmp", "elem", "p", "d", "acc"];

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

/// Constant folding and identities for integer arithmetic and `bool` logic.
fn fold_binop(op: BinOp, t: PrimType, a: Atom, b: Atom) -> Option<Atom> {
    let ci = |x: Atom| match x {
        Atom::Const(c) => c.as_i128(),
        _ => None,
    };
    let cb = |x: Atom| match x {
        Atom::Const(PrimValue::Bool(v)) => Some(v),
        _ => None,
    };
    match t {
        PrimType::Int(it) => {
            let k = |v: i128| Atom::Const(PrimValue::int(it, v));
            if let (Some(x), Some(y)) = (ci(a), ci(b)) {
                // Exact in i128, then wrapped to the type, as the interpreter computes it.
                let v = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Quot if y != 0 => x / y,
                    BinOp::Rem if y != 0 => x % y,
                    BinOp::Div if y != 0 => {
                        x.div_euclid(y) - i128::from(y < 0 && x.rem_euclid(y) != 0)
                    }
                    BinOp::Min => x.min(y),
                    BinOp::Max => x.max(y),
                    _ => return None,
                };
                return Some(k(v));
            }
            match (op, ci(a), ci(b)) {
                (BinOp::Add, Some(0), _) | (BinOp::Mul, Some(1), _) => Some(b),
                (BinOp::Add | BinOp::Sub, _, Some(0))
                | (BinOp::Mul | BinOp::Quot | BinOp::Div, _, Some(1)) => Some(a),
                (BinOp::Mul, Some(0), _) | (BinOp::Mul, _, Some(0)) => Some(k(0)),
                (BinOp::Sub, _, _) if a == b => Some(k(0)),
                _ => None,
            }
        }
        PrimType::Bool => match (op, cb(a), cb(b)) {
            (BinOp::LogAnd, Some(x), Some(y)) => Some(boolc(x && y)),
            (BinOp::LogOr, Some(x), Some(y)) => Some(boolc(x || y)),
            (BinOp::LogAnd, Some(true), _) | (BinOp::LogOr, Some(false), _) => Some(b),
            (BinOp::LogAnd, _, Some(true)) | (BinOp::LogOr, _, Some(false)) => Some(a),
            (BinOp::LogAnd, Some(false), _) | (BinOp::LogAnd, _, Some(false)) => Some(boolc(false)),
            (BinOp::LogOr, Some(true), _) | (BinOp::LogOr, _, Some(true)) => Some(boolc(true)),
            _ => None,
        },
        _ => None,
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
        Builder {
            names: Vec::new(),
            generic: Vec::new(),
            open: vec![Vec::new()],
            span: Span::DUMMY,
        }
    }

    pub fn fresh(&mut self, name: &str) -> Var {
        let v = Var(self.names.len() as u32);
        self.names.push(name.to_string());
        self.generic.push(GENERIC_NAMES.contains(&name));
        v
    }

    /// Give a variable with a generic name (`t`, `sum`, ...) a source name instead.
    pub fn rename_generic(&mut self, v: Var, name: &str) {
        let i = v.0 as usize;
        if self.generic.get(i) == Some(&true) {
            self.names[i] = name.to_string();
            self.generic[i] = false;
        }
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
            self.open.first_mut().map(std::mem::take).unwrap_or_default()
        };
        Body { stms, result }
    }

    /// Drop bodies opened after `depth` was observed (after an error).
    pub fn truncate(&mut self, depth: usize) {
        self.open.truncate(depth.max(1));
    }

    /// Forget every open body (after an error in one top-level definition).
    pub fn reset(&mut self) {
        self.open = vec![Vec::new()];
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
    //
    // These fold constants and a few identities on `i64` and `bool`, so sizes that are known
    // statically stay constants in types (`[3]f32`, not `[n_7]f32`).

    pub fn binop(&mut self, op: BinOp, t: PrimType, a: Atom, b: Atom) -> Atom {
        if let Some(r) = fold_binop(op, t, a, b) {
            return r;
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
        if t == PrimType::Bool && op == CmpOp::Eq {
            match (a, b) {
                (x, Atom::Const(PrimValue::Bool(true)))
                | (Atom::Const(PrimValue::Bool(true)), x) => return x,
                _ => {}
            }
        }
        let ints = match (a, b) {
            (Atom::Const(x), Atom::Const(y)) if matches!(t, PrimType::Int(_) | PrimType::Bool) => {
                match (x.as_i128(), y.as_i128(), x.as_bool(), y.as_bool()) {
                    (Some(x), Some(y), _, _) => Some((x, y)),
                    (_, _, Some(x), Some(y)) => Some((x as i128, y as i128)),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((x, y)) = ints {
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
        if a == b && matches!(t, PrimType::Int(_) | PrimType::Bool) {
            match op {
                CmpOp::Eq | CmpOp::Le | CmpOp::Ge => return boolc(true),
                CmpOp::Neq | CmpOp::Lt | CmpOp::Gt => return boolc(false),
            }
        }
        Atom::Var(self.let1("c", Type::Prim(PrimType::Bool), Exp::Cmp(op, t, a, b)))
    }

    pub fn unop(&mut self, op: UnOp, t: PrimType, a: Atom) -> Atom {
        if let Atom::Const(c) = a {
            let folded = match (op, t, c.as_i128(), c.as_f64(), c.as_bool()) {
                (UnOp::Neg, PrimType::Int(it), Some(v), _, _) => Some(PrimValue::int(it, -v)),
                (UnOp::Neg, PrimType::Float(ft), _, Some(v), _) => Some(PrimValue::float(ft, -v)),
                (UnOp::Not, PrimType::Bool, _, _, Some(b)) => Some(PrimValue::Bool(!b)),
                (UnOp::Sgn, PrimType::Int(it), Some(v), _, _) => {
                    Some(PrimValue::int(it, v.signum()))
                }
                (UnOp::Abs, PrimType::Int(it), Some(v), _, _) => Some(PrimValue::int(it, v.abs())),
                _ => None,
            };
            if let Some(v) = folded {
                return Atom::Const(v);
            }
        }
        Atom::Var(self.let1("t", Type::Prim(t), Exp::UnOp(op, t, a)))
    }

    pub fn convert(&mut self, from: PrimType, to: PrimType, a: Atom) -> Atom {
        if from == to {
            return a;
        }
        if let Atom::Const(c) = a {
            let folded = match (to, c.as_i128(), c.as_f64()) {
                (PrimType::Int(it), Some(v), _) => Some(PrimValue::int(it, v)),
                (PrimType::Float(ft), Some(v), _) => Some(PrimValue::float(ft, v as f64)),
                (PrimType::Float(ft), _, Some(v)) => Some(PrimValue::float(ft, v)),
                _ => None,
            };
            if let Some(v) = folded {
                return Atom::Const(v);
            }
        }
        Atom::Var(self.let1("t", Type::Prim(to), Exp::Convert { from, to, arg: a }))
    }

    /// `if c then a else b` on scalars.
    /// `f(args)` on arguments of type `t`.
    pub fn math(&mut self, f: MathFn, t: PrimType, args: Vec<Atom>) -> Atom {
        Atom::Var(self.let1("t", Type::Prim(f.result(t)), Exp::Math(f, t, args)))
    }

    pub fn select(&mut self, c: Atom, a: Atom, b: Atom, t: PrimType) -> Atom {
        match c {
            Atom::Const(PrimValue::Bool(true)) => a,
            Atom::Const(PrimValue::Bool(false)) => b,
            _ if a == b => a,
            _ => Atom::Var(self.let1("t", Type::Prim(t), Exp::Select(c, a, b))),
        }
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
