//! The constraints that constraint generation records and the solver discharges, in order.
//!
//! Every constraint carries the span it is about and a [`Reason`] that says, in an error message,
//! why the types had to agree. The list is a plain value: rank analysis (AUTOMAP) will extend it
//! with rank variables, and `ogham show` can print it.

use std::fmt;

use crate::diag::Span;
use crate::syntax::ast::{Name, NodeId};

use super::ity::{Dim, PrimSet, TVar, Ty};
use super::poly::write_size;

#[derive(Clone, Debug)]
pub(crate) struct Constraint {
    pub kind: Kind,
    /// The expression or pattern the constraint is about (the primary span of its errors).
    pub span: Span,
    pub reason: Reason,
}

/// What a size given to a dependent parameter (`(n: i64) -> [n]t`) is, syntactically.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ArgSize {
    /// A variable in scope: the result's size is that variable.
    Var(Name),
    /// An integer literal.
    Const(i64),
    /// Arithmetic on variables and literals (`n+1`): the result's size is that size.
    Expr(Dim),
    /// Anything else: the size is a fresh existential.
    Other,
}

/// One application `f a` in a spine `f a1 .. an`.
#[derive(Clone, Debug)]
pub(crate) struct ApplyInfo {
    /// The applied function, when it is a variable (for messages).
    pub callee: Option<Name>,
    /// 0-based position of the argument in the spine.
    pub index: usize,
    pub fun_span: Span,
    pub arg_span: Span,
    /// The argument's source text when it is a variable (for messages).
    pub arg_name: Option<Name>,
    pub arg_size: ArgSize,
    /// The callee is `copy`, whose result (`*t`) never aliases its argument.
    pub fresh: bool,
    /// The `Apply` node (or operator node), for the alias analysis.
    pub node: NodeId,
}

/// The size of one dimension of a slice `a[i:j:s]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SliceSize {
    /// `a[:]`: the whole dimension.
    Whole,
    /// `a[:k]`, `a[0:k]`: a known size.
    Known(Dim),
    /// `a[i:j]` (`j` the dimension when absent) with bounds that are sizes (`n-1`, `i+1`): the
    /// size `j - i`, as in Futhark; the key is for a bound that names a variable whose name is
    /// bound again in the definition.
    Span { start: Dim, end: Option<Dim>, key: Option<SliceKey> },
    /// A stride and bounds that are constants and variables: the same size as every slice of
    /// a dimension of the same size with the same bounds and stride (`xs[i:n:2]` twice).
    Keyed(SliceKey),
    /// Anything else: a fresh existential.
    Unknown,
}

