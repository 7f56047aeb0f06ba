//! The partial derivatives of the scalar primitives, shared by both modes: forward mode sums
//! `partial · tangent`, reverse mode adds `partial · adjoint` to each operand's adjoint.

use super::build::{fconst, Ad};
use super::{unsupported, R};
use crate::ir::*;
use crate::prim::PrimType;

impl Ad {
    /// For a scalar float expression `e` whose value is `r`: each float operand with
    /// `∂e/∂operand`. Operands whose derivative is zero everywhere are left out.
    pub fn partials(&mut self, e: &Exp, r: Atom) -> R<Vec<(Atom, Atom)>> {
        let span = self.span;
        let c = fconst;
        Ok(match e {
            Exp::Atom(a) => vec![(*a, c(self.atom_ty(a)?.elem(), 1.0))],
            Exp::UnOp(op, t, a) => match op {
                UnOp::Neg => vec![(*a, c(*t, -1.0))],
                UnOp::Abs => {
                    let s =
                        Atom::Var(self.let1("sgn", Type::Prim(*t), Exp::UnOp(UnOp::Sgn, *t, *a)));
                    vec![(*a, s)]
                }
                UnOp::Sgn | UnOp::Not => vec![],
            },
            Exp::BinOp(op, t, a, b) => {
                let t = *t;
                let (a, b) = (*a, *b);
                match op {
                    BinOp::Add => vec![(a, c(t, 1.0)), (b, c(t, 1.0))],
                    BinOp::Sub => vec![(a, c(t, 1.0)), (b, c(t, -1.0))],
                    BinOp::Mul => vec![(a, b), (b, a)],
                    BinOp::Div => {
                        // One division, 1/b, for both partials (-a/b² as -(a·(1/b))·(1/b)):
                        // divisions cost several multiplications, and `1/b` is shared with
                        // other partials that divide by the same value (a square root's).
                        let kb = match b {
                            Atom::Const(k) => k.as_f64().filter(|v| *v != 0.0),
                            Atom::Var(_) => None,
                        };
                        let inv = match kb {
                            // Exact: f64's quotient rounds to f32's (53 ≥ 2·24 + 2 bits).
                            Some(v) => c(t, 1.0 / v),
                            None => self.div(t, c(t, 1.0), b),
                        };
                        let q = self.mul(t, a, inv);
                        let q = self.mul(t, q, inv);
                        let db = self.neg(t, q);
                        vec![(a, inv), (b, db)]
                    }
                    BinOp::Pow => {
                        // d/da a**b = b * a**(b-1); d/db = a**b * log a (0 where a = 0).
                        let bm1 = self.sub(t, b, c(t, 1.0));
                        let p = self.bin(BinOp::Pow, t, a, bm1);
                        let da = self.mul(t, b, p);
                        let la = self.math(MathFn::Log, t, vec![a]);
                        let rl = self.mul(t, r, la);
                        let z = self.cmp(CmpOp::Eq, t, a, c(t, 0.0));
                        let db = self.select(t, z, c(t, 0.0), rl);
                        vec![(a, da), (b, db)]
                    }
                    BinOp::Min | BinOp::Max => {
                        // Ties go to the first operand.
                        let op = if *op == BinOp::Min { CmpOp::Le } else { CmpOp::Ge };
                        let first = self.cmp(op, t, a, b);
                        let da = self.select(t, first, c(t, 1.0), c(t, 0.0));
                        let db = self.select(t, first, c(t, 0.0), c(t, 1.0));
                        vec![(a, da), (b, db)]
                    }
                    BinOp::Mod => {
                        let q = self.div(t, a, b);
                        let f = self.math(MathFn::Floor, t, vec![q]);
                        let db = self.neg(t, f);
                        vec![(a, c(t, 1.0)), (b, db)]
                    }
                    _ => {
                        return Err(unsupported(
                            span,
                            format!("differentiating `{op:?}` on floats"),
                        ))
                    }
                }
            }
            Exp::Math(f, t, args) => self.math_partials(*f, *t, args, r)?,
            _ => return Err(unsupported(span, "differentiating this scalar expression")),
        })
    }

