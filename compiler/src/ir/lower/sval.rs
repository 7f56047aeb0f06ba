//! Static values: what a source variable stands for during lowering.
//!
//! A first-order value is a tree mirroring its source type whose leaves are IR atoms: tuples and
//! records become [`SVal::Tuple`]/[`SVal::Record`] (records in field-name order), an array of
//! tuples is a tuple of arrays, and a sum value is its tag plus one payload per constructor.
//! A function is a [`SFun`]: a closure, a top-level definition, an intrinsic, an operator, or a
//! combination of those (partial application, flipped operator, composition), which lowering
//! specialises at each application.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::ir::{Atom, Type};
use crate::syntax::ast::{Expr, Name, Pat};
use crate::types::{TyVar, Type as SType};

#[derive(Clone, Debug)]
pub enum SVal<'a> {
    /// A scalar or an array of scalars.
    Leaf(Atom, Type),
    Tuple(Vec<SVal<'a>>),
    Record(BTreeMap<Name, SVal<'a>>),
    /// A value of a sum type: the constructor's index (an `i8` leaf, or an array of them) and one
    /// payload per constructor, in name order; the inactive ones hold placeholder values.
    Sum {
        ctors: Vec<Name>,
        tag: Box<SVal<'a>>,
        payloads: Vec<Vec<SVal<'a>>>,
    },
    Fun(Rc<SFun<'a>>),
}

#[derive(Clone, Debug)]
pub enum SFun<'a> {
    /// A lambda or local function: parameters, body, and the environment it was defined in;
    /// `sizes` are the local function's own size parameters (which shadow outer sizes). A local
    /// function with type parameters has its type with them as variables in `generic`, until a
    /// use binds them (`Lowerer::lookup`).
    Closure {
        name: String,
        sizes: Vec<Name>,
        params: &'a [Pat],
        body: &'a Expr,
        env: Env<'a>,
        generic: Option<SType>,
    },
    /// A top-level definition, at the type it is used with.
    Top { dec: usize, ty: SType },
    /// A built-in function (intrinsics.rs), at the type it is used with.
    Intrinsic { name: String, arity: usize },
    /// A built-in binary operator (`+`, `==`, `&&`, `|>`, ...).
    Op(Name),
    /// `(.a.b)`.
    Project(Vec<Name>),
    /// `f` with some arguments already given.
    Partial { f: Rc<SFun<'a>>, args: Vec<SVal<'a>> },
    /// A two-argument function taking its arguments in the other order (right sections).
    Flip(Rc<SFun<'a>>),
    /// `first >-> then`.
    Compose { first: Rc<SFun<'a>>, then: Rc<SFun<'a>> },
    /// A function of type `ty` in the payload of a constructor a sum value does not have: only
    /// a `match` branch that is not taken applies it, so its results are placeholders too.
    Placeholder { ty: SType, env: Env<'a> },
}

/// A lexical environment: local bindings (innermost first), how many top-level declarations are
/// visible, and the instantiation of the enclosing top-level definition's type variables.
#[derive(Clone, Debug)]
pub struct Env<'a> {
    locals: Option<Rc<Local<'a>>>,
    pub top: usize,
    pub tsubst: Rc<HashMap<TyVar, SType>>,
}

#[derive(Debug)]
struct Local<'a> {
    name: Name,
    /// `None` hides outer bindings of the name (a size parameter about to be bound anew).
    val: Option<SVal<'a>>,
    next: Option<Rc<Local<'a>>>,
}

impl<'a> Env<'a> {
    pub fn top_level(top: usize, tsubst: HashMap<TyVar, SType>) -> Env<'a> {
        Env { locals: None, top, tsubst: Rc::new(tsubst) }
    }

    pub fn bind(&self, name: &str, val: SVal<'a>) -> Env<'a> {
        self.push(name, Some(val))
    }

    /// Hide the outer bindings of `name` (a size parameter that a call binds anew).
    pub fn unbind(&self, name: &str) -> Env<'a> {
        self.push(name, None)
    }

    fn push(&self, name: &str, val: Option<SVal<'a>>) -> Env<'a> {
        Env {
            locals: Some(Rc::new(Local { name: name.to_string(), val, next: self.locals.clone() })),
            top: self.top,
            tsubst: self.tsubst.clone(),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&SVal<'a>> {
        let mut cur = self.locals.as_deref();
        while let Some(l) = cur {
            if l.name == name {
                return l.val.as_ref();
            }
            cur = l.next.as_deref();
        }
        None
    }

    /// The same environment with more type variables bound.
    pub fn with_types(&self, more: HashMap<TyVar, SType>) -> Env<'a> {
        let mut tsubst = (*self.tsubst).clone();
        tsubst.extend(more);
        Env { locals: self.locals.clone(), top: self.top, tsubst: Rc::new(tsubst) }
    }

    /// Apply the type substitution to a checker type.
    pub fn resolve(&self, t: &SType) -> SType {
        if self.tsubst.is_empty() {
            return t.clone();
        }
        subst_type(&self.tsubst, t)
    }
}

pub fn subst_type(s: &HashMap<TyVar, SType>, t: &SType) -> SType {
    match t {
        SType::Var(v) => s.get(v).cloned().unwrap_or(SType::Var(*v)),
        SType::Prim(_) => t.clone(),
        SType::Array { shape, elem, unique } => {
            let e = subst_type(s, elem);
            let mut a = SType::array_of(shape.clone(), e);
            if let SType::Array { unique: u, .. } = &mut a {
                *u = *unique;
            }
            a
        }
        SType::Tuple(ts) => SType::Tuple(ts.iter().map(|t| subst_type(s, t)).collect()),
        SType::Record(fs) => {
            SType::Record(fs.iter().map(|(n, t)| (n.clone(), subst_type(s, t))).collect())
        }
        SType::Arrow { param, from, to } => SType::Arrow {
            param: param.clone(),
            from: Box::new(subst_type(s, from)),
            to: Box::new(subst_type(s, to)),
        },
        SType::Sum(cs) => SType::Sum(
            cs.iter()
                .map(|(n, ts)| (n.clone(), ts.iter().map(|t| subst_type(s, t)).collect()))
                .collect(),
        ),
    }
}

/// Bind the type variables of `pattern` (a scheme's type) by matching it against `actual`.
pub fn match_type(pattern: &SType, actual: &SType, out: &mut HashMap<TyVar, SType>) {
    match (pattern, actual) {
        (SType::Var(v), t) => {
            out.entry(*v).or_insert_with(|| t.clone());
        }
        (SType::Array { shape: s1, elem: e1, .. }, SType::Array { shape: s2, elem: e2, .. }) => {
            if s1.len() == s2.len() {
                match_type(e1, e2, out);
            } else if s1.len() < s2.len() {
                // `[n]t` against `[n][m]f32`: `t` is an array.
                let inner = SType::array_of(s2[s1.len()..].to_vec(), (**e2).clone());
                match_type(e1, &inner, out);
            }
        }
        (SType::Tuple(a), SType::Tuple(b)) if a.len() == b.len() => {
            for (x, y) in a.iter().zip(b) {
                match_type(x, y, out);
            }
        }
        (SType::Record(a), SType::Record(b)) => {
            for (n, x) in a {
                if let Some(y) = b.get(n) {
                    match_type(x, y, out);
                }
            }
        }
        (SType::Arrow { from: f1, to: t1, .. }, SType::Arrow { from: f2, to: t2, .. }) => {
            match_type(f1, f2, out);
            match_type(t1, t2, out);
        }
        (SType::Sum(a), SType::Sum(b)) => {
            for (n, xs) in a {
                if let Some(ys) = b.get(n) {
                    for (x, y) in xs.iter().zip(ys) {
                        match_type(x, y, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether a type mentions a function anywhere.
pub fn has_arrow(t: &SType) -> bool {
    match t {
        SType::Arrow { .. } => true,
        SType::Prim(_) | SType::Var(_) => false,
        SType::Array { elem, .. } => has_arrow(elem),
        SType::Tuple(ts) => ts.iter().any(has_arrow),
        SType::Record(fs) => fs.values().any(has_arrow),
        SType::Sum(cs) => cs.values().flatten().any(has_arrow),
    }
}

/// The parameter types and the result type after `n` arrows.
pub fn split_arrows(t: &SType, n: usize) -> (Vec<&SType>, &SType) {
    let mut params = Vec::new();
    let mut cur = t;
    while params.len() < n {
        match cur {
            SType::Arrow { from, to, .. } => {
                params.push(&**from);
                cur = to;
            }
            _ => break,
        }
    }
    (params, cur)
}

/// A type with all sizes erased, as a string (instance keys).
pub fn erased(t: &SType) -> String {
    match t {
        SType::Array { shape, elem, .. } => format!("{}{}", "[]".repeat(shape.len()), erased(elem)),
        SType::Prim(p) => p.to_string(),
        SType::Var(v) => format!("'{}", v.0),
        SType::Tuple(ts) => format!("({})", ts.iter().map(erased).collect::<Vec<_>>().join(",")),
        SType::Record(fs) => format!(
            "{{{}}}",
            fs.iter().map(|(n, t)| format!("{n}:{}", erased(t))).collect::<Vec<_>>().join(",")
        ),
        SType::Arrow { from, to, .. } => format!("({}->{})", erased(from), erased(to)),
        SType::Sum(cs) => cs
            .iter()
            .map(|(n, ts)| format!("#{n}({})", ts.iter().map(erased).collect::<Vec<_>>().join(",")))
            .collect::<Vec<_>>()
            .join("|"),
    }
}

impl<'a> SVal<'a> {
    /// The leaves in canonical order (tuple positions, record fields by name, sum tag then
    /// payloads), with their types.
    pub fn leaves(&self) -> Vec<(Atom, Type)> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut Vec<(Atom, Type)>) {
        match self {
            SVal::Leaf(a, t) => out.push((*a, t.clone())),
            SVal::Tuple(vs) => vs.iter().for_each(|v| v.collect_leaves(out)),
            SVal::Record(fs) => fs.values().for_each(|v| v.collect_leaves(out)),
            SVal::Sum { tag, payloads, .. } => {
                tag.collect_leaves(out);
                payloads.iter().flatten().for_each(|v| v.collect_leaves(out));
            }
            SVal::Fun(_) => {}
        }
    }

    /// The same tree with its leaves replaced, in canonical order, by `f`'s results.
    pub fn map_leaves<E>(
        &self,
        f: &mut impl FnMut(Atom, &Type) -> Result<(Atom, Type), E>,
    ) -> Result<SVal<'a>, E> {
        Ok(match self {
            SVal::Leaf(a, t) => {
                let (a, t) = f(*a, t)?;
                SVal::Leaf(a, t)
            }
            SVal::Tuple(vs) => {
                SVal::Tuple(vs.iter().map(|v| v.map_leaves(f)).collect::<Result<_, _>>()?)
            }
            SVal::Record(fs) => SVal::Record(
                fs.iter()
                    .map(|(n, v)| Ok((n.clone(), v.map_leaves(f)?)))
                    .collect::<Result<_, _>>()?,
            ),
            SVal::Sum { ctors, tag, payloads } => SVal::Sum {
                ctors: ctors.clone(),
                tag: Box::new(tag.map_leaves(f)?),
                payloads: payloads
                    .iter()
                    .map(|p| p.iter().map(|v| v.map_leaves(f)).collect::<Result<Vec<_>, _>>())
                    .collect::<Result<_, _>>()?,
            },
            SVal::Fun(g) => SVal::Fun(g.clone()),
        })
    }

    /// Rebuild this tree's shape from a sequence of leaves.
    pub fn rebuild(&self, leaves: &mut impl Iterator<Item = (Atom, Type)>) -> Option<SVal<'a>> {
        let mut f = |_: Atom, _: &Type| leaves.next().ok_or(());
        self.map_leaves(&mut f).ok()
    }

    pub fn contains_fun(&self) -> bool {
        match self {
            SVal::Leaf(..) => false,
            SVal::Fun(_) => true,
            SVal::Tuple(vs) => vs.iter().any(|v| v.contains_fun()),
            SVal::Record(fs) => fs.values().any(|v| v.contains_fun()),
            SVal::Sum { payloads, .. } => payloads.iter().flatten().any(|v| v.contains_fun()),
        }
    }

    pub fn unit() -> SVal<'a> {
        SVal::Tuple(Vec::new())
    }
}