/// The bounds of a slice `a[start:end:stride]`, each absent, an integer constant, a local
/// binding (`Local::id`, so a name bound again is another key), or sums, differences and
/// products of those.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SliceKey(pub [Bound; 3]);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Bound {
    Absent,
    Const(i128),
    Local(u32),
    /// `a + b`, `a - b` or `a * b` of bounds (`xs[:i+1]`), as written.
    Op(char, Box<Bound>, Box<Bound>),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IndexDim {
    Fix,
    Slice(SliceSize),
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// The two types are equal (`found` is the type of the constraint's expression).
    Eq { expected: Ty, found: Ty },
    /// The types are equal except for their sizes (`e :> t`); `found`'s sizes still unknown that
    /// its expression made (size variables numbered from `inner`) become `expected`'s, as the
    /// sizes of `unflatten xs :> [2][2]t` do.
    EqShape { expected: Ty, found: Ty, inner: u32 },
    /// The type is one of these primitive types (overloaded operators and literals).
    Prim { ty: Ty, set: PrimSet },
    /// The type contains no functions (`==`, array elements, unlifted type parameters).
    NoFun { ty: Ty, what: &'static str },
    /// `record.field : ty` (deferred until the record's type is known).
    Field { record: Ty, field: Name, ty: Ty },
    /// `#name args : ty` (deferred until the sum type is known).
    Constr { ty: Ty, name: Name, args: Vec<Ty> },
    /// One application: `fun` applied to `arg` gives `result`.
    Apply { fun: Ty, arg: Ty, result: Ty, info: ApplyInfo },
    /// `arr[dims] : result`.
    Index { arr: Ty, dims: Vec<IndexDim>, result: Ty },
    /// The branches of an `if` or `match`: equal types, except that differing sizes become a fresh
    /// existential in `result`.
    Join { branches: Vec<(Ty, Span)>, result: Ty },
    /// Leaving the scope of `names`: sizes of `ty` that mention them become existential in `result`.
    Escape { ty: Ty, names: Vec<Name>, result: Ty },
    /// Before a loop body: the parameter has the shape of the initial value, with sizes to be found.
    LoopParam { param: Ty, init: Ty },
    /// After a loop body: sizes of the parameter that change across iterations become existential.
    LoopResult { param: Ty, init: Ty, body: Ty },
    /// `let [n] p = e`: the pattern's sizes named in `names` are bound from the value's sizes.
    BindSizes { pat: Ty, rhs: Ty, names: Vec<Name> },
    /// `0..<n`: the range has size `n` if `n` is an `i64`, else an existential.
    RangeSize { elem: Ty, name: Name, dim: Dim },
    /// `a[i:j] = v`: `v` has the type of the part of `a` it replaces; where either size is known
    /// only at run time (`a[0:k] = b[i:i+k]`), they are compared there (lowering checks them).
    UpdateValue { slot: Ty, value: Ty },
    /// `unflatten` at `[p]t -> [n][m]t`: when only one of the result's sizes is not known once
    /// everything else is solved, it is `p` divided by the others, if that divides exactly
    /// (`unflatten (iota (n*m)) : [n][]i64` is `[n][m]`).
    FactorSizes { ty: Ty, k: usize },
    /// A use of a local function with size or type parameters: instantiate them afresh.
    InstSizes { ty: Ty, sizes: Vec<Name>, tvars: Vec<TVar>, result: Ty },
}

/// Why a constraint exists, for error messages.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Reason {
    None,
    /// The operand of a binary operator; the span is the other operand.
    Operand {
        op: Name,
        other: Span,
    },
    /// The operand of a prefix operator or a section.
    Operator {
        op: Name,
    },
    /// A type annotation at this span.
    Ascription(Span),
    /// A declared return type at this span.
    Return(Span),
    /// An `if` condition.
    Cond,
    /// A branch of an `if`/`match`; the span is the first branch.
    Branch {
        first: Span,
        what: &'static str,
    },
    /// An element of an array literal; the span is the first element.
    Element {
        first: Span,
    },
    /// Array indices and slice bounds.
    IndexValue,
    /// A range's bounds.
    RangeBound {
        first: Span,
    },
    /// A pattern with an annotation or literal.
    Pattern,
    /// The bound of a `for` loop.
    LoopBound,
    /// `while` conditions.
    WhileCond,
    /// A loop's body result against its parameter (span: the parameter).
    LoopBody(Span),
    /// A loop's initial value against its parameter (span: the parameter).
    LoopInit(Span),
    /// The value written by an in-place update.
    UpdateValue,
    /// A size used as a value must be `i64` (span: where it is used in a type).
    SizeVar(Span),
    /// An assertion's condition.
    Assert,
}