    fn math_partials(
        &mut self,
        f: MathFn,
        t: PrimType,
        args: &[Atom],
        r: Atom,
    ) -> R<Vec<(Atom, Atom)>> {
        let c = fconst;
        let x = args.first().copied().unwrap_or(c(t, 0.0));
        let y = args.get(1).copied().unwrap_or(c(t, 0.0));
        let one = c(t, 1.0);
        let d = match f {
            // 0.5·(1/r) is exactly 1/(2r), and shares `1/r` with a division by the root.
            MathFn::Sqrt => {
                let inv = self.div(t, one, r);
                self.mul(t, c(t, 0.5), inv)
            }
            MathFn::Exp => r,
            MathFn::Log => self.div(t, one, x),
            MathFn::Log2 | MathFn::Log10 => {
                let k = if f == MathFn::Log2 {
                    std::f64::consts::LN_2
                } else {
                    std::f64::consts::LN_10
                };
                let xk = self.mul(t, x, c(t, k));
                self.div(t, one, xk)
            }
            MathFn::Sin => self.math(MathFn::Cos, t, vec![x]),
            MathFn::Cos => {
                let s = self.math(MathFn::Sin, t, vec![x]);
                self.neg(t, s)
            }
            MathFn::Tan => {
                let r2 = self.mul(t, r, r);
                self.add(t, one, r2)
            }
            MathFn::Asin | MathFn::Acos => {
                let x2 = self.mul(t, x, x);
                let s = self.sub(t, one, x2);
                let q = self.math(MathFn::Sqrt, t, vec![s]);
                let d = self.div(t, one, q);
                if f == MathFn::Acos {
                    self.neg(t, d)
                } else {
                    d
                }
            }
            MathFn::Atan => {
                let x2 = self.mul(t, x, x);
                let s = self.add(t, one, x2);
                self.div(t, one, s)
            }
            MathFn::Sinh => self.math(MathFn::Cosh, t, vec![x]),
            MathFn::Cosh => self.math(MathFn::Sinh, t, vec![x]),
            MathFn::Tanh => {
                let r2 = self.mul(t, r, r);
                self.sub(t, one, r2)
            }
            MathFn::Cbrt => {
                let r2 = self.mul(t, r, r);
                let r3 = self.mul(t, c(t, 3.0), r2);
                self.div(t, one, r3)
            }
            MathFn::Log1p => {
                let s = self.add(t, one, x);
                self.div(t, one, s)
            }
            MathFn::Asinh | MathFn::Acosh => {
                let x2 = self.mul(t, x, x);
                let s =
                    if f == MathFn::Asinh { self.add(t, x2, one) } else { self.sub(t, x2, one) };
                let q = self.math(MathFn::Sqrt, t, vec![s]);
                self.div(t, one, q)
            }
            MathFn::Atanh => {
                let x2 = self.mul(t, x, x);
                let s = self.sub(t, one, x2);
                self.div(t, one, s)
            }
            MathFn::Atan2 => {
                // atan2(y', x') with args [y', x']: ∂/∂y' = x'/(x'²+y'²), ∂/∂x' = -y'/(...).
                let (ya, xa) = (x, y);
                let y2 = self.mul(t, ya, ya);
                let x2 = self.mul(t, xa, xa);
                let s = self.add(t, x2, y2);
                let dy = self.div(t, xa, s);
                let q = self.div(t, ya, s);
                let dx = self.neg(t, q);
                return Ok(vec![(ya, dy), (xa, dx)]);
            }
            MathFn::Hypot => {
                let dx = self.div(t, x, r);
                let dy = self.div(t, y, r);
                return Ok(vec![(x, dx), (y, dy)]);
            }
            MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc => return Ok(vec![]),
            MathFn::CopySign => {
                let sx = self.math(MathFn::CopySign, t, vec![one, x]);
                let sy = self.math(MathFn::CopySign, t, vec![one, y]);
                let d = self.mul(t, sx, sy);
                return Ok(vec![(x, d)]);
            }
            MathFn::Fma => {
                let z = args.get(2).copied().unwrap_or(c(t, 0.0));
                return Ok(vec![(x, y), (y, x), (z, one)]);
            }
            MathFn::IsNan
            | MathFn::IsInf
            | MathFn::ToBits
            | MathFn::FromBits
            | MathFn::Clz
            | MathFn::Ctz
            | MathFn::Popc => return Ok(vec![]),
        };
        Ok(vec![(x, d)])
    }
}
