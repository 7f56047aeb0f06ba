//! Column-at-a-time evaluation: a `map` whose function is scalar code (scalar parameters and
//! results, only scalar statements) runs one statement at a time over whole columns of typed
//! elements instead of interpreting the function once per element; a `reduce` or `scan` whose
//! operator is a single binary operator folds the typed elements directly.
//!
//! Both compute exactly what the element-at-a-time path computes: the same scalar functions
//! (`prim_ops`) on the same values in the same order for every element. Only which error is
//! reported first may differ when several elements fail (element order within a statement
//! instead of statement order within an element).

use std::rc::Rc;

use super::array::{reserve, Array, Ticket, Val};
use super::data::Data;
use super::eval::{err, Interp, Res};
use super::prim_ops::{self, cmp_typed, float_binop, float_unop, int_binop, int_unop, Float, Int};
use crate::diag::Span;
use crate::ir::operators::single_operator;
use crate::ir::{Atom, BinOp, CmpOp, Exp, Lambda, Type, UnOp, Var};
use crate::prim::{f16, FloatType, IntType, PrimType, PrimValue};

/// An element type stored in its own `Data` vector.
pub(crate) trait Elem: Copy {
    fn slice(d: &Data) -> Option<&[Self]>;
    fn from_prim(p: PrimValue) -> Option<Self>;
    fn prim(self) -> PrimValue;
    fn data(v: Vec<Self>) -> Data;
}

macro_rules! impl_elem {
    ($($t:ty, $V:ident;)*) => {$(
        impl Elem for $t {
            fn slice(d: &Data) -> Option<&[$t]> {
                if let Data::$V(v) = d { Some(v) } else { None }
            }
            fn from_prim(p: PrimValue) -> Option<$t> {
                if let PrimValue::$V(x) = p { Some(x) } else { None }
            }
            fn prim(self) -> PrimValue {
                PrimValue::$V(self)
            }
            fn data(v: Vec<$t>) -> Data {
                Data::$V(v)
            }
        }
    )*};
}

impl_elem! {
    bool, Bool; i8, I8; i16, I16; i32, I32; i64, I64; u8, U8; u16, U16; u32, U32; u64, U64;
    f16, F16; f32, F32; f64, F64;
}

/// The values of one variable for all `n` elements: shared by all, or one per element (part of
/// an input array's buffer from `offset`, or computed).
#[derive(Clone)]
enum Col<'a> {
    One(PrimValue),
    Part(&'a Data, usize),
    Own(Rc<Data>),
}

impl Col<'_> {
    fn get(&self, i: usize) -> Option<PrimValue> {
        match self {
            Col::One(p) => Some(*p),
            Col::Part(d, off) => d.get(off + i),
            Col::Own(d) => d.get(i),
        }
    }

    fn elem(&self) -> PrimType {
        match self {
            Col::One(p) => p.ty(),
            Col::Part(d, _) => d.elem(),
            Col::Own(d) => d.elem(),
        }
    }
}

/// A typed view of a column.
enum View<'a, T> {
    One(T),
    Many(&'a [T]),
}

impl<T: Copy> View<'_, T> {
    #[inline]
    fn at(&self, i: usize) -> T {
        match self {
            View::One(x) => *x,
            View::Many(s) => s[i],
        }
    }
}

/// `c` as `T`s: a view of exactly `n` elements (or one shared value).
fn view<'a, T: Elem>(c: &'a Col, n: usize) -> Option<View<'a, T>> {
    match c {
        Col::One(p) => T::from_prim(*p).map(View::One),
        Col::Part(d, off) => T::slice(d)?.get(*off..off + n).map(View::Many),
        Col::Own(d) => T::slice(d)?.get(..n).map(View::Many),
    }
}

fn undefined(op: &BinOp, t: PrimType) -> String {
    prim_ops::undefined_on(&format!("`{op:?}`"), &[t, t])
}

