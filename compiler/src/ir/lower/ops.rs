//! Scalar operators and the numeric modules' members (`f32.sqrt`, `i64.sum`, `f32.i64`, ...).

use std::rc::Rc;

use super::builder::shape;
use super::builder::{atom_dim, boolc, dim_atom, i64c};
use super::sval::SFun;
use super::sval::SVal;
use super::{internal, unsupported, LResult, Lowerer};
use crate::diag::Span;
use crate::intrinsics::split_numeric;
use crate::ir::{Atom, BinOp, CmpOp, Exp, Lambda, MathFn, Type, UnOp, Var};
use crate::prim::{FloatType, IntType, PrimType, PrimValue};

fn unsigned_of(it: IntType) -> IntType {
    match it.bits() {
        8 => IntType::U8,
        16 => IntType::U16,
        32 => IntType::U32,
        _ => IntType::U64,
    }
}

/// The largest and smallest values of a type (infinities for floats, as in Futhark).
fn extreme(t: PrimType, highest: bool) -> Option<PrimValue> {
    Some(match t {
        PrimType::Bool => PrimValue::Bool(highest),
        PrimType::Int(it) => {
            let bits = it.bits();
            let v: i128 = match (it.signed(), highest) {
                (true, true) => (1i128 << (bits - 1)) - 1,
                (true, false) => -(1i128 << (bits - 1)),
                (false, true) => (1i128 << bits) - 1,
                (false, false) => 0,
            };
            PrimValue::int(it, v)
        }
        PrimType::Float(ft) => {
            PrimValue::float(ft, if highest { f64::INFINITY } else { f64::NEG_INFINITY })
        }
    })
}

fn float_const(ft: FloatType, name: &str) -> Option<PrimValue> {
    let v = match name {
        "pi" => std::f64::consts::PI,
        "e" => std::f64::consts::E,
        "inf" => f64::INFINITY,
        "nan" => f64::NAN,
        "epsilon" => match ft {
            FloatType::F16 => 0.000_976_562_5,
            FloatType::F32 => f32::EPSILON as f64,
            FloatType::F64 => f64::EPSILON,
        },
        _ => return None,
    };
    Some(PrimValue::float(ft, v))
}

