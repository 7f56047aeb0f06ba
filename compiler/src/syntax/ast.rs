//! The abstract syntax tree of the Futhark dialect Ogham accepts.
//!
//! Every expression and pattern carries a [`Span`] and a [`NodeId`]; the checker records the type of
//! each node in a side table keyed by that id (see `types::CheckedProgram`), so the tree stays a plain
//! value that the parser, the pretty-printer and elaboration can build and compare.
//!
//! Names are plain strings. A qualified name such as `f32.sqrt` is one `Name` containing a dot: the
//! parser produces one only for the built-in numeric modules (`i8`..`u64`, `f16`..`f64`, `bool`), so
//! `x.f` on anything else is a field projection.

use crate::diag::Span;
use crate::prim::{FloatType, IntType, PrimType};

pub type Name = String;

/// Identifies one expression or pattern node within a program. Assigned by the parser from a counter
/// (unique within one `Program`); nodes created later (elaboration) take fresh ids above
/// `Program::next_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId(pub u32);

/// Trees compare with `==` including spans and ids; `syntax::strip` normalises those first.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub decs: Vec<Dec>,
    /// One more than the largest `NodeId` in the tree.
    pub next_id: u32,
    /// The declarations that a parametric module's application emitted (by name), with where
    /// it was applied: errors in them say which application they come from.
    pub instances: std::collections::BTreeMap<Name, Instance>,
}

