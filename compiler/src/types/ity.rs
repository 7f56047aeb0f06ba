//! Types during inference: one array dimension at a time, unification variables for types and
//! sizes, and the generalised variables of schemes. The solver binds variables in a [`Store`];
//! [`Store::zonk`] substitutes the bindings, and `finish` converts to the shared [`super::Type`].

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::diag::Span;
use crate::prim::{FloatType, IntType, PrimType};
use crate::syntax::ast::{Liftedness, Name, SizeOp};

use super::poly::{for_each_atom, map_atoms, write_size, Poly, SizeTerm, View};

/// A type unification variable (an index into [`Store`]).
pub(crate) type TVar = u32;
/// A size unification variable (an index into [`Store`]).
pub(crate) type DVar = u32;

/// One array dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Dim {
    Const(i64),
    /// A rigid size: a size parameter, an `i64` variable in scope, a named function parameter or an
    /// invented existential.
    Name(Name),
    Var(DVar),
    /// A size computed from others (`n*m`, `n+1`): a polynomial in normal form (poly.rs), never
    /// a lone constant or atom. Built only by `poly::arith` and friends.
    Poly(Box<Poly<Dim>>),
    /// `a / b`, `a % b` (floor), or a product too large to expand: an atom to the algebra.
    Opaque(SizeOp, Box<Dim>, Box<Dim>),
}

impl SizeTerm for Dim {
    fn constant(c: i64) -> Self {
        Dim::Const(c)
    }

    fn poly(p: Poly<Self>) -> Self {
        Dim::Poly(Box::new(p))
    }

    fn opaque(op: SizeOp, a: Self, b: Self) -> Self {
        Dim::Opaque(op, Box::new(a), Box::new(b))
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            Dim::Const(c) => View::Const(*c),
            Dim::Poly(p) => View::Poly(p),
            Dim::Opaque(op, a, b) => View::Opaque(*op, a, b),
            Dim::Name(_) | Dim::Var(_) => View::Atom,
        }
    }
}

impl Dim {
    /// Does the size name `n` occur in this size?
    pub fn mentions(&self, n: &str) -> bool {
        let mut found = false;
        for_each_atom(self, &mut |a| found |= matches!(a, Dim::Name(m) if m == n));
        found
    }

    /// Does the size variable `v` occur in this size (as it is, without following bindings)?
    pub fn mentions_var(&self, v: DVar) -> bool {
        let mut found = false;
        for_each_atom(self, &mut |a| found |= *a == Dim::Var(v));
        found
    }

    /// The names in this size, in order, with repetitions.
    pub fn names(&self) -> Vec<Name> {
        let mut out = Vec::new();
        for_each_atom(self, &mut |a| {
            if let Dim::Name(n) = a {
                out.push(n.clone())
            }
        });
        out
    }

