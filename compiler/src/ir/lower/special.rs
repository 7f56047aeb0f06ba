//! Special functions of the numeric modules that lowering composes from arithmetic, comparisons
//! and selections (`erf`, `erfc`, `gamma`, `lgamma`, `ldexp`, `nextafter`), so that every
//! backend computes them the same way, maps of them vectorise (no branches), and
//! differentiation sees only operations it knows.

use super::Lowerer;
use crate::ir::{Atom, BinOp, CmpOp, MathFn, UnOp};
use crate::prim::{FloatType, IntType, PrimType, PrimValue};

impl<'a> Lowerer<'a> {
    /// `f` of an `f16` computed in `f32` and rounded back: every function here is accurate in
    /// `f32` far beyond `f16`'s precision.
    fn via_f32(&mut self, t: PrimType, x: Atom, f: impl FnOnce(&mut Self, Atom) -> Atom) -> Atom {
        let w = self.b.convert(t, PrimType::F32, x);
        let r = f(self, w);
        self.b.convert(PrimType::F32, t, r)
    }

    /// `r`, or `x` where `x` is NaN: NaN in, NaN out (a comparison with NaN, which the
    /// selections before this rely on, is not reliable on every GPU).
    fn nan_through(&mut self, t: PrimType, x: Atom, r: Atom) -> Atom {
        let nan = self.b.math(MathFn::IsNan, t, vec![x]);
        self.b.select(nan, x, r, t)
    }

    /// `erf x`, or `erfc x` with `complement`, for a float `x` of type `t`: the piecewise
    /// polynomials of erf_tables.rs, every piece computed and the one for `|x|` selected (no
    /// branches, so maps of it vectorise). Pieces see their inputs clamped into finite ranges,
    /// so a piece not selected never produces the NaN that would reach a derivative through
    /// the selection.
    pub(super) fn erf(&mut self, t: PrimType, x: Atom, complement: bool) -> Atom {
        use super::erf_tables::{Piece, ERF_F32, ERF_F64};
        let ft = match t {
            PrimType::Float(FloatType::F16) => {
                return self.via_f32(t, x, |s, w| s.erf(PrimType::F32, w, complement))
            }
            PrimType::Float(ft) => ft,
            _ => return x,
        };
        let table = if ft == FloatType::F32 { &ERF_F32 } else { &ERF_F64 };
        let c = |v: f64| Atom::Const(PrimValue::float(ft, v));
        let lt = |s: &mut Self, a: Atom, v: f64| s.b.cmp(CmpOp::Lt, t, a, c(v));
        let horner = |s: &mut Self, p: &Piece, at: Atom| {
            let d = s.b.binop(BinOp::Sub, t, at, c(p.mid));
            let mut acc = c(p.coefs[0]);
            for &k in &p.coefs[1..] {
                let m = s.b.binop(BinOp::Mul, t, acc, d);
                acc = s.b.binop(BinOp::Add, t, m, c(k));
            }
            acc
        };
        let a = self.b.unop(UnOp::Abs, t, x);
        // |x| < 1: x * P(x^2), on `x` itself there and 0 elsewhere.
        let inner = lt(self, a, table.small.below);
        let xs = self.b.select(inner, x, c(0.0), t);
        let x2 = self.b.binop(BinOp::Mul, t, xs, xs);
        let p = horner(self, &table.small, x2);
        let small = self.b.binop(BinOp::Mul, t, xs, p);
        // |x| >= 0.5: erfc |x| = exp(-a^2) Q(a), with `a` clamped to [0.5, limit].
        let limit = table.tail.below;
        let low = lt(self, a, 0.5);
        let a1 = self.b.select(low, c(0.5), a, t);
        let in_range = lt(self, a1, limit);
        let ab = self.b.select(in_range, a1, c(limit), t);
        // exp(-a^2) as exp(-h^2) exp(-(a - h)(a + h)), `h` being the high half of `a`'s
        // significand (Veltkamp's split: exact, and plain arithmetic, so `--f64-as-f32` and
        // differentiation see nothing special), so `h^2` is exact and the large exponent
        // carries no rounding.
        let split = match ft {
            FloatType::F32 => 4097.0,
            _ => 134_217_729.0,
        };
        let cs = self.b.binop(BinOp::Mul, t, c(split), ab);
        let ca = self.b.binop(BinOp::Sub, t, cs, ab);
        let h = self.b.binop(BinOp::Sub, t, cs, ca);
        let hh = self.b.binop(BinOp::Mul, t, h, h);
        let nhh = self.b.unop(UnOp::Neg, t, hh);
        let e1 = self.b.math(MathFn::Exp, t, vec![nhh]);
        let dm = self.b.binop(BinOp::Sub, t, ab, h);
        let dp = self.b.binop(BinOp::Add, t, ab, h);
        let r = self.b.binop(BinOp::Mul, t, dm, dp);
        let nr = self.b.unop(UnOp::Neg, t, r);
        let e2 = self.b.math(MathFn::Exp, t, vec![nr]);
        let e = self.b.binop(BinOp::Mul, t, e1, e2);
        // Q: the tail's R(1/a^2) / a, then each piece below its bound, from the last.
        let ab2 = self.b.binop(BinOp::Mul, t, ab, ab);
        let v = self.b.binop(BinOp::Div, t, c(1.0), ab2);
        let rv = horner(self, &table.tail, v);
        let mut q = self.b.binop(BinOp::Div, t, rv, ab);
        for piece in table.pieces.iter().rev() {
            let pq = horner(self, piece, ab);
            let here = lt(self, ab, piece.below);
            q = self.b.select(here, pq, q, t);
        }
        let eq = self.b.binop(BinOp::Mul, t, e, q);
        let under = lt(self, a, limit);
        let big = self.b.select(under, eq, c(0.0), t);
        let r = if complement {
            // erfc x = 1 - erf x near 0; 2 - erfc |x| for negative x.
            let near = self.b.binop(BinOp::Sub, t, c(1.0), small);
            let neg = lt(self, x, 0.0);
            let two = self.b.binop(BinOp::Sub, t, c(2.0), big);
            let far = self.b.select(neg, two, big, t);
            self.b.select(low, near, far, t)
        } else {
            let one = self.b.binop(BinOp::Sub, t, c(1.0), big);
            let signed = self.b.math(MathFn::CopySign, t, vec![one, x]);
            self.b.select(inner, small, signed, t)
        };
        self.nan_through(t, x, r)
    }