/// Where a declaration emitted from a parametric module's body came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The parametric module, as declared (`F`, `M.F`).
    pub functor: Name,
    /// The application (`F X`).
    pub at: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Dec {
    /// `def`, `entry` (and top-level `let`, which Futhark treats as `def`).
    Val(ValDec),
    /// `type`, `type^`, `type~`.
    Type(TypeDec),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Liftedness {
    /// `'a` / `type`: may be instantiated only with non-functional, non-existentially-sized types.
    Unlifted,
    /// `'~a` / `type~`: may hide sizes.
    SizeLifted,
    /// `'^a` / `type^`: may be instantiated with functions.
    Lifted,
}

/// `[n]` (a size parameter) or `'a` / `'~a` / `'^a` (a type parameter).
#[derive(Clone, Debug, PartialEq)]
pub enum TypeParam {
    Size { name: Name, span: Span },
    Type { name: Name, liftedness: Liftedness, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValDec {
    pub entry: bool,
    pub name: Name,
    pub name_span: Span,
    pub type_params: Vec<TypeParam>,
    pub params: Vec<Pat>,
    pub ret: Option<TypeExp>,
    pub body: Expr,
    /// The `-- ` comment lines directly above the declaration, if any (without the `--`).
    pub doc: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeDec {
    pub liftedness: Liftedness,
    pub name: Name,
    pub params: Vec<TypeParam>,
    pub def: TypeExp,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Type expressions (as written in source)

#[derive(Clone, Debug, PartialEq)]
pub struct TypeExp {
    pub kind: TypeExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpKind {
    Prim(PrimType),
    /// A type abbreviation or type parameter, with arguments: `t`, `vec [n] f32`, `pair i32 f32`.
    Named(Name, Vec<TypeArg>),
    /// `[d]t`.
    Array(SizeExp, Box<TypeExp>),
    /// `(t1, t2, ...)`; the empty tuple is `()`.
    Tuple(Vec<TypeExp>),
    /// `{f1: t1, f2: t2}` in source order.
    Record(Vec<(Name, TypeExp)>),
    /// `t1 -> t2` or `(x: t1) -> t2` (a named parameter whose value sizes may refer to).
    Arrow(Option<Name>, Box<TypeExp>, Box<TypeExp>),
    /// `*t`.
    Unique(Box<TypeExp>),
    /// `?[n][m].t`.
    Exists(Vec<Name>, Box<TypeExp>),
    /// `#foo t | #bar`.
    Sum(Vec<(Name, Vec<TypeExp>)>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeArg {
    Size(SizeExp),
    Type(TypeExp),
}

/// The `d` in `[d]t`.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeExp {
    pub kind: SizeExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpKind {
    /// `[]`: an unknown size the checker invents.
    Any,
    Var(Name),
    Const(i64),
    /// `[n*m]`, `[n+1]`, `[(n+1)/2]`: a size computed from others.
    Bin(SizeOp, Box<SizeExp>, Box<SizeExp>),
}

impl SizeExp {
    /// Visit the names in this size expression, with their spans.
    pub fn for_each_name(&self, f: &mut dyn FnMut(&Name, Span)) {
        match &self.kind {
            SizeExpKind::Var(n) => f(n, self.span),
            SizeExpKind::Bin(_, a, b) => {
                a.for_each_name(f);
                b.for_each_name(f);
            }
            SizeExpKind::Any | SizeExpKind::Const(_) => {}
        }
    }
}

/// The arithmetic of size expressions (`/` and `%` floor, as on `i64` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SizeOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl SizeOp {
    pub fn symbol(self) -> &'static str {
        match self {
            SizeOp::Add => "+",
            SizeOp::Sub => "-",
            SizeOp::Mul => "*",
            SizeOp::Div => "/",
            SizeOp::Mod => "%",
        }
    }

    /// Binding strength, as for the same operators in expressions.
    pub fn prec(self) -> u8 {
        match self {
            SizeOp::Add | SizeOp::Sub => 1,
            SizeOp::Mul | SizeOp::Div | SizeOp::Mod => 2,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Patterns

#[derive(Clone, Debug, PartialEq)]
pub struct Pat {
    pub kind: PatKind,
    pub span: Span,
    pub id: NodeId,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PatKind {
    Var(Name),
    Wildcard,
    /// `(p1, p2, ...)`; `()` is the empty tuple. A parenthesised single pattern is not a tuple.
    Tuple(Vec<Pat>),
    /// `{x, y = p}`; the field name alone binds a variable of that name.
    Record(Vec<(Name, Pat)>),
    /// `(p: t)`.
    Ascribed(Box<Pat>, TypeExp),
    /// Only in `match` cases.
    Literal(Literal),
    /// `#foo p1 p2`, only in `match` cases.
    Constr(Name, Vec<Pat>),
}

/// The parameter of the lambda an index section (`(.[i])`, `(.f[i])`) is read as: a name no
/// program can write, so the indices cannot capture it, and by which the printer knows the
/// section again.
pub const INDEX_SECTION_PARAM: &str = "x%";

/// `m.(e)` until `syntax::modules` resolves it: `e` applied to a variable named this followed by
/// the module path `m` (a name no program can write).
pub const LOCAL_OPEN: &str = "open%";

impl TypeExp {
    /// Whether the size `name` appears in this type as written (`[name]t`, `vec [name] f32`).
    pub fn mentions_size(&self, name: &str) -> bool {
        let size = |d: &SizeExp| matches!(&d.kind, SizeExpKind::Var(n) if n == name);
        match &self.kind {
            TypeExpKind::Prim(_) => false,
            TypeExpKind::Named(_, args) => args.iter().any(|a| match a {
                TypeArg::Size(d) => size(d),
                TypeArg::Type(t) => t.mentions_size(name),
            }),
            TypeExpKind::Array(d, t) => size(d) || t.mentions_size(name),
            TypeExpKind::Tuple(ts) => ts.iter().any(|t| t.mentions_size(name)),
            TypeExpKind::Record(fs) => fs.iter().any(|(_, t)| t.mentions_size(name)),
            TypeExpKind::Arrow(_, a, b) => a.mentions_size(name) || b.mentions_size(name),
            TypeExpKind::Unique(t) => t.mentions_size(name),
            TypeExpKind::Exists(ns, t) => !ns.iter().any(|n| n == name) && t.mentions_size(name),
            TypeExpKind::Sum(cs) => cs.iter().flat_map(|(_, ts)| ts).any(|t| t.mentions_size(name)),
        }
    }
}

impl Pat {
    /// Does the pattern test anything (a constructor or a literal somewhere in it)?
    pub fn is_refutable_form(&self) -> bool {
        match &self.kind {
            PatKind::Constr(..) | PatKind::Literal(_) => true,
            PatKind::Var(_) | PatKind::Wildcard => false,
            PatKind::Tuple(ps) => ps.iter().any(Pat::is_refutable_form),
            PatKind::Record(fs) => fs.iter().any(|(_, p)| p.is_refutable_form()),
            PatKind::Ascribed(p, _) => p.is_refutable_form(),
        }
    }

    /// Whether a type ascription in this pattern mentions the size `name`.
    pub fn mentions_size(&self, name: &str) -> bool {
        match &self.kind {
            PatKind::Var(_) | PatKind::Wildcard | PatKind::Literal(_) => false,
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter().any(|p| p.mentions_size(name)),
            PatKind::Record(fs) => fs.iter().any(|(_, p)| p.mentions_size(name)),
            PatKind::Ascribed(p, t) => t.mentions_size(name) || p.mentions_size(name),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub id: NodeId,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// An integer literal, possibly with a suffix (`1i64`, `0xffu8`). The value is the magnitude as
    /// written (a leading `-` is a separate `Neg`), except in patterns, where the parser folds `-1`.
    Int(i128, Option<IntType>),
    /// A float literal, possibly with a suffix (`1.5f32`, `3f64`).
    Float(f64, Option<FloatType>),
    Bool(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeEnd {
    /// `a...b`: inclusive (Ogham also reads `a..b` so).
    Inclusive,
    /// `a..<b`.
    UpToExclusive,
    /// `a..>b`.
    DownToExclusive,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DimIndex {
    /// `a[i]`.
    Fix(Expr),
    /// `a[i:j:s]`, each part optional.
    Slice { start: Option<Expr>, end: Option<Expr>, stride: Option<Expr> },
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < n`.
    For { var: Name, var_span: Span, bound: Box<Expr> },
    /// `for p in xs`.
    ForIn(Pat, Box<Expr>),
    /// `while cond`.
    While(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum RecordField {
    /// `f = e`.
    Explicit(Name, Expr),
    /// `f`, short for `f = f`; the expression is the variable reference.
    Implicit(Name, Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// A variable, possibly qualified by a numeric module (`f32.sqrt`).
    Var(Name),
    /// `(e1, e2, ...)`; `()` is the unit value.
    Tuple(Vec<Expr>),
    Record(Vec<RecordField>),
    /// `[e1, e2, ...]`.
    ArrayLit(Vec<Expr>),
    /// `start...end`, `start..second...end`, `start..<end`, `start..>end` (and `start..end`,
    /// read as `start...end`).
    Range {
        start: Box<Expr>,
        second: Option<Box<Expr>>,
        end: Box<Expr>,
        kind: RangeEnd,
    },
    /// `e.f`, and `e.0` for tuples.
    Project(Box<Expr>, Name),
    /// `a[i, j:k:s]`.
    Index(Box<Expr>, Vec<DimIndex>),
    /// Application of one argument: `f x y` is `Apply(Apply(f, x), y)`.
    Apply(Box<Expr>, Box<Expr>),
    /// A binary operator, including `|>`, `<|`, `>->`, `<-<`, `&&`, `||`, `++`, and
    /// backticked functions (`x \`f\` y`, whose op is `f`).
    BinOp {
        op: Name,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Prefix `-e`.
    Neg(Box<Expr>),
    /// Prefix `!e`.
    Not(Box<Expr>),
    /// `(+)`.
    OpSection(Name),
    /// `(e +)`: the left operand is given.
    LeftSection(Name, Box<Expr>),
    /// `(+ e)`: the right operand is given.
    RightSection(Name, Box<Expr>),
    /// `(.f.g)`.
    ProjectSection(Vec<Name>),
    /// `\p1 p2 : t -> e`.
    Lambda {
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        body: Box<Expr>,
    },
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `let [n] p = e in body` (size binders are rare but legal).
    Let {
        sizes: Vec<(Name, Span)>,
        pat: Pat,
        rhs: Box<Expr>,
        body: Box<Expr>,
    },
    /// `let f p1 p2 : t = e in body` (a local function).
    LetFun {
        name: Name,
        name_span: Span,
        type_params: Vec<TypeParam>,
        params: Vec<Pat>,
        ret: Option<TypeExp>,
        rhs: Box<Expr>,
        body: Box<Expr>,
    },
    /// `let a[i, j] = v in body`: an in-place update of the variable `a`.
    LetWith {
        name: Name,
        name_span: Span,
        indices: Vec<DimIndex>,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `a with [i, j] = v`.
    Update(Box<Expr>, Vec<DimIndex>, Box<Expr>),
    /// `r with f.g = v`.
    RecordUpdate(Box<Expr>, Vec<Name>, Box<Expr>),
    /// `loop p = init for ... do body`; `init` is `None` when written `loop p for ...` (the pattern's
    /// variables are then taken from the enclosing scope).
    Loop {
        pat: Pat,
        init: Option<Box<Expr>>,
        form: LoopForm,
        body: Box<Expr>,
    },
    Match(Box<Expr>, Vec<(Pat, Expr)>),
    /// `e : t`.
    Ascript(Box<Expr>, TypeExp),
    /// `e :> t`.
    Coerce(Box<Expr>, TypeExp),
    /// `assert cond e`.
    Assert(Box<Expr>, Box<Expr>),
    /// `#foo e1 e2`.
    Constr(Name, Vec<Expr>),
}

/// The numeric module names that qualify built-in functions (`f32.sqrt`, `i64.sum`).
pub const NUMERIC_MODULES: [&str; 12] =
    ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool"];

// ---------------------------------------------------------------------------------------------
// The module language, as written. `syntax::modules::flatten` turns a program's [`SrcDec`]s into
// plain [`Dec`]s whose names are qualified by the modules they were declared in (`M.f`,
// `M.N.t`), so no later stage sees a module.

/// A declaration as written, module language included.
#[derive(Clone, Debug, PartialEq)]
pub enum SrcDec {
    Dec(Dec),
    /// `module M (P: S) : T = m`.
    Module(ModBind),
    /// `module type S = s`.
    ModType {
        name: Name,
        name_span: Span,
        sig: SigExp,
        span: Span,
    },
    /// `open m`: the module's names in scope (and, inside a module, exported from it).
    Open(ModExp, Span),
    /// `local d`: `d`'s names in scope but not exported from the enclosing module.
    Local(Box<SrcDec>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModBind {
    pub name: Name,
    pub name_span: Span,
    /// The parameters of a parametric module, `(P: S)`, outermost first.
    pub params: Vec<ModParam>,
    pub sig: Option<SigExp>,
    pub body: ModExp,
    pub span: Span,
}

/// `(P: S)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ModParam {
    pub name: Name,
    pub sig: SigExp,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModExp {
    pub kind: ModExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ModExpKind {
    /// `M`, `M.N`, or a numeric module (`f32`).
    Var(Vec<(Name, Span)>),
    /// `{ d1 d2 ... }`.
    Struct(Vec<SrcDec>),
    /// `F m`.
    Apply(Box<ModExp>, Box<ModExp>),
    /// `m : S`.
    Ascribe(Box<ModExp>, SigExp),
}

/// A module type.
#[derive(Clone, Debug, PartialEq)]
pub struct SigExp {
    pub kind: SigExpKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SigExpKind {
    /// A module type bound by `module type` (possibly qualified, `M.S`).
    Var(Vec<(Name, Span)>),
    /// `{ val f: t  type t ... }`.
    Specs(Vec<Spec>),
    /// `S with t = i32`, by the refined type's path: module types are checked by name, so the
    /// refinement itself is checked where the module is used.
    With(Box<SigExp>, Vec<Name>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// `val f [n] 'a: t`.
    Val { name: Name, span: Span },
    /// `type t 'a`, `type t = i32`.
    Type { name: Name, span: Span },
    /// `module M: S`.
    Module { name: Name, sig: SigExp, span: Span },
    /// `include S`.
    Include(SigExp),
}