    /// The size with the name `from` replaced by `to`.
    pub fn subst_name(&self, from: &str, to: &Dim) -> Dim {
        map_atoms(self, &mut |a| match a {
            Dim::Name(n) if n == from => to.clone(),
            a => a.clone(),
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Prim(PrimType),
    Var(TVar),
    /// The `i`-th quantified type variable of an [`IScheme`] (only inside schemes).
    Gen(u32),
    Array {
        dim: Dim,
        elem: Box<Ty>,
        unique: bool,
    },
    Tuple(Vec<Ty>),
    Record(BTreeMap<Name, Ty>),
    /// `param` names the argument when the result's sizes may refer to it.
    Arrow {
        param: Option<Name>,
        from: Box<Ty>,
        to: Box<Ty>,
    },
    Sum(BTreeMap<Name, Vec<Ty>>),
    /// The type of an erroneous expression: unifies with everything, so one mistake is reported once.
    Err,
}

/// A generalised type of a top-level definition or intrinsic.
#[derive(Clone, Debug)]
pub(crate) struct IScheme {
    pub size_params: Vec<Name>,
    pub type_params: Vec<Liftedness>,
    /// Source names of the type parameters (for messages).
    pub tparam_names: Vec<Name>,
    pub ty: Ty,
    /// Existential sizes of a function's result, renamed at each instantiation.
    pub exists: Vec<Name>,
}

impl Ty {
    pub fn i64() -> Ty {
        Ty::Prim(PrimType::I64)
    }

    pub fn bool() -> Ty {
        Ty::Prim(PrimType::Bool)
    }

    pub fn arrow(from: Ty, to: Ty) -> Ty {
        Ty::Arrow { param: None, from: Box::new(from), to: Box::new(to) }
    }

    pub fn array(dim: Dim, elem: Ty) -> Ty {
        Ty::Array { dim, elem: Box::new(elem), unique: false }
    }

    /// Visit every dimension (in order of appearance).
    pub fn for_each_dim(&self, f: &mut dyn FnMut(&Dim)) {
        match self {
            Ty::Array { dim, elem, .. } => {
                f(dim);
                elem.for_each_dim(f);
            }
            Ty::Tuple(ts) => ts.iter().for_each(|t| t.for_each_dim(f)),
            Ty::Record(fs) => fs.values().for_each(|t| t.for_each_dim(f)),
            Ty::Sum(cs) => cs.values().flatten().for_each(|t| t.for_each_dim(f)),
            Ty::Arrow { from, to, .. } => {
                from.for_each_dim(f);
                to.for_each_dim(f);
            }
            Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) | Ty::Err => {}
        }
    }

    /// Rebuild the type with every dimension mapped (arrow parameter names are left alone).
    pub fn map_dims(&self, f: &mut dyn FnMut(&Dim) -> Dim) -> Ty {
        match self {
            Ty::Array { dim, elem, unique } => {
                Ty::Array { dim: f(dim), elem: Box::new(elem.map_dims(f)), unique: *unique }
            }
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| t.map_dims(f)).collect()),
            Ty::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, t)| (n.clone(), t.map_dims(f))).collect())
            }
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(|t| t.map_dims(f)).collect()))
                    .collect(),
            ),
            Ty::Arrow { param, from, to } => Ty::Arrow {
                param: param.clone(),
                from: Box::new(from.map_dims(f)),
                to: Box::new(to.map_dims(f)),
            },
            t @ (Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) | Ty::Err) => t.clone(),
        }
    }

    /// Rebuild the type with every atom of every dimension (a name or a size variable, also
    /// inside computed sizes) mapped, and the computed sizes normalised again.
    pub fn map_dim_atoms(&self, f: &mut dyn FnMut(&Dim) -> Dim) -> Ty {
        self.map_dims(&mut |d| map_atoms(d, f))
    }

    /// Does a dimension `Name(n)` occur (ignoring shadowing by inner arrow parameters)?
    pub fn mentions(&self, n: &str) -> bool {
        let mut found = false;
        self.for_each_dim(&mut |d| found |= d.mentions(n));
        found
    }

    /// Replace the size name `from` by `to` everywhere (stops under an arrow that rebinds `from`).
    pub fn subst_name(&self, from: &str, to: &Dim) -> Ty {
        match self {
            Ty::Arrow { param: Some(p), .. } if p == from => {
                // The parameter shadows `from` in the result, but not in the argument type.
                let Ty::Arrow { param, from: a, to: b } = self else { return self.clone() };
                Ty::Arrow {
                    param: param.clone(),
                    from: Box::new(a.subst_name(from, to)),
                    to: b.clone(),
                }
            }
            Ty::Arrow { param: Some(p), from: a, to: b } if to.mentions(p) && b.mentions(from) => {
                // The replacement would be captured by this parameter: rename the parameter first.
                let mut q = format!("{p}'");
                while b.mentions(&q) || to.mentions(&q) || q == from {
                    q.push('\'');
                }
                let b = b.subst_name(p, &Dim::Name(q.clone()));
                Ty::Arrow {
                    param: Some(q),
                    from: Box::new(a.subst_name(from, to)),
                    to: Box::new(b.subst_name(from, to)),
                }
            }
            Ty::Arrow { param, from: a, to: b } => Ty::Arrow {
                param: param.clone(),
                from: Box::new(a.subst_name(from, to)),
                to: Box::new(b.subst_name(from, to)),
            },
            Ty::Array { dim, elem, unique } => Ty::Array {
                dim: dim.subst_name(from, to),
                elem: Box::new(elem.subst_name(from, to)),
                unique: *unique,
            },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| t.subst_name(from, to)).collect()),
            Ty::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, t)| (n.clone(), t.subst_name(from, to))).collect())
            }
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(|t| t.subst_name(from, to)).collect()))
                    .collect(),
            ),
            t => t.clone(),
        }
    }

    /// The type with type variables replaced as `map` says (on a zonked type).
    pub fn subst_tvars(&self, map: &HashMap<TVar, Ty>) -> Ty {
        match self {
            Ty::Var(v) => map.get(v).cloned().unwrap_or_else(|| self.clone()),
            Ty::Arrow { param, from, to } => Ty::Arrow {
                param: param.clone(),
                from: Box::new(from.subst_tvars(map)),
                to: Box::new(to.subst_tvars(map)),
            },
            Ty::Array { dim, elem, unique } => Ty::Array {
                dim: dim.clone(),
                elem: Box::new(elem.subst_tvars(map)),
                unique: *unique,
            },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| t.subst_tvars(map)).collect()),
            Ty::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, t)| (n.clone(), t.subst_tvars(map))).collect())
            }
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(|t| t.subst_tvars(map)).collect()))
                    .collect(),
            ),
            Ty::Prim(_) | Ty::Gen(_) | Ty::Err => self.clone(),
        }
    }

    /// Does the (zonked) type contain `Err`, the type of an expression whose mistake was
    /// reported?
    pub fn has_err(&self) -> bool {
        match self {
            Ty::Err => true,
            Ty::Arrow { from, to, .. } => from.has_err() || to.has_err(),
            Ty::Array { elem, .. } => elem.has_err(),
            Ty::Tuple(ts) => ts.iter().any(Ty::has_err),
            Ty::Record(fs) => fs.values().any(Ty::has_err),
            Ty::Sum(cs) => cs.values().flatten().any(Ty::has_err),
            Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) => false,
        }
    }

    pub fn contains_arrow(&self) -> bool {
        match self {
            Ty::Arrow { .. } => true,
            Ty::Array { elem, .. } => elem.contains_arrow(),
            Ty::Tuple(ts) => ts.iter().any(Ty::contains_arrow),
            Ty::Record(fs) => fs.values().any(Ty::contains_arrow),
            Ty::Sum(cs) => cs.values().flatten().any(Ty::contains_arrow),
            Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) | Ty::Err => false,
        }
    }

    /// Mark the outer arrays of this type unique (`*t`).
    pub fn make_unique(&self) -> Ty {
        match self {
            Ty::Array { dim, elem, .. } => {
                Ty::Array { dim: dim.clone(), elem: elem.clone(), unique: true }
            }
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(Ty::make_unique).collect()),
            Ty::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, t)| (n.clone(), t.make_unique())).collect())
            }
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(Ty::make_unique).collect()))
                    .collect(),
            ),
            t => t.clone(),
        }
    }

    /// The same type with the outer arrays not unique.
    pub fn without_unique(&self) -> Ty {
        match self {
            Ty::Array { dim, elem, unique: true } => {
                Ty::Array { dim: dim.clone(), elem: elem.clone(), unique: false }
            }
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(Ty::without_unique).collect()),
            Ty::Record(fs) => {
                Ty::Record(fs.iter().map(|(n, t)| (n.clone(), t.without_unique())).collect())
            }
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(Ty::without_unique).collect()))
                    .collect(),
            ),
            t => t.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Primitive classes (the types an overloaded operator or literal may take)