/// `f` element-wise over two views of `n` elements (a loop per combination, so the common
/// slice-by-slice case is a plain loop the compiler can vectorise).
#[inline]
fn zip<T: Copy, U>(
    a: View<T>,
    b: View<T>,
    n: usize,
    f: impl Fn(T, T) -> Result<U, String>,
) -> Result<Vec<U>, String> {
    let mut out = Vec::with_capacity(n);
    match (a, b) {
        (View::Many(x), View::Many(y)) => {
            for (&x, &y) in x.iter().zip(y) {
                out.push(f(x, y)?);
            }
        }
        (View::Many(x), View::One(y)) => {
            for &x in x {
                out.push(f(x, y)?);
            }
        }
        (View::One(x), View::Many(y)) => {
            for &y in y {
                out.push(f(x, y)?);
            }
        }
        (View::One(x), View::One(y)) => {
            for _ in 0..n {
                out.push(f(x, y)?);
            }
        }
    }
    Ok(out)
}

fn int_cols<T: Int + Elem>(op: BinOp, a: &Col, b: &Col, n: usize) -> Option<Result<Data, String>> {
    let (x, y) = (view::<T>(a, n)?, view::<T>(b, n)?);
    // The operators that cannot fail get loops of their own.
    let r = match op {
        BinOp::Add => zip(x, y, n, |x, y| Ok(x.wadd(y))),
        BinOp::Sub => zip(x, y, n, |x, y| Ok(x.wsub(y))),
        BinOp::Mul => zip(x, y, n, |x, y| Ok(x.wmul(y))),
        _ => zip(x, y, n, |x, y| int_binop(op, x, y)),
    };
    Some(r.map(T::data))
}

fn float_cols<F: Float + Elem>(
    op: BinOp,
    a: &Col,
    b: &Col,
    n: usize,
) -> Option<Result<Data, String>> {
    let (x, y) = (view::<F>(a, n)?, view::<F>(b, n)?);
    let r = match op {
        BinOp::Add => zip(x, y, n, |x, y| Ok(x + y)),
        BinOp::Sub => zip(x, y, n, |x, y| Ok(x - y)),
        BinOp::Mul => zip(x, y, n, |x, y| Ok(x * y)),
        BinOp::Div => zip(x, y, n, |x, y| Ok(x / y)),
        _ => zip(x, y, n, |x, y| float_binop(op, x, y).ok_or_default()),
    };
    Some(r.map(F::data))
}

fn cmp_cols<T: Elem + PartialOrd>(op: CmpOp, a: &Col, b: &Col, n: usize) -> Option<Data> {
    let (x, y) = (view::<T>(a, n)?, view::<T>(b, n)?);
    zip(x, y, n, |x, y| Ok(cmp_typed(op, x, y))).ok().map(Data::Bool)
}

fn unop_int<T: Int + Elem>(op: UnOp, a: &Col, n: usize) -> Option<Data> {
    let x = view::<T>(a, n)?;
    Some(T::data((0..n).map(|i| int_unop(op, x.at(i))).collect()))
}

fn unop_float<F: Float + Elem>(op: UnOp, a: &Col, n: usize) -> Option<Data> {
    let x = view::<F>(a, n)?;
    (0..n).map(|i| float_unop(op, x.at(i))).collect::<Option<Vec<F>>>().map(F::data)
}

trait OkOrDefault<T> {
    fn ok_or_default(self) -> Result<T, String>;
}

impl<T> OkOrDefault<T> for Option<T> {
    fn ok_or_default(self) -> Result<T, String> {
        self.ok_or_else(String::new)
    }
}

/// Element-wise through boxed scalars: the general path (conversions, math, `select`, `f16`).
fn boxed(
    cols: &[&Col],
    n: usize,
    out: PrimType,
    f: impl Fn(&[PrimValue]) -> Result<PrimValue, String>,
) -> Result<Data, String> {
    let mut data = Data::with_capacity(out, n);
    let mut args = Vec::with_capacity(cols.len());
    for i in 0..n {
        args.clear();
        for c in cols {
            args.push(c.get(i).ok_or("internal error: column too short")?);
        }
        let r = f(&args)?;
        if !data.push(r) {
            return Err(format!("internal error: a {} where a {out} is expected", r.ty()));
        }
    }
    Ok(data)
}

