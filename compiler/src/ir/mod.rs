//! The core IR: first-order, monomorphic, A-normal form.
//!
//! * Tuples and records are flattened: a statement binds several variables, a body returns several
//!   values, and an array of tuples is a tuple of arrays.
//! * Every array type lists its shape as [`Dim`]s: constants or `i64` variables in scope, so shapes
//!   are computed before values (size slicing). A statement whose result size is not known in
//!   advance (filter-like code, an existential return) binds the size as an extra `i64` result first.
//! * Operands are [`Atom`]s (a variable or a constant); nested computation lives in [`Body`]s.
//! * Types are truthful: at run time, every array value has exactly the shape its type states.
//!   Where two sizes are equal only by the source type rules, lowering inserts an `Assert` (and a
//!   `Reshape` to the expected dims) rather than typing a value with another variable's size.
//!
//! The printer (`ir::print`) and the validator (`ir::validate`) are the reference for what each
//! construct means; the interpreter (`crate::interp`) gives it semantics.

use crate::diag::Span;
pub mod demote;
pub mod inplace;
pub mod lower;
pub mod operators;
pub mod print;
pub mod ranges;
pub mod validate;

use crate::prim::{FloatType, IntType, PrimType, PrimValue};

/// A variable, unique in the whole program. `Program::names` maps it back to a source-like name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// One dimension of an array type: a constant or an `i64` variable in scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Const(i64),
    Var(Var),
}

/// The type of an IR variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Prim(PrimType),
    /// Row-major array of primitives; `shape.len() >= 1`.
    Array {
        elem: PrimType,
        shape: Vec<Dim>,
    },
}

/// An operand: a variable or a constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Atom {
    Var(Var),
    Const(PrimValue),
}

impl Atom {
    /// The variable, if the atom is one.
    pub fn as_var(&self) -> Option<Var> {
        match self {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        }
    }
}

/// A variable binding with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: Var,
    pub ty: Type,
}

/// A sequence of statements and the values it returns.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Body {
    pub stms: Vec<Stm>,
    pub result: Vec<Atom>,
}

/// `let pat = exp`: binds each variable of `pat` to one result of `exp`.
///
/// Patterns are size-dependent: the type of a pattern element may mention `i64` variables bound by
/// earlier elements of the same pattern. That is how a statement returns a value whose size is only
/// known at run time (an existential size): `let (k: i64, ys: [k]f32) = if c then (n, xs) else
/// (m, zs)`. `If`, `Loop` and `Apply` return such sizes as ordinary leading values.
#[derive(Clone, Debug, PartialEq)]
pub struct Stm {
    pub pat: Vec<Param>,
    pub exp: Exp,
    /// Where in the source this computation comes from (for run-time errors).
    pub span: Span,
}

/// An anonymous function, used by SOACs (map, reduce, scan, hist); never a value. The dims of
/// `ret` should not name variables bound inside the body: for a `map` of width 0 they give the
/// element shape of the (empty) result, and the function never runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub params: Vec<Param>,
    pub body: Body,
    pub ret: Vec<Type>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not on `bool`, bitwise complement on integers.
    Not,
    Abs,
    Sgn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Integers: flooring division (Futhark `/`); floats: IEEE division.
    Div,
    /// Integers: flooring modulo (Futhark `%`, sign of the divisor); floats: `fmod`-style with floor.
    Mod,
    /// Truncating division (Futhark `//`).
    Quot,
    /// Truncating remainder (Futhark `%%`).
    Rem,
    /// Integers: exponentiation by squaring, wrapping; a negative exponent is a run-time error.
    Pow,
    /// Floats: if one operand is NaN, the other.
    Min,
    Max,
    And,
    Or,
    Xor,
    /// The amount is read as an unsigned number of the operand's width; amounts of at least the
    /// width shift every bit out (as Futhark's interpreter does).
    Shl,
    /// Arithmetic shift for signed types, logical for unsigned. Amounts as for `Shl` (a negative
    /// signed value shifted by the width or more gives -1).
    Shr,
    LogAnd,
    LogOr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Elementary functions on floats (and a few on integers), named as in Futhark's numeric modules.
///
/// In `Exp::Math(f, t, args)`, `t` is the type of the arguments (for `ToBits` and `FromBits`, the
/// float type). The result has type `t`, except:
/// `IsNan`/`IsInf` give `bool`, `ToBits` the unsigned integer of the float's width, `FromBits`
/// the float of the integer's width, `Clz`/`Ctz`/`Popc` an `i32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Exp,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Cbrt,
    Log1p,
    Asinh,
    Acosh,
    Atanh,
    Hypot,
    Floor,
    Ceil,
    Round,
    Trunc,
    IsNan,
    IsInf,
    /// `copysign(x, y)`: the magnitude of `x` with the sign of `y`.
    CopySign,
    /// `fma(a, b, c) = a*b + c`.
    Fma,
    /// `f32.to_bits` and friends: reinterpret as the unsigned integer of the same width. As for
    /// `FromBits`, the `PrimType` of the `Math` expression is the float type.
    ToBits,
    /// `f32.from_bits`: the argument is the unsigned integer of the float's width.
    FromBits,
    /// Count leading zeros, trailing zeros, population count (integers; result `i32`).
    Clz,
    Ctz,
    Popc,
}