/// A set of primitive types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PrimSet(u16);

fn prim_bit(p: PrimType) -> u16 {
    let i = PrimType::all().position(|q| q == p).unwrap_or(0);
    1 << i
}

impl PrimSet {
    pub fn of(ps: impl IntoIterator<Item = PrimType>) -> PrimSet {
        PrimSet(ps.into_iter().fold(0, |acc, p| acc | prim_bit(p)))
    }
    pub fn ints() -> PrimSet {
        PrimSet::of(IntType::ALL.into_iter().map(PrimType::Int))
    }
    /// The signed integers: what a point index may be (Futhark converts it to `i64`).
    pub fn signed_ints() -> PrimSet {
        PrimSet::of(IntType::ALL.into_iter().filter(|i| i.signed()).map(PrimType::Int))
    }
    pub fn floats() -> PrimSet {
        PrimSet::of(FloatType::ALL.into_iter().map(PrimType::Float))
    }
    pub fn numeric() -> PrimSet {
        PrimSet(PrimSet::ints().0 | PrimSet::floats().0)
    }
    /// Numbers and `bool` (`<`, `<=`, ...).
    pub fn ordered() -> PrimSet {
        PrimSet(PrimSet::numeric().0 | prim_bit(PrimType::Bool))
    }
    /// Integers and `bool` (prefix `!`).
    pub fn ints_and_bool() -> PrimSet {
        PrimSet(PrimSet::ints().0 | prim_bit(PrimType::Bool))
    }
    pub fn contains(self, p: PrimType) -> bool {
        self.0 & prim_bit(p) != 0
    }
    pub fn intersect(self, o: PrimSet) -> PrimSet {
        PrimSet(self.0 & o.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Futhark's defaulting: `i32` if allowed, else `f64`, else the first member.
    pub fn default_type(self) -> Option<PrimType> {
        [PrimType::I32, PrimType::F64]
            .into_iter()
            .find(|p| self.contains(*p))
            .or_else(|| PrimType::all().find(|p| self.contains(*p)))
    }
    /// Words for error messages ("a numeric type").
    pub fn describe(self) -> String {
        if self == PrimSet::numeric() {
            "a numeric type".into()
        } else if self == PrimSet::ints() {
            "an integer type".into()
        } else if self == PrimSet::signed_ints() {
            "a signed integer type".into()
        } else if self == PrimSet::floats() {
            "a floating-point type".into()
        } else if self == PrimSet::ordered() {
            "a primitive type".into()
        } else if self == PrimSet::ints_and_bool() {
            "an integer type or `bool`".into()
        } else {
            let names: Vec<_> =
                PrimType::all().filter(|p| self.contains(*p)).map(|p| format!("`{p}`")).collect();
            format!("one of {}", names.join(", "))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The store of unification variables

#[derive(Clone, Debug)]
pub(crate) struct TVarInfo {
    pub bound: Option<Ty>,
    /// A rigid type parameter of the definition being checked (`'a`), with its liftedness.
    pub rigid: Option<(Name, Liftedness)>,
    /// Overloading: the type must be one of these primitive types.
    pub prims: Option<PrimSet>,
    /// The type must not contain functions (equality, unlifted type parameters, array elements).
    pub no_fun: bool,
    /// Where the variable was created (for "ambiguous type" errors).
    pub span: Span,
    /// The name of the scheme's type parameter this variable instantiates (for messages).
    pub hint: Option<Name>,
    /// Stands for a type without uniqueness, which belongs to where a type is written: the
    /// instance of a scheme's type parameter (`vjp f x dy` must not consume `dy` because `f`
    /// happens to return a unique array) or the type of a parameter without an annotation
    /// (`\\r -> scatter (copy r) is r` must not make `r` unique).
    pub plain: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct DVarInfo {
    pub bound: Option<Dim>,
    /// The name of the size parameter this variable instantiates (for messages).
    pub hint: Option<Name>,
    /// A loop parameter's size, found only when the loop body's result is known.
    pub loop_param: bool,
}

/// Unification variables of one top-level definition, and the names invented while checking it.
#[derive(Debug, Default)]
pub(crate) struct Store {
    pub tvars: Vec<TVarInfo>,
    pub dvars: Vec<DVarInfo>,
    /// Counter for invented names; shared by the whole program (see `Shared`).
    pub next_name: u32,
    /// Invented existential sizes of function results: renamed at every application, so two
    /// applications of `filter` have different sizes.
    pub per_app: HashSet<Name>,
    /// Why an invented size exists (for messages): name → description and span.
    pub invented: HashMap<Name, (String, Span)>,
    /// The sizes an existential of a branch join stands for, where a branch had a loop
    /// parameter's size: the loop's result may find them all equal to the initial size.
    pub alternatives: HashMap<Name, Vec<Dim>>,
    /// Counts bindings, so the solver knows when deferred constraints may have become solvable.
    pub binds: u64,
    /// Counter for the names of anonymous and inferred size parameters (`n₁`, `n₂`, ...), per
    /// definition so that printed types are stable.
    pub size_params: u32,
}

/// Subscript digits: invented names contain them, so they never clash with names users write.
pub(crate) fn subscript(n: u32) -> String {
    n.to_string()
        .chars()
        .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or('_'))
        .collect()
}

/// Is this a size name the checker invented (an existential or an inferred size parameter)?
pub fn is_invented(name: &str) -> bool {
    name.chars().any(|c| ('\u{2080}'..='\u{2089}').contains(&c))
}

impl Store {
    pub fn fresh_tvar(&mut self, span: Span) -> Ty {
        self.tvars.push(TVarInfo {
            bound: None,
            rigid: None,
            prims: None,
            no_fun: false,
            span,
            hint: None,
            plain: false,
        });
        Ty::Var(self.tvars.len() as u32 - 1)
    }

    pub fn fresh_rigid(&mut self, name: &str, l: Liftedness, span: Span) -> Ty {
        let t = self.fresh_tvar(span);
        if let Ty::Var(v) = t {
            self.tvars[v as usize].rigid = Some((name.to_string(), l));
            self.tvars[v as usize].no_fun = l != Liftedness::Lifted;
        }
        t
    }

    /// A fresh type variable restricted to the given primitive types.
    pub fn fresh_prim(&mut self, set: PrimSet, span: Span) -> Ty {
        let t = self.fresh_tvar(span);
        if let Ty::Var(v) = t {
            self.tvars[v as usize].prims = Some(set);
        }
        t
    }

    pub fn fresh_dim(&mut self) -> Dim {
        self.dvars.push(DVarInfo::default());
        Dim::Var(self.dvars.len() as u32 - 1)
    }

    /// A new name users cannot write, e.g. `k₃`.
    pub fn invent(&mut self, base: &str) -> Name {
        self.next_name += 1;
        format!("{base}{}", subscript(self.next_name))
    }

    /// A name for an anonymous or inferred size parameter of the definition being checked.
    pub fn fresh_size_param(&mut self) -> Name {
        self.size_params += 1;
        format!("n{}", subscript(self.size_params))
    }

    /// A fresh existential size with a description of where it comes from.
    pub fn existential(&mut self, why: impl Into<String>, span: Span) -> Dim {
        let n = self.invent("k");
        self.invented.insert(n.clone(), (why.into(), span));
        Dim::Name(n)
    }

    /// A fresh existential of a function's result, renamed at each application.
    pub fn per_app_existential(&mut self, why: impl Into<String>, span: Span) -> Dim {
        let d = self.existential(why, span);
        if let Dim::Name(n) = &d {
            self.per_app.insert(n.clone());
        }
        d
    }

    pub fn tvar(&self, v: TVar) -> &TVarInfo {
        &self.tvars[v as usize]
    }

    pub fn tvar_mut(&mut self, v: TVar) -> &mut TVarInfo {
        &mut self.tvars[v as usize]
    }

    /// Follow bindings at the head of a type.
    pub fn resolve(&self, t: &Ty) -> Ty {
        let mut t = t.clone();
        while let Ty::Var(v) = t {
            match self.tvars.get(v as usize).and_then(|i| i.bound.clone()) {
                Some(b) => t = b,
                None => break,
            }
        }
        t
    }

    /// Follow the bindings of a dimension, also inside a computed size (which is then normalised
    /// again: `n₁ + 1` with `n₁ = m - 1` is `m`).
    pub fn dim(&self, d: &Dim) -> Dim {
        let mut d = d.clone();
        while let Dim::Var(v) = d {
            match self.dvars.get(v as usize).and_then(|i| i.bound.clone()) {
                Some(b) => d = b,
                None => break,
            }
        }
        match d {
            Dim::Poly(_) | Dim::Opaque(..) => map_atoms(&d, &mut |a| match a {
                Dim::Var(_) => self.dim(a),
                a => a.clone(),
            }),
            d => d,
        }
    }

    /// Substitute every binding, deeply.
    pub fn zonk(&self, t: &Ty) -> Ty {
        self.zonk_depth(t, 0)
    }

    fn zonk_depth(&self, t: &Ty, depth: usize) -> Ty {
        if depth > 10_000 {
            return Ty::Err;
        }
        match t {
            Ty::Var(_) => match self.resolve(t) {
                Ty::Var(v) => Ty::Var(v),
                r => self.zonk_depth(&r, depth + 1),
            },
            Ty::Array { dim, elem, unique } => Ty::Array {
                dim: self.dim(dim),
                elem: Box::new(self.zonk_depth(elem, depth + 1)),
                unique: *unique,
            },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.zonk_depth(t, depth + 1)).collect()),
            Ty::Record(fs) => Ty::Record(
                fs.iter().map(|(n, t)| (n.clone(), self.zonk_depth(t, depth + 1))).collect(),
            ),
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(n, ts)| {
                        (n.clone(), ts.iter().map(|t| self.zonk_depth(t, depth + 1)).collect())
                    })
                    .collect(),
            ),
            Ty::Arrow { param, from, to } => Ty::Arrow {
                param: param.clone(),
                from: Box::new(self.zonk_depth(from, depth + 1)),
                to: Box::new(self.zonk_depth(to, depth + 1)),
            },
            t @ (Ty::Prim(_) | Ty::Gen(_) | Ty::Err) => t.clone(),
        }
    }

    /// Does the type variable `v` occur in `t` (after substitution)?
    pub fn occurs(&self, v: TVar, t: &Ty) -> bool {
        match self.resolve(t) {
            Ty::Var(w) => v == w,
            Ty::Array { elem, .. } => self.occurs(v, &elem),
            Ty::Tuple(ts) => ts.iter().any(|t| self.occurs(v, t)),
            Ty::Record(fs) => fs.values().any(|t| self.occurs(v, t)),
            Ty::Sum(cs) => cs.values().flatten().any(|t| self.occurs(v, t)),
            Ty::Arrow { from, to, .. } => self.occurs(v, &from) || self.occurs(v, &to),
            Ty::Prim(_) | Ty::Gen(_) | Ty::Err => false,
        }
    }

    /// Unbound type variables of a (zonked) type, in order of first appearance.
    pub fn free_tvars(&self, t: &Ty, out: &mut Vec<TVar>) {
        match t {
            Ty::Var(v) => {
                if !out.contains(v) {
                    out.push(*v)
                }
            }
            Ty::Array { elem, .. } => self.free_tvars(elem, out),
            Ty::Tuple(ts) => ts.iter().for_each(|t| self.free_tvars(t, out)),
            Ty::Record(fs) => fs.values().for_each(|t| self.free_tvars(t, out)),
            Ty::Sum(cs) => cs.values().flatten().for_each(|t| self.free_tvars(t, out)),
            Ty::Arrow { from, to, .. } => {
                self.free_tvars(from, out);
                self.free_tvars(to, out);
            }
            Ty::Prim(_) | Ty::Gen(_) | Ty::Err => {}
        }
    }

    /// The sizes of a value of type `t` (its arrays, outside function types) are no longer renamed
    /// at applications: an existential that came from one application's result and is now passed
    /// as an argument is the size of that argument (`zip g g` with `g` from a `filter`).
    pub fn settle_sizes(&mut self, t: &Ty) {
        fn walk(t: &Ty, per_app: &mut HashSet<Name>) {
            match t {
                Ty::Array { dim, elem, .. } => {
                    for n in dim.names() {
                        per_app.remove(&n);
                    }
                    walk(elem, per_app);
                }
                Ty::Tuple(ts) => ts.iter().for_each(|t| walk(t, per_app)),
                Ty::Record(fs) => fs.values().for_each(|t| walk(t, per_app)),
                Ty::Sum(cs) => cs.values().flatten().for_each(|t| walk(t, per_app)),
                Ty::Arrow { .. } | Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) | Ty::Err => {}
            }
        }
        if self.per_app.is_empty() {
            return;
        }
        let t = self.zonk(t);
        walk(&t, &mut self.per_app);
    }