fn math_fn(name: &str) -> Option<MathFn> {
    Some(match name {
        "sqrt" => MathFn::Sqrt,
        "cbrt" => MathFn::Cbrt,
        "exp" => MathFn::Exp,
        "log" => MathFn::Log,
        "log2" => MathFn::Log2,
        "log10" => MathFn::Log10,
        "log1p" => MathFn::Log1p,
        "sin" => MathFn::Sin,
        "cos" => MathFn::Cos,
        "tan" => MathFn::Tan,
        "asin" => MathFn::Asin,
        "acos" => MathFn::Acos,
        "atan" => MathFn::Atan,
        "sinh" => MathFn::Sinh,
        "cosh" => MathFn::Cosh,
        "tanh" => MathFn::Tanh,
        "asinh" => MathFn::Asinh,
        "acosh" => MathFn::Acosh,
        "atanh" => MathFn::Atanh,
        "atan2" => MathFn::Atan2,
        "hypot" => MathFn::Hypot,
        "floor" => MathFn::Floor,
        "ceil" => MathFn::Ceil,
        "round" => MathFn::Round,
        "trunc" => MathFn::Trunc,
        "isnan" => MathFn::IsNan,
        "isinf" => MathFn::IsInf,
        "copysign" => MathFn::CopySign,
        "fma" => MathFn::Fma,
        "to_bits" => MathFn::ToBits,
        "from_bits" => MathFn::FromBits,
        "popc" => MathFn::Popc,
        "clz" => MathFn::Clz,
        "ctz" => MathFn::Ctz,
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    /// A built-in binary operator on two scalars of type `t`; returns the result and its type.
    pub(crate) fn prim_binop(
        &mut self,
        op: &str,
        t: PrimType,
        x: Atom,
        y: Atom,
        span: Span,
    ) -> LResult<(Atom, PrimType)> {
        let arith = |op| Some(op);
        let bop = match op {
            "+" => arith(BinOp::Add),
            "-" => arith(BinOp::Sub),
            "*" => arith(BinOp::Mul),
            "/" => arith(BinOp::Div),
            "%" => arith(BinOp::Mod),
            "//" => arith(BinOp::Quot),
            "%%" => arith(BinOp::Rem),
            "**" => arith(BinOp::Pow),
            "&" => arith(BinOp::And),
            "|" => arith(BinOp::Or),
            "^" => arith(BinOp::Xor),
            "<<" => arith(BinOp::Shl),
            ">>" => arith(BinOp::Shr),
            "&&" => arith(BinOp::LogAnd),
            "||" => arith(BinOp::LogOr),
            _ => None,
        };
        if let Some(b) = bop {
            return Ok((self.b.binop(b, t, x, y), t));
        }
        let cmp = match op {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Neq,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            ">>>" => {
                // Logical shift: on the unsigned type of the same width.
                let PrimType::Int(it) = t else {
                    return Err(internal(span, "`>>>` on a non-integer"));
                };
                let u = PrimType::Int(unsigned_of(it));
                let xu = self.b.convert(t, u, x);
                let yu = self.b.convert(t, u, y);
                let r = self.b.binop(BinOp::Shr, u, xu, yu);
                return Ok((self.b.convert(u, t, r), t));
            }
            _ => return Err(internal(span, format!("unknown operator `{op}`"))),
        };
        Ok((self.b.cmp(cmp, t, x, y), PrimType::Bool))
    }

    /// A lambda for a binary operator on scalars of type `t`.
    pub(crate) fn op_lambda(&mut self, op: BinOp, t: PrimType) -> Lambda {
        let p = self.b.param("a", Type::Prim(t));
        let q = self.b.param("b", Type::Prim(t));
        let (pv, qv) = (p.var, q.var);
        self.b.open();
        let r = self.b.let1("t", Type::Prim(t), Exp::BinOp(op, t, Atom::Var(pv), Atom::Var(qv)));
        let body = self.b.close(vec![Atom::Var(r)]);
        Lambda { params: vec![p, q], body, ret: vec![Type::Prim(t)] }
    }

    /// A member of a numeric module.
    pub(crate) fn numeric(
        &mut self,
        name: &str,
        args: Vec<SVal<'a>>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let Some((t, member)) = split_numeric(name) else {
            return Err(unsupported(span, format!("the built-in `{name}`")));
        };
        let scalars: Vec<(Atom, PrimType)> = args
            .iter()
            .map(|a| match a {
                SVal::Leaf(x, Type::Prim(p)) => Ok((*x, *p)),
                _ => Err(()),
            })
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        let leaf = |a: Atom, t: PrimType| Ok(SVal::Leaf(a, Type::Prim(t)));
        let arg = |k: usize| -> LResult<(Atom, PrimType)> {
            scalars.get(k).copied().ok_or_else(|| internal(span, format!("arguments of `{name}`")))
        };
        // Conversions: `t.from`.
        if let Some(from) = PrimType::from_name(member) {
            let (x, xt) = arg(0)?;
            let _ = from;
            return leaf(self.convert_value(xt, t, x), t);
        }
        match member {
            "sum" | "product" | "maximum" | "minimum" => {
                let arr = args.first().ok_or_else(|| internal(span, "reduction argument"))?;
                let SVal::Leaf(Atom::Var(v), at) = arr else {
                    return Err(internal(span, "reduction of a non-array"));
                };
                let w = shape(at)
                    .first()
                    .copied()
                    .ok_or_else(|| internal(span, "reduction of a scalar"))?;
                let (op, ne) = match member {
                    "sum" => (BinOp::Add, PrimValue::zero(t)),
                    "product" => (BinOp::Mul, PrimValue::one(t)),
                    "maximum" => {
                        (BinOp::Max, extreme(t, false).ok_or_else(|| internal(span, "type"))?)
                    }
                    _ => (BinOp::Min, extreme(t, true).ok_or_else(|| internal(span, "type"))?),
                };
                let lam = self.op_lambda(op, t);
                let w = super::builder::dim_atom(w);
                let r = self.b.let1(
                    member,
                    Type::Prim(t),
                    Exp::Reduce {
                        w,
                        lam,
                        neutral: vec![Atom::Const(ne)],
                        arrs: vec![*v],
                        commutative: true,
                    },
                );
                leaf(Atom::Var(r), t)
            }
            "min" | "max" => {
                let ((x, _), (y, _)) = (arg(0)?, arg(1)?);
                let op = if member == "min" { BinOp::Min } else { BinOp::Max };
                leaf(self.b.binop(op, t, x, y), t)
            }
            "pow" => {
                let ((x, _), (y, _)) = (arg(0)?, arg(1)?);
                leaf(self.b.binop(BinOp::Pow, t, x, y), t)
            }
            "abs" => leaf(self.b.unop(UnOp::Abs, t, arg(0)?.0), t),
            "sgn" => leaf(self.b.unop(UnOp::Sgn, t, arg(0)?.0), t),
            "neg" => leaf(self.b.unop(UnOp::Neg, t, arg(0)?.0), t),
            "highest" | "lowest" => {
                let v = extreme(t, member == "highest").ok_or_else(|| internal(span, "type"))?;
                leaf(Atom::Const(v), t)
            }
            "to_i64" => {
                let (x, xt) = arg(0)?;
                leaf(self.convert_value(xt, PrimType::I64, x), PrimType::I64)
            }
            "num_bits" => {
                let bits = match t {
                    PrimType::Int(it) => it.bits(),
                    PrimType::Float(ft) => ft.bits(),
                    PrimType::Bool => 8,
                };
                leaf(Atom::Const(PrimValue::I32(bits as i32)), PrimType::I32)
            }
            "get_bit" | "set_bit" if matches!(t, PrimType::Float(_)) => {
                // On the float's bits (`to_bits`), and back for `set_bit`.
                let bits = self.float_bits(t, arg(1)?.0);
                let ut = bits.1;
                let mut args = args.clone();
                args[1] = SVal::Leaf(bits.0, Type::Prim(ut));
                let r = self.numeric(&format!("{ut}.{member}"), args, span)?;
                if member == "get_bit" {
                    return Ok(r);
                }
                let SVal::Leaf(b, _) = r else { return Err(internal(span, "set_bit")) };
                leaf(self.b.math(MathFn::FromBits, t, vec![b]), t)
            }
            "not" => leaf(self.b.unop(UnOp::Not, t, arg(0)?.0), t),
            "recip" => {
                let one = Atom::Const(PrimValue::one(t));
                leaf(self.b.binop(BinOp::Div, t, one, arg(0)?.0), t)
            }
            "rsqrt" => {
                let one = Atom::Const(PrimValue::one(t));
                let r = self.b.math(MathFn::Sqrt, t, vec![arg(0)?.0]);
                leaf(self.b.binop(BinOp::Div, t, one, r), t)
            }
            "mad" => {
                let ((a, _), (b, _), (c, _)) = (arg(0)?, arg(1)?, arg(2)?);
                let m = self.b.binop(BinOp::Mul, t, a, b);
                leaf(self.b.binop(BinOp::Add, t, m, c), t)
            }
            "erf" | "erfc" if matches!(t, PrimType::Float(_)) => {
                leaf(self.erf(t, arg(0)?.0, member == "erfc"), t)
            }
            "ldexp" if matches!(t, PrimType::Float(_)) => {
                let ((x, _), (n, nt)) = (arg(0)?, arg(1)?);
                let n = self.convert_value(nt, PrimType::I32, n);
                leaf(self.ldexp(t, x, n), t)
            }
            "gamma" | "lgamma" if matches!(t, PrimType::Float(_)) => {
                leaf(self.gamma(t, arg(0)?.0, member == "lgamma"), t)
            }
            "nextafter" if matches!(t, PrimType::Float(_)) => {
                leaf(self.nextafter(t, arg(0)?.0, arg(1)?.0), t)
            }
            "to_f64" => {
                let (x, xt) = arg(0)?;
                leaf(self.convert_value(xt, PrimType::F64, x), PrimType::F64)
            }
            "mul_hi" | "mad_hi" => {
                let PrimType::Int(it) = t else { return Err(internal(span, "mul_hi type")) };
                let ((a, _), (b, _)) = (arg(0)?, arg(1)?);
                let hi = self.mul_hi(it, a, b);
                if member == "mul_hi" {
                    return leaf(hi, t);
                }
                leaf(self.b.binop(BinOp::Add, t, hi, arg(2)?.0), t)
            }
            "get_bit" => {
                // `(x >> bit) & 1`, as an `i32`.
                let ((bit, bt), (x, _)) = (arg(0)?, arg(1)?);
                let b = self.convert_value(bt, t, bit);
                let s = self.b.binop(BinOp::Shr, t, x, b);
                let one = int_const(t, 1).ok_or_else(|| internal(span, "get_bit type"))?;
                let r = self.b.binop(BinOp::And, t, s, one);
                leaf(self.convert_value(t, PrimType::I32, r), PrimType::I32)
            }
            "set_bit" => {
                // `(x & !(1 << bit)) | ((b & 1) << bit)`.
                let ((bit, bt), (x, _), (v, vt)) = (arg(0)?, arg(1)?, arg(2)?);
                let one = int_const(t, 1).ok_or_else(|| internal(span, "set_bit type"))?;
                let b = self.convert_value(bt, t, bit);
                let mask = self.b.binop(BinOp::Shl, t, one, b);
                let notmask = self.b.unop(UnOp::Not, t, mask);
                let cleared = self.b.binop(BinOp::And, t, x, notmask);
                let vv = self.convert_value(vt, t, v);
                let v1 = self.b.binop(BinOp::And, t, vv, one);
                let sh = self.b.binop(BinOp::Shl, t, v1, b);
                leaf(self.b.binop(BinOp::Or, t, cleared, sh), t)
            }
            "lerp" => {
                // `v0 + (v1 - v0) * t`.
                let ((v0, _), (v1, _), (s, _)) = (arg(0)?, arg(1)?, arg(2)?);
                let d = self.b.binop(BinOp::Sub, t, v1, v0);
                let m = self.b.binop(BinOp::Mul, t, d, s);
                leaf(self.b.binop(BinOp::Add, t, v0, m), t)
            }
            "from_fraction" => {
                let ((a, at), (b, bt)) = (arg(0)?, arg(1)?);
                let x = self.convert_value(at, t, a);
                let y = self.convert_value(bt, t, b);
                leaf(self.b.binop(BinOp::Div, t, x, y), t)
            }
            _ => {
                if let PrimType::Float(ft) = t {
                    if let Some(v) = float_const(ft, member) {
                        return leaf(Atom::Const(v), t);
                    }
                }
                let Some(f) = math_fn(member) else {
                    return Err(unsupported(span, format!("the built-in `{name}`")));
                };
                let atoms: Vec<Atom> = scalars.iter().map(|(a, _)| *a).collect();
                leaf(self.b.math(f, t, atoms), f.result(t))
            }
        }
    }

    /// Futhark's conversion between primitive types (`bool` to and from numbers included).
    pub(crate) fn convert_value(&mut self, from: PrimType, to: PrimType, x: Atom) -> Atom {
        if from == to {
            return x;
        }
        if to == PrimType::Bool {
            // Any nonzero number is true.
            let zero = Atom::Const(PrimValue::zero(from));
            return self.b.cmp(CmpOp::Neq, from, x, zero);
        }
        self.b.convert(from, to, x)
    }
}

impl<'a> Lowerer<'a> {
    /// A float's bits as the unsigned integer of its width, and that type.
    fn float_bits(&mut self, t: PrimType, x: Atom) -> (Atom, PrimType) {
        (self.b.math(MathFn::ToBits, t, vec![x]), MathFn::ToBits.result(t))
    }

    /// The high half of the full product `a * b` of two integers of type `it` (signed or not).
    fn mul_hi(&mut self, it: IntType, a: Atom, b: Atom) -> Atom {
        let t = PrimType::Int(it);
        let bits = it.bits();
        if bits < 64 {
            // The product fits in 64 bits: widen, multiply, shift, narrow.
            let wi = if it.signed() { IntType::I64 } else { IntType::U64 };
            let wide = PrimType::Int(wi);
            let (x, y) = (self.b.convert(t, wide, a), self.b.convert(t, wide, b));
            let p = self.b.binop(BinOp::Mul, wide, x, y);
            let sh = Atom::Const(PrimValue::int(wi, i128::from(bits)));
            let h = self.b.binop(BinOp::Shr, wide, p, sh);
            return self.b.convert(wide, t, h);
        }
        // 64 bits: the unsigned product from 32-bit halves, then the signed correction
        // `hi(a) - (a < 0 ? b : 0) - (b < 0 ? a : 0)`.
        let u = PrimType::Int(IntType::U64);
        let c = |v: i128| Atom::Const(PrimValue::int(IntType::U64, v));
        let (x, y) = (self.b.convert(t, u, a), self.b.convert(t, u, b));
        let lo = |s: &mut Self, v: Atom| s.b.binop(BinOp::And, u, v, c(0xffff_ffff));
        let hi = |s: &mut Self, v: Atom| s.b.binop(BinOp::Shr, u, v, c(32));
        let (xl, xh, yl, yh) = (lo(self, x), hi(self, x), lo(self, y), hi(self, y));
        let p0 = self.b.binop(BinOp::Mul, u, xl, yl);
        let p1 = self.b.binop(BinOp::Mul, u, xl, yh);
        let p2 = self.b.binop(BinOp::Mul, u, xh, yl);
        let p3 = self.b.binop(BinOp::Mul, u, xh, yh);
        let mid = hi(self, p0);
        let l1 = lo(self, p1);
        let mid = self.b.binop(BinOp::Add, u, mid, l1);
        let l2 = lo(self, p2);
        let mid = self.b.binop(BinOp::Add, u, mid, l2);
        let carry = hi(self, mid);
        let h1 = hi(self, p1);
        let h2 = hi(self, p2);
        let r = self.b.binop(BinOp::Add, u, p3, h1);
        let r = self.b.binop(BinOp::Add, u, r, h2);
        let r = self.b.binop(BinOp::Add, u, r, carry);
        if !it.signed() {
            return r;
        }
        let r = self.b.convert(u, t, r);
        let sign = Atom::Const(PrimValue::int(it, 63));
        let am = self.b.binop(BinOp::Shr, t, a, sign);
        let bm = self.b.binop(BinOp::Shr, t, b, sign);
        let fa = self.b.binop(BinOp::And, t, am, b);
        let fb = self.b.binop(BinOp::And, t, bm, a);
        let r = self.b.binop(BinOp::Sub, t, r, fa);
        self.b.binop(BinOp::Sub, t, r, fb)
    }
}

fn int_const(t: PrimType, v: i128) -> Option<Atom> {
    match t {
        PrimType::Int(it) => Some(Atom::Const(PrimValue::int(it, v))),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    // --- operators -------------------------------------------------------------------------

    pub(crate) fn binop_vals(
        &mut self,
        op: &str,
        a: SVal<'a>,
        b: SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        match op {
            "|>" => self.apply_val(b, a, span),
            "<|" => self.apply_val(a, b, span),
            ">->" | "<-<" => {
                let (SVal::Fun(f), SVal::Fun(g)) = (a, b) else {
                    return Err(internal(span, "composition of non-functions"));
                };
                let (first, then) = if op == ">->" { (f, g) } else { (g, f) };
                Ok(SVal::Fun(Rc::new(SFun::Compose { first, then })))
            }
            "++" => self.intrinsic("concat", vec![a, b], span),
            "==" | "!=" => {
                let eq = self.equal(&a, &b, span)?;
                let r = if op == "==" { eq } else { self.b.unop(UnOp::Not, PrimType::Bool, eq) };
                Ok(SVal::Leaf(r, Type::Prim(PrimType::Bool)))
            }
            _ => {
                let (x, t) = self.scalar(&a, span)?;
                let (y, _) = self.scalar(&b, span)?;
                let (r, rt) = self.prim_binop(op, t, x, y, span)?;
                Ok(SVal::Leaf(r, Type::Prim(rt)))
            }
        }
    }

    /// Structural equality: scalars compared directly, arrays by shape and then elementwise.
    pub(crate) fn equal(&mut self, a: &SVal<'a>, b: &SVal<'a>, span: Span) -> LResult<Atom> {
        let la = a.leaves();
        let lb = b.leaves();
        if la.len() != lb.len() {
            return Err(internal(span, "comparison of differently shaped values"));
        }
        let mut acc = boolc(true);
        for ((x, tx), (y, ty)) in la.into_iter().zip(lb) {
            let c = match (&tx, &ty) {
                (Type::Prim(p), Type::Prim(_)) => self.b.cmp(CmpOp::Eq, *p, x, y),
                _ => self.array_equal(x, &tx, y, &ty, span)?,
            };
            acc = self.b.and(acc, c);
        }
        Ok(acc)
    }

    pub(crate) fn array_equal(
        &mut self,
        x: Atom,
        tx: &Type,
        y: Atom,
        ty: &Type,
        span: Span,
    ) -> LResult<Atom> {
        if tx.rank() != ty.rank() {
            return Ok(boolc(false));
        }
        let i64p = PrimType::I64;
        let mut same = boolc(true);
        for (d, e) in shape(tx).iter().zip(shape(ty)) {
            let c = self.b.cmp(CmpOp::Eq, i64p, dim_atom(*d), dim_atom(*e));
            same = self.b.and(same, c);
        }
        if same == boolc(false) {
            return Ok(same);
        }
        let elem = tx.elem();
        let mark = self.b.depth();
        self.b.open();
        let r = (|| -> LResult<Atom> {
            let mut total = i64c(1);
            for d in shape(tx) {
                total = self.b.binop(BinOp::Mul, i64p, total, dim_atom(*d));
            }
            let td = atom_dim(total).ok_or_else(|| internal(span, "array size"))?;
            let flat = Type::Array { elem, shape: vec![td] };
            let mut flatten = |a: Atom, t: &Type| {
                let v = self.b.var_of(a, t, "t");
                if shape(t) == [td] {
                    v
                } else {
                    self.b.let1("t", flat.clone(), Exp::Reshape { arr: v, shape: vec![td] })
                }
            };
            let xf = flatten(x, tx);
            let yf = flatten(y, ty);
            let p = self.b.param("x", Type::Prim(elem));
            let q = self.b.param("y", Type::Prim(elem));
            let lam = self.b.lambda::<super::Diagnostic>(vec![p, q], |b, ps| {
                let c = b.cmp(CmpOp::Eq, elem, Atom::Var(ps[0].var), Atom::Var(ps[1].var));
                Ok((vec![c], vec![Type::Prim(PrimType::Bool)]))
            })?;
            let bools = Type::Array { elem: PrimType::Bool, shape: vec![td] };
            let eqs = self.b.let1("eqs", bools, Exp::Map { w: total, lam, arrs: vec![xf, yf] });
            Ok(self.all_true(total, eqs))
        })();
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                self.b.truncate(mark);
                return Err(e);
            }
        };
        let then_body = self.b.close(vec![r]);
        if same == boolc(true) {
            // Shapes are statically equal: no need for the branch.
            self.b.current_mut().extend(then_body.stms);
            return Ok(r);
        }
        let bool_t = Type::Prim(PrimType::Bool);
        let else_body = crate::ir::Body { stms: Vec::new(), result: vec![boolc(false)] };
        let v = self.b.let1(
            "eq",
            bool_t.clone(),
            Exp::If { cond: same, then_body, else_body, ret: vec![bool_t] },
        );
        Ok(Atom::Var(v))
    }

    /// `\a b -> a && b`.
    /// Whether every element of `bools` (of length `w`) is true.
    pub(crate) fn all_true(&mut self, w: Atom, bools: Var) -> Atom {
        let all = self.and_lambda();
        let r = self.b.let1(
            "all",
            Type::Prim(PrimType::Bool),
            Exp::Reduce {
                w,
                lam: all,
                neutral: vec![boolc(true)],
                arrs: vec![bools],
                commutative: true,
            },
        );
        Atom::Var(r)
    }

    pub(crate) fn and_lambda(&mut self) -> crate::ir::Lambda {
        let bool_t = Type::Prim(PrimType::Bool);
        let p = self.b.param("a", bool_t.clone());
        let q = self.b.param("b", bool_t.clone());
        let (pv, qv) = (p.var, q.var);
        self.b.open();
        let r = self.b.let1(
            "t",
            bool_t.clone(),
            Exp::BinOp(BinOp::LogAnd, PrimType::Bool, Atom::Var(pv), Atom::Var(qv)),
        );
        let body = self.b.close(vec![Atom::Var(r)]);
        crate::ir::Lambda { params: vec![p, q], body, ret: vec![bool_t] }
    }
}