impl MathFn {
    /// The type of `Exp::Math(self, t, ..)` (see the rules above).
    pub fn result(self, t: PrimType) -> PrimType {
        match (self, t) {
            (MathFn::IsNan | MathFn::IsInf, _) => PrimType::Bool,
            (MathFn::Clz | MathFn::Ctz | MathFn::Popc, _) => PrimType::I32,
            (MathFn::ToBits, PrimType::Float(ft)) => PrimType::Int(match ft {
                FloatType::F16 => IntType::U16,
                FloatType::F32 => IntType::U32,
                FloatType::F64 => IntType::U64,
            }),
            _ => t,
        }
    }
}

/// One index position of `Index`/`Update`.
#[derive(Clone, Debug, PartialEq)]
pub enum DimIndex {
    Fix(Atom),
    /// `start`, number of elements `len`, `stride`: elements `start + k*stride` for `k < len`.
    /// Lowering computes `len` from Futhark's `i:j:s` syntax so the result shape is explicit.
    /// In bounds when `len == 0` (whatever `start`), or when the first and last elements are
    /// inside the dimension; a negative `len` is out of bounds.
    Slice {
        start: Atom,
        len: Atom,
        stride: Atom,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < bound` (`i` has the bound's integer type).
    For { i: Var, it: IntType, bound: Atom },
    /// `while cond`, where `cond` is one of the loop parameters (a `bool`).
    While(Var),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    /// Copy of an atom (also how constants are bound).
    Atom(Atom),
    UnOp(UnOp, PrimType, Atom),
    BinOp(BinOp, PrimType, Atom, Atom),
    /// Compares two values of the given type, giving `bool`.
    Cmp(CmpOp, PrimType, Atom, Atom),
    /// Conversion between primitive types with Futhark's rules (float→int truncates, saturation is
    /// not performed; int→int wraps; bool↔number is 0/1).
    Convert {
        from: PrimType,
        to: PrimType,
        arg: Atom,
    },
    Math(MathFn, PrimType, Vec<Atom>),
    /// `if c then a else b` on scalars without evaluating the other side's body: see `If`. This is
    /// the branch-free select.
    Select(Atom, Atom, Atom),
    /// Index (and slice) an array; a full index of all dimensions gives a scalar.
    Index {
        arr: Var,
        idx: Vec<DimIndex>,
    },
    /// Copy of `arr` with the indexed element/slice replaced by `value` (in place when `arr` is not
    /// used afterwards: the validator checks the consumption rule).
    Update {
        arr: Var,
        idx: Vec<DimIndex>,
        value: Atom,
    },
    /// `[start, start+step, ...]` of length `n`.
    Iota {
        n: Atom,
        start: Atom,
        step: Atom,
        it: IntType,
    },
    /// An array of shape `shape` filled with `value` (a scalar or an array, which adds its own dims).
    Replicate {
        shape: Vec<Dim>,
        value: Atom,
    },
    /// Permute the dimensions: result dim `i` is input dim `perm[i]`.
    Rearrange {
        arr: Var,
        perm: Vec<usize>,
    },
    /// Same elements, new shape (product must match: checked at run time).
    Reshape {
        arr: Var,
        shape: Vec<Dim>,
    },
    /// Concatenate along dimension `axis`; the result's size along it is `len`.
    Concat {
        axis: usize,
        arrs: Vec<Var>,
        len: Dim,
    },
    /// `[a, b, c]` with elements of type `elem_ty` (scalars or arrays of equal shape).
    ArrayLit {
        elems: Vec<Atom>,
        elem_ty: Type,
    },
    /// A fresh copy of an array.
    Copy(Var),
    /// Call of a (monomorphic, first-order) function by index into `Program::funs`.
    Apply {
        fun: usize,
        args: Vec<Atom>,
    },
    /// `ret` is the statement's pattern types: a dim may name an `i64` bound earlier in the same
    /// pattern, which each branch then returns as a leading value (an existential size).
    If {
        cond: Atom,
        then_body: Body,
        else_body: Body,
        ret: Vec<Type>,
    },
    /// `loop params = inits for/while ... do body`; body returns the new parameter values.
    /// Parameter types may name earlier `i64` parameters (sizes that change between iterations);
    /// the statement's pattern has the parameters' types with those names replaced by the pattern's.
    Loop {
        params: Vec<(Param, Atom)>,
        form: LoopForm,
        body: Body,
    },
    /// Apply `lam` to the elements of `arrs` (all of outer size `w`); results are arrays `[w]...`.
    Map {
        w: Atom,
        lam: Lambda,
        arrs: Vec<Var>,
    },
    /// Tree reduction with an associative `lam` (2k params for k values) and neutral elements.
    Reduce {
        w: Atom,
        lam: Lambda,
        neutral: Vec<Atom>,
        arrs: Vec<Var>,
        commutative: bool,
    },
    /// Inclusive scan.
    Scan {
        w: Atom,
        lam: Lambda,
        neutral: Vec<Atom>,
        arrs: Vec<Var>,
    },
    /// Write `vals[j]` to `dest[idx[j]]` for every in-bounds `idx[j]` (out-of-bounds writes are
    /// ignored, as in Futhark). `idx` has one i64 array per destination rank (`scatter_2d`); with
    /// fewer index arrays than `dest` has dimensions, `vals[j]` is a whole row. Of duplicate
    /// in-bounds indices the last write wins in the interpreter (unspecified in Futhark).
    Scatter {
        dest: Var,
        idx: Vec<Var>,
        vals: Var,
        w: Atom,
    },
    /// Generalised histogram: `dest[is[j]] = lam(dest[is[j]], vs[j])`, ignoring out-of-bounds bins.
    /// `neutral` is `lam`'s neutral element (for parallel implementations; folding in index
    /// order, as the interpreter does, never needs it).
    Hist {
        dest: Vec<Var>,
        lam: Lambda,
        neutral: Vec<Atom>,
        is: Var,
        vs: Vec<Var>,
        w: Atom,
    },
    /// Fail with `msg` at the statement's span unless `cond` holds. Each `{}` in `msg` is replaced
    /// by the value of the corresponding atom in `vals`, so size checks can name both sizes
    /// ("`zip`: arrays of lengths {} and {} differ"). Binds nothing.
    Assert {
        cond: Atom,
        msg: String,
        vals: Vec<Atom>,
    },
    /// Differentiate `lam` at `args` (what lowering emits for `jvp`/`vjp`/`jvp2`/`vjp2`).
    /// `ad::differentiate` replaces every one by ordinary IR before anything runs it, so the
    /// interpreter and the backends never see it. Results: `lam`'s results, then for
    /// [`AdMode::Jvp`] their tangents in the direction `seeds` (one per parameter), for
    /// [`AdMode::Vjp`] the adjoints of the parameters for the result adjoints `seeds` (one per
    /// result). Non-float tangents and adjoints are zero.
    Ad {
        mode: AdMode,
        lam: Lambda,
        args: Vec<Atom>,
        seeds: Vec<Atom>,
    },
}

/// Which derivative an [`Exp::Ad`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdMode {
    /// Forward mode: a Jacobian-vector product.
    Jvp,
    /// Reverse mode: a vector-Jacobian product.
    Vjp,
}

/// A first-order, monomorphic function.
#[derive(Clone, Debug, PartialEq)]
pub struct FunDef {
    /// For printing: the source name, with a suffix for each monomorphic instance.
    pub name: String,
    pub params: Vec<Param>,
    /// Result types may mention `params` (in their dims) and the `existentials`, which the body
    /// returns first, before the values. `ret[..existentials]` are `i64`; a later result type
    /// names an existential by the variable the body returns at that position
    /// (`body.result[j]`, always a variable). At a call, the statement's pattern binds the
    /// existentials first, and its types name those pattern variables instead.
    pub existentials: usize,
    pub ret: Vec<Type>,
    pub body: Body,
    pub span: Span,
}

/// The user-facing type of one entry-point parameter or result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryType {
    pub elem: PrimType,
    pub rank: usize,
    pub unique: bool,
    /// How the type was written in source, for messages (`[n][m]f32`).
    pub display: String,
}

/// How a source-level entry parameter or result is made of the [`EntryType`] values it is passed
/// as, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryShape {
    /// One value: a primitive or an array of primitives.
    Leaf,
    Tuple(Vec<EntryShape>),
    /// Fields in name order.
    Record(Vec<(String, EntryShape)>),
    /// An array of this rank whose elements are tuples or records: one array per leaf of the
    /// element, with the array's dimensions outermost.
    Array(usize, Box<EntryShape>),
    /// A value of a sum type: the constructor's index (`i8`, constructors in name order), then
    /// every constructor's payload in that order (the inactive ones any values of their types).
    Sum(Vec<(String, Vec<EntryShape>)>),
}

impl EntryShape {
    /// Does a sum type occur in it?
    pub fn has_sum(&self) -> bool {
        match self {
            EntryShape::Leaf => false,
            EntryShape::Tuple(ss) => ss.iter().any(EntryShape::has_sum),
            EntryShape::Record(fs) => fs.iter().any(|(_, s)| s.has_sum()),
            EntryShape::Array(_, s) => s.has_sum(),
            EntryShape::Sum(_) => true,
        }
    }

    /// How many values this is passed as.
    pub fn leaves(&self) -> usize {
        match self {
            EntryShape::Leaf => 1,
            EntryShape::Tuple(ss) => ss.iter().map(EntryShape::leaves).sum(),
            EntryShape::Record(fs) => fs.iter().map(|(_, s)| s.leaves()).sum(),
            EntryShape::Array(_, s) => s.leaves(),
            EntryShape::Sum(cs) => {
                1 + cs.iter().flat_map(|(_, ps)| ps).map(EntryShape::leaves).sum::<usize>()
            }
        }
    }

    /// `n` values as a result: one leaf, or a tuple of them.
    pub fn flat_result(n: usize) -> EntryShape {
        if n == 1 {
            EntryShape::Leaf
        } else {
            EntryShape::Tuple(vec![EntryShape::Leaf; n])
        }
    }
}

/// An entry point: how values from outside map onto a function's flattened parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryPoint {
    pub name: String,
    /// Index into `Program::funs`. Its parameters are the entry's array sizes first (one `i64` per
    /// dimension of each array parameter, in order), then the flattened values.
    pub fun: usize,
    pub params: Vec<EntryType>,
    /// The function's results after its `existentials` (which are not returned to the caller).
    pub results: Vec<EntryType>,
    /// The source-level parameters, each made of consecutive `params`.
    pub param_shapes: Vec<EntryShape>,
    /// The source-level result, made of the `results`.
    pub result_shape: EntryShape,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub funs: Vec<FunDef>,
    pub entries: Vec<EntryPoint>,
    /// Display name of each `Var`, by index.
    pub names: Vec<String>,
}

impl Program {
    pub fn name(&self, v: Var) -> &str {
        self.names.get(v.0 as usize).map_or("?", |s| s.as_str())
    }

    pub fn entry(&self, name: &str) -> Option<&EntryPoint> {
        self.entries.iter().find(|e| e.name == name)
    }
}

impl Type {
    pub fn elem(&self) -> PrimType {
        match self {
            Type::Prim(p) => *p,
            Type::Array { elem, .. } => *elem,
        }
    }

    pub fn rank(&self) -> usize {
        match self {
            Type::Prim(_) => 0,
            Type::Array { shape, .. } => shape.len(),
        }
    }
}

/// The error for a call of an entry point that does not exist, listing those that do.
/// Every backend and the interpreter report it alike.
pub fn unknown_entry<'a>(entry: &str, names: impl Iterator<Item = &'a str>) -> crate::Diagnostic {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    let d = crate::Diagnostic::new(
        crate::diag::Phase::Value,
        Span::DUMMY,
        format!("unknown entry point `{entry}`"),
    );
    if names.is_empty() {
        d.with_hint("the program has no entry points (declare one with `entry`)")
    } else {
        d.with_hint(format!("entry points: {}", names.join(", ")))
    }
}

/// What checking an entry point's arguments needs of one: its element type and shape (`[]` for a
/// scalar). Values implement it, and so do the packed arrays that backends' hosts pass around.
pub trait ArgShape {
    fn elem_type(&self) -> PrimType;
    fn shape(&self) -> &[i64];
}

impl ArgShape for crate::value::Value {
    fn elem_type(&self) -> PrimType {
        crate::value::Value::elem_type(self)
    }

    fn shape(&self) -> &[i64] {
        match self {
            crate::value::Value::Prim(_) => &[],
            crate::value::Value::Array(a) => &a.shape,
        }
    }
}

/// Check that `args` fit an entry point's parameters (count, element types and ranks), with the
/// messages every executor gives.
pub fn check_entry_args<A: ArgShape>(
    entry: &str,
    params: &[EntryType],
    span: Span,
    args: &[A],
) -> Result<(), crate::Diagnostic> {
    let value_err = |msg: String| crate::Diagnostic::new(crate::diag::Phase::Value, span, msg);
    if args.len() != params.len() {
        return Err(value_err(format!(
            "`{entry}` takes {} argument{}, but {} {} given",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { "was" } else { "were" }
        )));
    }
    for (k, (a, t)) in args.iter().zip(params).enumerate() {
        if a.elem_type() != t.elem || a.shape().len() != t.rank {
            let dims: String = a.shape().iter().map(|d| format!("[{d}]")).collect();
            return Err(value_err(format!(
                "argument {} of `{entry}`: expected `{}`, got `{dims}{}`",
                k + 1,
                t.display,
                a.elem_type()
            )));
        }
    }
    Ok(())
}