    /// `gamma x` (`lgamma` with `log`: `ln |Γ(x)|`), as C's `tgamma` and `lgamma`. From 0.5 up,
    /// Stirling's series at `y` (at `y + 10` below 10, divided by `y (y+1) ... (y+9)`; 6 for
    /// `f32`), with `y^(y-1/2)` taken as the square of `y^((y-1/2)/2)` so that it overflows only
    /// with `Γ`; below 0.5, the reflection formula `Γ(x) Γ(1-x) = π / sin(πx)` with `sin(πx)`
    /// reduced exactly first. Every path is computed and one selected. `Γ` is NaN at the negative
    /// integers and -inf, and the infinity of its sign at zero; `ln |Γ|` is +inf at the poles
    /// and both infinities.
    pub(super) fn gamma(&mut self, t: PrimType, x: Atom, log: bool) -> Atom {
        let ft = match t {
            PrimType::Float(FloatType::F16) => {
                return self.via_f32(t, x, |s, w| s.gamma(PrimType::F32, w, log))
            }
            PrimType::Float(ft) => ft,
            _ => return x,
        };
        // B_2k / (2k (2k-1)): the series' coefficients of 1/y^(2k-1), k = 1..8.
        const STIRLING: [f64; 8] = [
            1.0 / 12.0,
            -1.0 / 360.0,
            1.0 / 1260.0,
            -1.0 / 1680.0,
            1.0 / 1188.0,
            -691.0 / 360_360.0,
            1.0 / 156.0,
            -3617.0 / 122_400.0,
        ];
        // Below this the series is shifted up (its ninth term is below the type's precision
        // from there on).
        let shift: usize = if ft == FloatType::F64 { 10 } else { 6 };
        let c = |v: f64| Atom::Const(PrimValue::float(ft, v));
        let pi = std::f64::consts::PI;
        // `y = x` from 0.5 up, `1 - x` below (the reflection's other side).
        let low = self.b.cmp(CmpOp::Lt, t, x, c(0.5));
        let one_minus = self.b.binop(BinOp::Sub, t, c(1.0), x);
        let y = self.b.select(low, one_minus, x, t);
        // `ys = y + shift` below `shift`, and the product `y (y+1) ...` it divides by. The sum
        // rounds: `delta`, what it lost (exact, by Sterbenz's lemma), enters to first order,
        // through ψ(ys) ≈ ln ys - 1/(2 ys).
        let small = self.b.cmp(CmpOp::Lt, t, y, c(shift as f64));
        let shifted = self.b.binop(BinOp::Add, t, y, c(shift as f64));
        let ys = self.b.select(small, shifted, y, t);
        let back = self.b.binop(BinOp::Sub, t, ys, c(shift as f64));
        let lost = self.b.binop(BinOp::Sub, t, y, back);
        let delta = self.b.select(small, lost, c(0.0), t);
        let mut prod = y;
        let mut recips = self.b.binop(BinOp::Div, t, c(1.0), y);
        for j in 1..shift {
            let f = self.b.binop(BinOp::Add, t, y, c(j as f64));
            prod = self.b.binop(BinOp::Mul, t, prod, f);
            let q = self.b.binop(BinOp::Div, t, c(1.0), f);
            recips = self.b.binop(BinOp::Add, t, recips, q);
        }
        let prod = self.b.select(small, prod, c(1.0), t);
        let recips = self.b.select(small, recips, c(0.0), t);
        // `1 - x` rounds too: what it lost (exact) enters through ψ(y) = ψ(ys) - Σ 1/(y+j).
        let one_minus_y = self.b.binop(BinOp::Sub, t, c(1.0), y);
        let lost_r = self.b.binop(BinOp::Sub, t, one_minus_y, x);
        let delta_r = self.b.select(low, lost_r, c(0.0), t);
        // The series S(ys) = sum of c_k / ys^(2k-1), by Horner's rule in 1/ys^2.
        let inv = self.b.binop(BinOp::Div, t, c(1.0), ys);
        let inv2 = self.b.binop(BinOp::Mul, t, inv, inv);
        let mut series = c(STIRLING[STIRLING.len() - 1]);
        for &k in STIRLING.iter().rev().skip(1) {
            let m = self.b.binop(BinOp::Mul, t, series, inv2);
            series = self.b.binop(BinOp::Add, t, m, c(k));
        }
        let series = self.b.binop(BinOp::Mul, t, series, inv);
        let lys = self.b.math(MathFn::Log, t, vec![ys]);
        let hinv = self.b.binop(BinOp::Mul, t, inv, c(0.5));
        let psi = self.b.binop(BinOp::Sub, t, lys, hinv);
        let correction = self.b.binop(BinOp::Mul, t, delta, psi);
        let psi_y = self.b.binop(BinOp::Sub, t, psi, recips);
        let correction_r = self.b.binop(BinOp::Mul, t, delta_r, psi_y);
        let correction = self.b.binop(BinOp::Add, t, correction, correction_r);
        let series = self.b.binop(BinOp::Add, t, series, correction);
        let e = self.b.binop(BinOp::Sub, t, ys, c(0.5));
        // sin(πx), from `x - round(x)` (exact) and the parity of `round(x)`.
        let n = self.b.math(MathFn::Round, t, vec![x]);
        let r = self.b.binop(BinOp::Sub, t, x, n);
        let pr = self.b.binop(BinOp::Mul, t, c(pi), r);
        let s = self.b.math(MathFn::Sin, t, vec![pr]);
        let half = self.b.binop(BinOp::Mul, t, n, c(0.5));
        let fl = self.b.math(MathFn::Floor, t, vec![half]);
        let odd = self.b.cmp(CmpOp::Neq, t, fl, half);
        let ns = self.b.unop(UnOp::Neg, t, s);
        let sinpi = self.b.select(odd, ns, s, t);
        let inf = self.b.math(MathFn::IsInf, t, vec![x]);
        // Γ(ys) = w e^-ys w sqrt(2π) e^S(ys), with w = ys^((ys - 1/2)/2).
        let he = self.b.binop(BinOp::Mul, t, e, c(0.5));
        let w = self.b.binop(BinOp::Pow, t, ys, he);
        let nys = self.b.unop(UnOp::Neg, t, ys);
        let ex = self.b.math(MathFn::Exp, t, vec![nys]);
        let es = self.b.math(MathFn::Exp, t, vec![series]);
        let g = self.b.binop(BinOp::Mul, t, w, ex);
        let g = self.b.binop(BinOp::Mul, t, g, w);
        let g = self.b.binop(BinOp::Mul, t, g, c((2.0 * pi).sqrt()));
        let g = self.b.binop(BinOp::Mul, t, g, es);
        let g = self.b.binop(BinOp::Div, t, g, prod);
        // Beyond this Γ(y) overflows (and the product above could be 0 · inf).
        let limit = if ft == FloatType::F64 { 171.7 } else { 35.1 };
        let over = self.b.cmp(CmpOp::Gt, t, y, c(limit));
        let g = self.b.select(over, c(f64::INFINITY), g, t);
        // Γ(x) = π / (sin(πx) Γ(1 - x)); NaN at the negative integers, ±inf at ±0.
        let d = self.b.binop(BinOp::Mul, t, sinpi, g);
        let refl = self.b.binop(BinOp::Div, t, c(pi), d);
        let whole = self.b.cmp(CmpOp::Eq, t, r, c(0.0));
        let neg = self.b.cmp(CmpOp::Lt, t, x, c(0.0));
        let pole = self.b.binop(BinOp::LogAnd, PrimType::Bool, whole, neg);
        let refl = self.b.select(pole, c(f64::NAN), refl, t);
        let zero = self.b.cmp(CmpOp::Eq, t, x, c(0.0));
        let signed_inf = self.b.math(MathFn::CopySign, t, vec![c(f64::INFINITY), x]);
        let refl = self.b.select(zero, signed_inf, refl, t);
        let gamma = self.b.select(low, refl, g, t);
        let r = if log {
            // Where Γ(x) is a normal number, ln |Γ(x)| from it (Γ is accurate to a few ulp);
            // beyond, the series' logarithm: ln Γ(y) = (ys - 1/2) ln ys - ys + ln sqrt(2π) +
            // S(ys) - ln(prod), reflected as ln π - ln |sin(πx)| - ln Γ(1 - x).
            let m = self.b.binop(BinOp::Mul, t, e, lys);
            let m = self.b.binop(BinOp::Sub, t, m, ys);
            let m = self.b.binop(BinOp::Add, t, m, c(0.5 * (2.0 * pi).ln()));
            let m = self.b.binop(BinOp::Add, t, m, series);
            let lp = self.b.math(MathFn::Log, t, vec![prod]);
            let lg = self.b.binop(BinOp::Sub, t, m, lp);
            let abs_s = self.b.unop(UnOp::Abs, t, sinpi);
            let ls = self.b.math(MathFn::Log, t, vec![abs_s]);
            let lrefl = self.b.binop(BinOp::Sub, t, c(pi.ln()), ls);
            let lrefl = self.b.binop(BinOp::Sub, t, lrefl, lg);
            let series_log = self.b.select(low, lrefl, lg, t);
            let abs_g = self.b.unop(UnOp::Abs, t, gamma);
            let log_g = self.b.math(MathFn::Log, t, vec![abs_g]);
            let moderate = if ft == FloatType::F64 { 100.0 } else { 30.0 };
            let ax = self.b.unop(UnOp::Abs, t, x);
            let near = self.b.cmp(CmpOp::Lt, t, ax, c(moderate));
            let r = self.b.select(near, log_g, series_log, t);
            let pole_or_inf = self.b.binop(BinOp::LogOr, PrimType::Bool, pole, inf);
            self.b.select(pole_or_inf, c(f64::INFINITY), r, t)
        } else {
            // -inf: NaN, as C's; +inf: +inf.
            let neg_inf = self.b.binop(BinOp::LogAnd, PrimType::Bool, inf, neg);
            self.b.select(neg_inf, c(f64::NAN), gamma, t)
        };
        self.nan_through(t, x, r)
    }