macro_rules! by_int_type {
    ($t:expr, $f:ident, $($args:expr),*) => {
        match $t {
            IntType::I8 => $f::<i8>($($args),*),
            IntType::I16 => $f::<i16>($($args),*),
            IntType::I32 => $f::<i32>($($args),*),
            IntType::I64 => $f::<i64>($($args),*),
            IntType::U8 => $f::<u8>($($args),*),
            IntType::U16 => $f::<u16>($($args),*),
            IntType::U32 => $f::<u32>($($args),*),
            IntType::U64 => $f::<u64>($($args),*),
        }
    };
}

/// One scalar statement over columns of `n` elements; `out` is its declared type.
fn column(exp: &Exp, args: &[Col], n: usize, out: PrimType) -> Result<Data, String> {
    let mismatch = || "internal error: operand types differ from the operator's".to_string();
    match (exp, args) {
        (Exp::BinOp(op, t, _, _), [a, b]) => {
            let typed = match t {
                PrimType::Int(it) => by_int_type!(it, int_cols, *op, a, b, n),
                PrimType::Float(FloatType::F32) => float_cols::<f32>(*op, a, b, n),
                PrimType::Float(FloatType::F64) => float_cols::<f64>(*op, a, b, n),
                PrimType::Float(FloatType::F16) | PrimType::Bool => None,
            };
            let r = match typed {
                Some(r) => r,
                None => boxed(&[a, b], n, *t, |v| prim_ops::binop(*op, v[0], v[1])),
            };
            r.map_err(|m| if m.is_empty() { undefined(op, *t) } else { m })
        }
        (Exp::Cmp(op, t, _, _), [a, b]) => {
            let typed = match t {
                PrimType::Int(IntType::I32) => cmp_cols::<i32>(*op, a, b, n),
                PrimType::Int(IntType::I64) => cmp_cols::<i64>(*op, a, b, n),
                PrimType::Float(FloatType::F32) => cmp_cols::<f32>(*op, a, b, n),
                PrimType::Float(FloatType::F64) => cmp_cols::<f64>(*op, a, b, n),
                _ => None,
            };
            match typed {
                Some(d) => Ok(d),
                None => boxed(&[a, b], n, PrimType::Bool, |v| {
                    prim_ops::cmp(*op, v[0], v[1]).map(PrimValue::Bool)
                }),
            }
        }
        (Exp::UnOp(op, t, _), [a]) => {
            let typed = match t {
                PrimType::Int(it) => by_int_type!(it, unop_int, *op, a, n),
                PrimType::Float(FloatType::F32) => unop_float::<f32>(*op, a, n),
                PrimType::Float(FloatType::F64) => unop_float::<f64>(*op, a, n),
                _ => None,
            };
            match typed {
                Some(d) => Ok(d),
                None => boxed(&[a], n, *t, |v| prim_ops::unop(*op, v[0])),
            }
        }
        (Exp::Convert { from, to, .. }, [a]) => {
            boxed(&[a], n, *to, |v| prim_ops::convert(*from, *to, v[0]))
        }
        (Exp::Math(f, _, _), args) => {
            let refs: Vec<&Col> = args.iter().collect();
            boxed(&refs, n, out, |v| prim_ops::math(*f, v))
        }
        (Exp::Select(..), [c, a, b]) => boxed(&[c, a, b], n, out, |v| match v[0] {
            PrimValue::Bool(true) => Ok(v[1]),
            PrimValue::Bool(false) => Ok(v[2]),
            p => Err(format!("internal error: {} where a bool is expected", p.ty())),
        }),
        (Exp::Atom(_), [a]) => boxed(&[a], n, out, |v| Ok(v[0])),
        _ => Err(mismatch()),
    }
}

/// The operands of a scalar statement, or `None` for any other statement.
fn operands(exp: &Exp) -> Option<Vec<&Atom>> {
    Some(match exp {
        Exp::Atom(a) | Exp::UnOp(_, _, a) | Exp::Convert { arg: a, .. } => vec![a],
        Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => vec![a, b],
        Exp::Select(c, a, b) => vec![c, a, b],
        Exp::Math(_, _, args) => args.iter().collect(),
        _ => return None,
    })
}

/// Whether `lam` is scalar code: scalar parameters and results, one scalar variable per
/// statement, scalar statements only.
fn scalar_code(lam: &Lambda) -> bool {
    let scalar = |t: &Type| matches!(t, Type::Prim(_));
    lam.params.iter().all(|p| scalar(&p.ty))
        && lam.ret.iter().all(scalar)
        && lam
            .body
            .stms
            .iter()
            .all(|s| s.pat.len() == 1 && scalar(&s.pat[0].ty) && operands(&s.exp).is_some())
}