impl Reason {
    /// A secondary label (span and text) and hints; `expected` is the expected type as shown in the
    /// message (quoted) or a description such as "a numeric type".
    pub fn explain(&self, expected: &str) -> (Option<(Span, String)>, Vec<String>) {
        let e = expected;
        // "has type `i32`", or "has a numeric type" for a class.
        let has = if e.starts_with('`') { format!("has type {e}") } else { format!("has {e}") };
        match self {
            Reason::None | Reason::Pattern => (None, vec![]),
            Reason::Operand { op, other } => (
                Some((*other, format!("the other operand of `{op}` {has}"))),
                vec![format!("both operands of `{op}` must have the same type")],
            ),
            Reason::Operator { op } => (None, vec![format!("`{op}` requires {e} here")]),
            Reason::Ascription(s) => (Some((*s, format!("the annotation requires {e}"))), vec![]),
            Reason::Return(s) => (Some((*s, format!("the return type is declared {e}"))), vec![]),
            Reason::Cond => (None, vec!["the condition of an `if` must be a `bool`".into()]),
            Reason::Branch { first, what } => (Some((*first, format!("the {what} {has}"))), vec![]),
            Reason::Element { first } => (
                Some((*first, format!("the first element {has}"))),
                vec!["all elements of an array must have the same type".into()],
            ),
            Reason::IndexValue => {
                (None, vec!["an index is a signed integer (`i64` in a slice)".into()])
            }
            Reason::RangeBound { first } => {
                (Some((*first, format!("the start of the range {has}"))), vec![])
            }
            Reason::LoopBound => (None, vec![]),
            Reason::WhileCond => {
                (None, vec!["the condition of a `while` loop must be a `bool`".into()])
            }
            Reason::LoopBody(s) => (
                Some((*s, format!("the loop parameter {has}"))),
                vec!["the loop body must return a value of the loop parameter's type".into()],
            ),
            Reason::LoopInit(s) => (Some((*s, format!("the loop parameter {has}"))), vec![]),
            Reason::UpdateValue => (None, vec![]),
            Reason::SizeVar(s) => (
                Some((*s, "used as a size here".to_string())),
                vec!["sizes are `i64` values".into()],
            ),
            Reason::Assert => (None, vec!["the condition of `assert` must be a `bool`".into()]),
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_size(self, f, &mut |a, f| match a {
            Dim::Name(n) => f.write_str(n),
            Dim::Var(v) => write!(f, "?d{v}"),
            _ => Ok(()),
        })
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Prim(p) => write!(f, "{p}"),
            Ty::Var(v) => write!(f, "?t{v}"),
            Ty::Gen(i) => write!(f, "'g{i}"),
            Ty::Err => f.write_str("<error>"),
            Ty::Array { dim, elem, unique } => {
                write!(f, "{}[{dim}]{elem}", if *unique { "*" } else { "" })
            }
            Ty::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    write!(f, "{}{t}", if i > 0 { ", " } else { "" })?;
                }
                f.write_str(")")
            }
            Ty::Record(fs) => {
                f.write_str("{")?;
                for (i, (n, t)) in fs.iter().enumerate() {
                    write!(f, "{}{n}: {t}", if i > 0 { ", " } else { "" })?;
                }
                f.write_str("}")
            }
            Ty::Sum(cs) => {
                f.write_str("(")?;
                for (i, (c, ts)) in cs.iter().enumerate() {
                    write!(f, "{}#{c}", if i > 0 { " | " } else { "" })?;
                    for t in ts {
                        write!(f, " {t}")?;
                    }
                }
                f.write_str(")")
            }
            Ty::Arrow { param: Some(p), from, to } => write!(f, "(({p}: {from}) -> {to})"),
            Ty::Arrow { param: None, from, to } => write!(f, "({from} -> {to})"),
        }
    }
}

impl fmt::Display for Constraint {
    /// One line per constraint, for debugging and `ogham show constraints`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = format!("@{}..{}", self.span.start, self.span.end);
        match &self.kind {
            Kind::Eq { expected, found } => write!(f, "{expected} = {found} {at}"),
            Kind::EqShape { expected, found, .. } => write!(f, "{expected} ~ {found} {at}"),
            Kind::Prim { ty, set } => write!(f, "{ty} in {} {at}", set.describe()),
            Kind::NoFun { ty, what } => write!(f, "{ty} has no functions ({what}) {at}"),
            Kind::Field { record, field, ty } => write!(f, "{record}.{field} = {ty} {at}"),
            Kind::Constr { ty, name, args } => {
                write!(f, "#{name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, " : {ty} {at}")
            }
            Kind::Apply { fun, arg, result, info } => {
                write!(f, "{fun} applied to {arg} = {result} (arg {}) {at}", info.index)
            }
            Kind::Index { arr, dims, result } => {
                write!(f, "{arr}[{}] = {result} {at}", dims.len())
            }
            Kind::Join { branches, result } => {
                write!(f, "join(")?;
                for (i, (t, _)) in branches.iter().enumerate() {
                    write!(f, "{}{t}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, ") = {result} {at}")
            }
            Kind::Escape { ty, names, result } => {
                write!(f, "{ty} leaving scope of {} = {result} {at}", names.join(" "))
            }
            Kind::LoopParam { param, init } => write!(f, "loop {param} from {init} {at}"),
            Kind::LoopResult { param, init, body } => {
                write!(f, "loop {param} from {init} returns {body} {at}")
            }
            Kind::BindSizes { pat, rhs, names } => {
                write!(f, "let [{}] {pat} = {rhs} {at}", names.join("] ["))
            }
            Kind::RangeSize { elem, name, dim } => write!(f, "{dim} = {name} if {elem} = i64 {at}"),
            Kind::UpdateValue { slot, value } => write!(f, "{slot} = {value} updated {at}"),
            Kind::FactorSizes { ty, k } => write!(f, "factor {k} sizes of {ty} {at}"),
            Kind::InstSizes { ty, sizes, tvars, result } => {
                let ts: String = tvars.iter().map(|v| format!(" 't{v}")).collect();
                write!(f, "{result} instance of [{}]{ts} {ty} {at}", sizes.join("] ["))
            }
        }
    }
}