    /// `ldexp x n`: `x * 2^n`, rounded once (C's `ldexp`). As in musl's `scalbn`, `n` beyond the
    /// exponent range is applied in up to two steps, the one towards the subnormals scaled by the
    /// significand's width so that only the last multiplication rounds, then the rest as a power
    /// of two made from `n`'s bits (a product of exact powers of two, not the float's bit
    /// pattern, so `--f64-as-f32` sees nothing special).
    pub(super) fn ldexp(&mut self, t: PrimType, x: Atom, n: Atom) -> Atom {
        let ft = match t {
            // Every f16 result is exact in f32 before the one rounding to f16.
            PrimType::Float(FloatType::F16) => {
                return self.via_f32(t, x, |s, w| s.ldexp(PrimType::F32, w, n))
            }
            PrimType::Float(ft) => ft,
            _ => return x,
        };
        let (emax, digits): (i32, i32) = match ft {
            FloatType::F64 => (1023, 53),
            _ => (127, 24),
        };
        let emin = 1 - emax;
        let i32t = PrimType::Int(IntType::I32);
        let int = |v: i32| Atom::Const(PrimValue::I32(v));
        let pow2 = |e: i32| Atom::Const(PrimValue::float(ft, 2f64.powi(e)));
        let (mut y, mut n) = (x, n);
        for _ in 0..2 {
            let big = self.b.cmp(CmpOp::Gt, i32t, n, int(emax));
            let small = self.b.cmp(CmpOp::Lt, i32t, n, int(emin));
            let f = self.b.select(small, pow2(emin + digits), pow2(0), t);
            let f = self.b.select(big, pow2(emax), f, t);
            y = self.b.binop(BinOp::Mul, t, y, f);
            let d = self.b.select(small, int(emin + digits), int(0), i32t);
            let d = self.b.select(big, int(emax), d, i32t);
            n = self.b.binop(BinOp::Sub, i32t, n, d);
        }
        let n = self.b.binop(BinOp::Min, i32t, n, int(emax));
        let n = self.b.binop(BinOp::Max, i32t, n, int(emin));
        // 2^|n| as the product of 2^(2^k) over the bits of |n|, inverted for a negative `n`
        // (exact: 2^emin is normal).
        let a = self.b.unop(UnOp::Abs, i32t, n);
        let mut scale = pow2(0);
        let mut k = 0;
        while (1 << k) <= emax {
            let s = self.b.binop(BinOp::Shr, i32t, a, int(k));
            let bit = self.b.binop(BinOp::And, i32t, s, int(1));
            let set = self.b.cmp(CmpOp::Neq, i32t, bit, int(0));
            let f = self.b.select(set, pow2(1 << k), pow2(0), t);
            scale = self.b.binop(BinOp::Mul, t, scale, f);
            k += 1;
        }
        let neg = self.b.cmp(CmpOp::Lt, i32t, n, int(0));
        let inv = self.b.binop(BinOp::Div, t, pow2(0), scale);
        let scale = self.b.select(neg, inv, scale, t);
        self.b.binop(BinOp::Mul, t, y, scale)
    }

