//! Semantic types: what the checker infers and what lowering consumes.

use std::collections::BTreeMap;
use std::fmt;

use crate::prim::PrimType;
use crate::syntax::ast::{Liftedness, Name, SizeOp};

use super::poly::{is_compound, write_size, Poly, SizeTerm, View};

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
    /// A size computed from others (`n*m`, `n+1`): a polynomial in normal form over the sizes
    /// above and `Opaque` ones (see `poly.rs`), never a lone constant or atom.
    Poly(Box<Poly<Size>>),
    /// `a / b`, `a % b` (floor), or a product too large to expand.
    Opaque(SizeOp, Box<Size>, Box<Size>),
}

impl SizeTerm for Size {
    fn constant(c: i64) -> Self {
        Size::Const(c)
    }

    fn poly(p: Poly<Self>) -> Self {
        Size::Poly(Box::new(p))
    }

    fn opaque(op: SizeOp, a: Self, b: Self) -> Self {
        Size::Opaque(op, Box::new(a), Box::new(b))
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            Size::Const(c) => View::Const(*c),
            Size::Poly(p) => View::Poly(p),
            Size::Opaque(op, a, b) => View::Opaque(*op, a, b),
            Size::Var(_) | Size::Unknown(_) => View::Atom,
        }
    }
}

impl Size {
    /// The names this size is computed from (itself, for a name), in order, with repetitions.
    pub fn names(&self) -> Vec<&Name> {
        let mut out = Vec::new();
        collect_names(self, &mut out);
        out
    }

    /// Is this size computed from others (`n*m`, `n+1`)?
    pub fn is_computed(&self) -> bool {
        is_compound(self)
    }
}

fn collect_names<'a>(s: &'a Size, out: &mut Vec<&'a Name>) {
    match s {
        Size::Var(n) => out.push(n),
        Size::Poly(p) => p.atoms().for_each(|a| collect_names(a, out)),
        Size::Opaque(_, a, b) => {
            collect_names(a, out);
            collect_names(b, out);
        }
        Size::Const(_) | Size::Unknown(_) => {}
    }
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
        write_size(self, f, &mut |a, f| match a {
            Size::Var(v) => f.write_str(v),
            Size::Unknown(u) => write!(f, "?{u}"),
            _ => Ok(()),
        })
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