    /// Give fresh names to the per-application existentials of a function's result.
    pub fn refresh_per_app(&mut self, t: &Ty) -> Ty {
        let mut renamed: HashMap<Name, Dim> = HashMap::new();
        let mut names = Vec::new();
        t.for_each_dim(&mut |d| names.extend(d.names()));
        for n in names {
            if self.per_app.contains(&n) && !renamed.contains_key(&n) {
                let why = self
                    .invented
                    .get(&n)
                    .cloned()
                    .unwrap_or_else(|| ("the size of a function's result".into(), Span::DUMMY));
                let d = self.per_app_existential(why.0, why.1);
                renamed.insert(n, d);
            }
        }
        if renamed.is_empty() {
            return t.clone();
        }
        t.map_dims(&mut |d| {
            map_atoms(d, &mut |a| match a {
                Dim::Name(n) => renamed.get(n).cloned().unwrap_or_else(|| a.clone()),
                a => a.clone(),
            })
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Printing types for messages

/// How to print the type variables of a type: rigid ones by name, others as `t₁`.
pub(crate) fn show(store: &Store, t: &Ty) -> String {
    let t = store.zonk(t);
    let mut out = String::new();
    write_ty(store, &t, &mut out, false);
    out
}

pub(crate) fn show_dim(store: &Store, d: &Dim) -> String {
    match store.dim(d) {
        Dim::Const(n) => n.to_string(),
        Dim::Name(n) => format!("`{n}`"),
        Dim::Var(v) => match store.dvars.get(v as usize) {
            Some(DVarInfo { hint: Some(n), .. }) => format!("`{n}`"),
            // Numbered, so a computed size that mentions it (`?₃ + ?₄`) can be read against it.
            _ => format!("`?{}` (not known yet)", subscript(v)),
        },
        d @ (Dim::Poly(_) | Dim::Opaque(..)) => {
            let mut out = String::new();
            write_dim(store, &d, &mut out);
            format!("`{out}`")
        }
    }
}

/// A size as written in a type: an unknown one without a name as nothing (`[]`), or `?₃` inside
/// a computed size.
fn write_dim(store: &Store, d: &Dim, out: &mut String) {
    use std::fmt::Write;
    let atom = &mut |a: &Dim, f: &mut dyn std::fmt::Write| match a {
        Dim::Name(n) => f.write_str(n),
        Dim::Var(v) => match store.dvars.get(*v as usize) {
            Some(DVarInfo { hint: Some(n), .. }) => f.write_str(n),
            _ => write!(f, "?{}", subscript(*v)),
        },
        _ => Ok(()),
    };
    let _ = match d {
        Dim::Var(v) => match store.dvars.get(*v as usize) {
            Some(DVarInfo { hint: Some(n), .. }) => out.write_str(n),
            _ => Ok(()),
        },
        d => write_size(d, out, atom),
    };
}

fn write_ty(store: &Store, t: &Ty, out: &mut String, paren_arrow: bool) {
    match t {
        Ty::Prim(p) => out.push_str(p.name()),
        Ty::Var(v) => match store.tvars.get(*v as usize) {
            Some(TVarInfo { rigid: Some((n, _)), .. }) => out.push_str(n),
            Some(TVarInfo { hint: Some(n), .. }) => out.push_str(n),
            _ => out.push_str(&format!("t{}", subscript(*v))),
        },
        Ty::Gen(i) => out.push_str(&format!("g{}", subscript(*i))),
        Ty::Err => out.push_str("<error>"),
        Ty::Array { dim, elem, unique } => {
            if *unique {
                out.push('*');
            }
            out.push('[');
            write_dim(store, dim, out);
            out.push(']');
            write_ty(store, elem, out, true);
        }
        Ty::Tuple(ts) => {
            out.push('(');
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_ty(store, t, out, false);
            }
            out.push(')');
        }
        Ty::Record(fs) => {
            out.push('{');
            for (i, (n, t)) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(n);
                out.push_str(": ");
                write_ty(store, t, out, false);
            }
            out.push('}');
        }
        Ty::Sum(cs) => {
            if paren_arrow {
                out.push('(');
            }
            for (i, (c, ts)) in cs.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                out.push('#');
                out.push_str(c);
                for t in ts {
                    out.push(' ');
                    write_ty(store, t, out, true);
                }
            }
            if paren_arrow {
                out.push(')');
            }
        }
        Ty::Arrow { param, from, to } => {
            if paren_arrow {
                out.push('(');
            }
            match param {
                Some(p) if to.mentions(p) => {
                    out.push('(');
                    out.push_str(p);
                    out.push_str(": ");
                    write_ty(store, from, out, false);
                    out.push(')');
                }
                _ => write_ty(store, from, out, true),
            }
            out.push_str(" -> ");
            write_ty(store, to, out, false);
            if paren_arrow {
                out.push(')');
            }
        }
    }
}
