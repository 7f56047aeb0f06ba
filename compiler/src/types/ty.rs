//! Semantic types: what the checker infers and what lowering consumes.

use std::collections::BTreeMap;
use std::fmt;

use crate::prim::PrimType;
use crate::syntax::ast::{Liftedness, Name};

/// A type variable: a unification variable during inference, or a quantified variable of a
/// top-level definition's [`Scheme`] afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyVar(pub u32);

/// One dimension of an array type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Size {
    Const(i64),
    /// A size variable in scope: a size parameter `[n]`, a named function parameter of type `i64`,
    /// an existential bound by `?[k].`, or a size the checker invented for an unknown size.
    /// The string is unique within its top-level definition.
    Var(Name),
    /// A size unification variable (only during inference).
    Unknown(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Prim(PrimType),
    /// `[d1]...[dn]elem`, `n >= 1`; `elem` is never an array. `unique` is the `*` annotation.
    Array {
        shape: Vec<Size>,
        elem: Box<Type>,
        unique: bool,
    },
    /// `()` is the empty tuple.
    Tuple(Vec<Type>),
    Record(BTreeMap<Name, Type>),
    /// `(x: a) -> b`: `param` names the argument when the result's sizes refer to it.
    Arrow {
        param: Option<Name>,
        from: Box<Type>,
        to: Box<Type>,
    },
    Sum(BTreeMap<Name, Vec<Type>>),
    Var(TyVar),
}

/// A generalised type: `forall sizes types. ty`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheme {
    pub size_params: Vec<Name>,
    pub type_params: Vec<(TyVar, Liftedness)>,
    pub ty: Type,
}

impl Type {
    pub fn unit() -> Type {
        Type::Tuple(Vec::new())
    }

    pub fn array_of(shape: Vec<Size>, elem: Type) -> Type {
        if shape.is_empty() {
            return elem;
        }
        match elem {
            Type::Array { shape: inner, elem, unique } => {
                let mut s = shape;
                s.extend(inner);
                Type::Array { shape: s, elem, unique }
            }
            e => Type::Array { shape, elem: Box::new(e), unique: false },
        }
    }

    /// The number of array dimensions (0 for non-arrays).
    pub fn rank(&self) -> usize {
        match self {
            Type::Array { shape, .. } => shape.len(),
            _ => 0,
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Size::Const(n) => write!(f, "{n}"),
            Size::Var(v) => f.write_str(v),
            Size::Unknown(u) => write!(f, "?{u}"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Prim(p) => write!(f, "{p}"),
            Type::Array { shape, elem, unique } => {
                if *unique {
                    f.write_str("*")?;
                }
                for d in shape {
                    write!(f, "[{d}]")?;
                }
                match **elem {
                    Type::Arrow { .. } => write!(f, "({elem})"),
                    _ => write!(f, "{elem}"),
                }
            }
            Type::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Type::Record(fs) => {
                f.write_str("{")?;
                for (i, (n, t)) in fs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n}: {t}")?;
                }
                f.write_str("}")
            }
            Type::Arrow { param, from, to } => {
                match (param, &**from) {
                    (Some(p), _) => write!(f, "({p}: {from})")?,
                    (None, Type::Arrow { .. }) => write!(f, "({from})")?,
                    (None, _) => write!(f, "{from}")?,
                }
                write!(f, " -> {to}")
            }
            Type::Sum(cs) => {
                for (i, (c, ts)) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "#{c}")?;
                    for t in ts {
                        write!(f, " {t}")?;
                    }
                }
                Ok(())
            }
            Type::Var(v) => write!(f, "t{}", v.0),
        }
    }
}
