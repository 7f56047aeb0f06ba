//! The arithmetic the simplex runs on: exact rationals, or f64 with tolerances for the fast
//! search whose answers are then checked exactly.

use std::cmp::Ordering;
use std::fmt;

use super::IlpError;

/// An exact rational with a positive denominator, in lowest terms; overflow is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rat {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The arithmetic the simplex runs on: exact rationals ([`Rat`]) or tolerant floats ([`F64`]).
pub(super) trait Num: Copy + fmt::Debug {
    const ZERO: Self;
    fn int(n: i128) -> Self;
    fn add(self, o: Self) -> Result<Self, IlpError>;
    fn sub(self, o: Self) -> Result<Self, IlpError>;
    fn mul(self, o: Self) -> Result<Self, IlpError>;
    fn recip(self) -> Result<Self, IlpError>;
    fn div(self, o: Self) -> Result<Self, IlpError> {
        self.mul(o.recip()?)
    }
    fn is_zero(&self) -> bool;
    fn is_neg(&self) -> bool;
    fn is_pos(&self) -> bool;
    fn is_integer(&self) -> bool;
    fn floor(&self) -> i64;
    fn ceil(&self) -> i64;
    fn cmp_to(&self, o: &Self) -> Ordering;
    /// Snap round-off noise to zero (keeps float tableaux sparse and their signs exact).
    fn clean(self) -> Self {
        self
    }
}

impl Rat {
    fn new(num: i128, den: i128) -> Result<Rat, IlpError> {
        if den == 0 {
            return Err(IlpError::TooLarge);
        }
        let g = gcd(num, den).max(1);
        let (mut num, mut den) = (num / g, den / g);
        if den < 0 {
            num = num.checked_neg().ok_or(IlpError::TooLarge)?;
            den = den.checked_neg().ok_or(IlpError::TooLarge)?;
        }
        Ok(Rat { num, den })
    }
}

impl Num for Rat {
    const ZERO: Self = Rat { num: 0, den: 1 };

    fn int(n: i128) -> Rat {
        Rat { num: n, den: 1 }
    }

    fn add(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_add(o.num).ok_or(IlpError::TooLarge)?));
        }
        if self.den == o.den {
            return Rat::new(self.num.checked_add(o.num).ok_or(IlpError::TooLarge)?, self.den);
        }
        let a = self.num.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        let b = o.num.checked_mul(self.den).ok_or(IlpError::TooLarge)?;
        let d = self.den.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        Rat::new(a.checked_add(b).ok_or(IlpError::TooLarge)?, d)
    }

    fn sub(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_sub(o.num).ok_or(IlpError::TooLarge)?));
        }
        self.add(Rat { num: -o.num, den: o.den })
    }

    fn mul(self, o: Rat) -> Result<Rat, IlpError> {
        if self.den == 1 && o.den == 1 {
            return Ok(Rat::int(self.num.checked_mul(o.num).ok_or(IlpError::TooLarge)?));
        }
        let n = self.num.checked_mul(o.num).ok_or(IlpError::TooLarge)?;
        let d = self.den.checked_mul(o.den).ok_or(IlpError::TooLarge)?;
        Rat::new(n, d)
    }

    fn recip(self) -> Result<Rat, IlpError> {
        Rat::new(self.den, self.num)
    }

    fn is_zero(&self) -> bool {
        self.num == 0
    }
    fn is_neg(&self) -> bool {
        self.num < 0
    }
    fn is_pos(&self) -> bool {
        self.num > 0
    }
    fn is_integer(&self) -> bool {
        self.den == 1
    }
    fn floor(&self) -> i64 {
        self.num.div_euclid(self.den) as i64
    }
    fn ceil(&self) -> i64 {
        -((-self.num).div_euclid(self.den)) as i64
    }
    fn cmp_to(&self, o: &Rat) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

/// Absolute tolerance of the float simplex: coefficients are small integers and the problems
/// small, so genuine nonzero values are far above it.
const EPS: f64 = 1e-9;

/// An f64 with tolerant comparisons, for the fast search; its answers are checked exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct F64(f64);

fn finite(x: f64) -> Result<F64, IlpError> {
    if x.is_finite() && x.abs() < 1e15 {
        Ok(F64(x))
    } else {
        Err(IlpError::TooLarge)
    }
}

impl Num for F64 {
    const ZERO: Self = F64(0.0);

    fn int(n: i128) -> F64 {
        F64(n as f64)
    }
    fn add(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 + o.0)
    }
    fn sub(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 - o.0)
    }
    fn mul(self, o: F64) -> Result<F64, IlpError> {
        finite(self.0 * o.0)
    }
    fn recip(self) -> Result<F64, IlpError> {
        if self.is_zero() {
            return Err(IlpError::TooLarge);
        }
        finite(1.0 / self.0)
    }
    fn is_zero(&self) -> bool {
        self.0.abs() <= EPS
    }
    fn is_neg(&self) -> bool {
        self.0 < -EPS
    }
    fn is_pos(&self) -> bool {
        self.0 > EPS
    }
    fn is_integer(&self) -> bool {
        (self.0 - self.0.round()).abs() <= 1e-6
    }
    fn floor(&self) -> i64 {
        if self.is_integer() {
            self.0.round() as i64
        } else {
            self.0.floor() as i64
        }
    }
    fn ceil(&self) -> i64 {
        if self.is_integer() {
            self.0.round() as i64
        } else {
            self.0.ceil() as i64
        }
    }
    fn cmp_to(&self, o: &F64) -> Ordering {
        let tol = EPS * 1f64.max(self.0.abs()).max(o.0.abs());
        if (self.0 - o.0).abs() <= tol {
            Ordering::Equal
        } else if self.0 < o.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }
    fn clean(self) -> F64 {
        if self.is_zero() {
            F64::ZERO
        } else {
            self
        }
    }
}