/// Fold `xs` into `acc` with a typed operator, keeping the intermediate values for a scan.
fn fold_typed<T: Elem>(
    xs: &[T],
    acc: T,
    scan: bool,
    f: impl Fn(T, T) -> Result<T, String>,
) -> Result<(PrimValue, Option<Data>), String> {
    let mut acc = acc;
    let mut out = if scan { Vec::with_capacity(xs.len()) } else { Vec::new() };
    for &x in xs {
        acc = f(acc, x)?;
        if scan {
            out.push(acc);
        }
    }
    Ok((acc.prim(), scan.then(|| T::data(out))))
}

fn fold_int<T: Int + Elem>(
    op: BinOp,
    left: bool,
    d: &Data,
    r: std::ops::Range<usize>,
    acc: PrimValue,
    scan: bool,
) -> Option<Result<(PrimValue, Option<Data>), String>> {
    let xs = T::slice(d)?.get(r)?;
    let acc = T::from_prim(acc)?;
    Some(fold_typed(
        xs,
        acc,
        scan,
        |a, x| if left { int_binop(op, a, x) } else { int_binop(op, x, a) },
    ))
}

fn fold_float<F: Float + Elem>(
    op: BinOp,
    left: bool,
    d: &Data,
    r: std::ops::Range<usize>,
    acc: PrimValue,
    scan: bool,
) -> Option<Result<(PrimValue, Option<Data>), String>> {
    let xs = F::slice(d)?.get(r)?;
    let acc = F::from_prim(acc)?;
    let f = |a, x| if left { float_binop(op, a, x) } else { float_binop(op, x, a) };
    Some(fold_typed(xs, acc, scan, |a, x| f(a, x).ok_or_default()))
}

impl<'p> Interp<'p> {
    /// `map lam arrays` column-wise, if `lam` is scalar code over one-dimensional arrays and
    /// every free variable it uses is a scalar; `None` means "use the general path".
    #[inline(never)]
    pub(super) fn map_columns(
        &mut self,
        lam: &'p Lambda,
        arrays: &[Array],
        n: usize,
        span: Span,
    ) -> Res<Option<Vec<Val>>> {
        if !scalar_code(lam) || lam.params.len() != arrays.len() {
            return Ok(None);
        }
        let mut cols: Vec<(Var, Col)> = Vec::with_capacity(lam.params.len() + lam.body.stms.len());
        for (p, a) in lam.params.iter().zip(arrays) {
            let (d, r) = a.data();
            if a.shape().len() != 1 || d.elem() != p.ty.elem() {
                return Ok(None);
            }
            cols.push((p.var, Col::Part(d, r.start)));
        }
        // Temporary columns count against the allocation limit while they live.
        let mut tickets: Vec<Ticket> = Vec::new();
        for stm in &lam.body.stms {
            let Some(atoms) = operands(&stm.exp) else { return Ok(None) };
            let mut args = Vec::with_capacity(atoms.len());
            for a in atoms {
                match self.column_of(&cols, a, span)? {
                    Some(c) => args.push(c),
                    None => return Ok(None),
                }
            }
            let out = stm.pat[0].ty.elem();
            // Operands shared by every element give one shared result.
            let col = if args.iter().all(|c| matches!(c, Col::One(_))) {
                let d = column(&stm.exp, &args, 1, out).map_err(|m| err(stm.span, m))?;
                Col::One(d.get(0).ok_or_else(|| err(stm.span, "internal error: column"))?)
            } else {
                tickets.push(reserve(&self.meter, &[n as i64]).map_err(|m| err(stm.span, m))?.0);
                Col::Own(Rc::new(column(&stm.exp, &args, n, out).map_err(|m| err(stm.span, m))?))
            };
            if col.elem() != out {
                return Err(err(
                    stm.span,
                    format!(
                        "internal error: `{}` has type {}, but its declared type is {out}",
                        self.prog.name(stm.pat[0].var),
                        col.elem()
                    ),
                ));
            }
            cols.push((stm.pat[0].var, col));
        }
        self.count_steps(lam.body.stms.len() as u64 * n as u64, span)?;
        let mut out = Vec::with_capacity(lam.body.result.len());
        for (a, t) in lam.body.result.iter().zip(&lam.ret) {
            let Some(col) = self.column_of(&cols, a, span)? else { return Ok(None) };
            if col.elem() != t.elem() {
                return Err(err(
                    span,
                    "internal error: a result of an anonymous function has the wrong type",
                ));
            }
            let (ticket, _) = reserve(&self.meter, &[n as i64]).map_err(|m| err(span, m))?;
            let data = match col {
                Col::One(p) => Data::filled(p, n),
                Col::Part(d, off) => d.slice(off..off + n),
                Col::Own(d) => Rc::try_unwrap(d).unwrap_or_else(|d| (*d).clone()),
            };
            out.push(Val::Arr(Array::new(ticket, data, vec![n as i64])));
        }
        Ok(Some(out))
    }