    /// `nextafter x y`: the float after `x` in the direction of `y` (C's `nextafter`): `y` when
    /// they are equal, NaN when either is, the smallest subnormal with `y`'s sign from zero, and
    /// otherwise `x`'s bit pattern one up or down (a magnitude grows by adding one).
    pub(super) fn nextafter(&mut self, t: PrimType, x: Atom, y: Atom) -> Atom {
        let PrimType::Float(ft) = t else { return x };
        let (bits_t, tiny) = match ft {
            FloatType::F16 => (IntType::U16, 2f64.powi(-24)),
            FloatType::F32 => (IntType::U32, 2f64.powi(-149)),
            FloatType::F64 => (IntType::U64, f64::from_bits(1)),
        };
        let bt = PrimType::Int(bits_t);
        let c = |v: f64| Atom::Const(PrimValue::float(ft, v));
        let bits = self.b.math(MathFn::ToBits, t, vec![x]);
        let one = Atom::Const(PrimValue::int(bits_t, 1));
        let up_bits = self.b.binop(BinOp::Add, bt, bits, one);
        let down_bits = self.b.binop(BinOp::Sub, bt, bits, one);
        let towards_up = self.b.cmp(CmpOp::Gt, t, y, x);
        let positive = self.b.cmp(CmpOp::Gt, t, x, c(0.0));
        let grow = self.b.cmp(CmpOp::Eq, PrimType::Bool, towards_up, positive);
        let r_bits = self.b.select(grow, up_bits, down_bits, bt);
        let r = self.b.math(MathFn::FromBits, t, vec![r_bits]);
        let zero = self.b.cmp(CmpOp::Eq, t, x, c(0.0));
        let from_zero = self.b.math(MathFn::CopySign, t, vec![c(tiny), y]);
        let r = self.b.select(zero, from_zero, r, t);
        let same = self.b.cmp(CmpOp::Eq, t, x, y);
        let r = self.b.select(same, y, r, t);
        // NaN in, NaN out (a comparison with NaN is not reliable on every GPU).
        let nan_x = self.b.math(MathFn::IsNan, t, vec![x]);
        let nan_y = self.b.math(MathFn::IsNan, t, vec![y]);
        let nan = self.b.binop(BinOp::LogOr, PrimType::Bool, nan_x, nan_y);
        let sum = self.b.binop(BinOp::Add, t, x, y);
        let r = self.b.select(nan, sum, r, t);
        // Futhark's derivative is 1 in `x` and 0 in `y`: for a finite `x` other than `y`, the
        // result as `x` plus the step to it (exact, the two being neighbours), the step passed
        // through its bits so that differentiation sees a constant.
        let step = self.b.binop(BinOp::Sub, t, r, x);
        let step_bits = self.b.math(MathFn::ToBits, t, vec![step]);
        let step = self.b.math(MathFn::FromBits, t, vec![step_bits]);
        let stepped = self.b.binop(BinOp::Add, t, x, step);
        let inf = self.b.math(MathFn::IsInf, t, vec![x]);
        let plain = self.b.binop(BinOp::LogOr, PrimType::Bool, inf, same);
        let plain = self.b.binop(BinOp::LogOr, PrimType::Bool, plain, nan);
        self.b.select(plain, r, stepped, t)
    }
}