    /// The column of an operand: a computed one, or a free scalar shared by every element.
    fn column_of<'c>(&self, cols: &[(Var, Col<'c>)], a: &Atom, span: Span) -> Res<Option<Col<'c>>> {
        match a {
            Atom::Const(p) => Ok(Some(Col::One(*p))),
            Atom::Var(v) => match cols.iter().rev().find(|(w, _)| w == v) {
                Some((_, c)) => Ok(Some(c.clone())),
                None => match self.read(*v, span)? {
                    Val::Prim(p) => Ok(Some(Col::One(*p))),
                    Val::Arr(_) => Ok(None),
                },
            },
        }
    }

    /// `reduce`/`scan` of one one-dimensional array with a single-operator function, typed;
    /// `None` means "use the general path". Returns the final value and, for a scan, every
    /// intermediate one.
    #[inline(never)]
    pub(super) fn fold_operator(
        &mut self,
        lam: &'p Lambda,
        neutral: &[Val],
        arrays: &[Array],
        scan: bool,
        span: Span,
    ) -> Res<Option<(Val, Option<Array>)>> {
        let (Some((op, t, left)), [Val::Prim(acc)], [a]) = (single_operator(lam), neutral, arrays)
        else {
            return Ok(None);
        };
        let (d, r) = a.data();
        if a.shape().len() != 1 || d.elem() != t || acc.ty() != t {
            return Ok(None);
        }
        let stm_span = lam.body.stms.first().map_or(span, |s| s.span);
        let n = r.len();
        let typed = match t {
            PrimType::Int(it) => by_int_type!(it, fold_int, op, left, d, r.clone(), *acc, scan),
            PrimType::Float(FloatType::F32) => {
                fold_float::<f32>(op, left, d, r.clone(), *acc, scan)
            }
            PrimType::Float(FloatType::F64) => {
                fold_float::<f64>(op, left, d, r.clone(), *acc, scan)
            }
            PrimType::Float(FloatType::F16) | PrimType::Bool => None,
        };
        let result = match typed {
            Some(res) => res,
            None => {
                // Boxed, for the remaining types.
                let mut acc = *acc;
                let mut out = Data::with_capacity(t, if scan { n } else { 0 });
                let mut res = Ok(());
                for i in r {
                    let Some(x) = d.get(i) else { break };
                    let next = if left {
                        prim_ops::binop(op, acc, x)
                    } else {
                        prim_ops::binop(op, x, acc)
                    };
                    match next {
                        Ok(v) => acc = v,
                        Err(m) => {
                            res = Err(m);
                            break;
                        }
                    }
                    if scan {
                        out.push(acc);
                    }
                }
                res.map(|()| (acc, scan.then_some(out)))
            }
        };
        let (acc, all) =
            result.map_err(|m| err(stm_span, if m.is_empty() { undefined(&op, t) } else { m }))?;
        self.count_steps(n as u64, span)?;
        let all = match all {
            Some(data) => {
                let (ticket, _) = reserve(&self.meter, &[n as i64]).map_err(|m| err(span, m))?;
                Some(Array::new(ticket, data, vec![n as i64]))
            }
            None => None,
        };
        Ok(Some((Val::Prim(acc), all)))
    }
}
