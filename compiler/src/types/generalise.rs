//! After solving a definition: name the sizes nobody determined, quantify the remaining type
//! variables (top-level generalisation), report ambiguous types, and convert every node's type to
//! the shared [`Type`] that lowering consumes.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Phase};
use crate::syntax::ast::{Liftedness, Name, NodeId};

use super::gen::DefTyping;
use super::ity::{is_invented, Dim, IScheme, Store, TVar, Ty};
use super::poly::{for_each_atom, is_compound, map_atoms};
use super::{Scheme, Size, TyVar, Type};

/// The generalised typing of one definition.
pub(crate) struct Generalised {
    pub scheme: IScheme,
    pub out_scheme: Scheme,
    /// Internal type variable → quantified variable.
    pub quantified: HashMap<TVar, u32>,
}

/// Sizes in one kind of position, each with whether it only occurs inside computed sizes.
type Positions = Vec<(Dim, bool)>;

/// Sizes in parameter positions (free of arrow binders) and in the final result. A computed
/// size contributes its atoms, each with `true` (a size parameter only a computed size mentions
/// is not determined by the arguments).
fn size_positions(t: &Ty) -> (Positions, Positions) {
    fn push(d: &Dim, inner: bool, bound: &[Name], out: &mut Vec<(Dim, bool)>) {
        if matches!(d, Dim::Name(n) if bound.contains(n)) {
            return;
        }
        match out.iter_mut().find(|(e, _)| e == d) {
            Some((_, i)) => *i &= inner,
            None => out.push((d.clone(), inner)),
        }
    }
    fn free(t: &Ty, bound: &mut Vec<Name>, out: &mut Vec<(Dim, bool)>) {
        match t {
            Ty::Arrow { param, from, to } => {
                free(from, bound, out);
                let n = bound.len();
                bound.extend(param.iter().cloned());
                free(to, bound, out);
                bound.truncate(n);
            }
            Ty::Array { dim, elem, .. } => {
                if is_compound(dim) {
                    for_each_atom(dim, &mut |a| push(a, true, bound, out));
                } else {
                    push(dim, false, bound, out);
                }
                free(elem, bound, out);
            }
            Ty::Tuple(ts) => ts.iter().for_each(|t| free(t, bound, out)),
            Ty::Record(fs) => fs.values().for_each(|t| free(t, bound, out)),
            Ty::Sum(cs) => cs.values().flatten().for_each(|t| free(t, bound, out)),
            Ty::Prim(_) | Ty::Var(_) | Ty::Gen(_) | Ty::Err => {}
        }
    }
    let mut params = Vec::new();
    let mut bound = Vec::new();
    let mut cur = t;
    while let Ty::Arrow { param, from, to } = cur {
        free(from, &mut bound, &mut params);
        bound.extend(param.iter().cloned());
        cur = to;
    }
    let mut result = Vec::new();
    free(cur, &mut bound, &mut result);
    (params, result)
}

/// Generalise the type of a definition whose constraints are solved.
pub(crate) fn generalise(
    store: &mut Store,
    typing: &DefTyping,
    all_types: &[&Ty],
    errors: &mut Vec<Diagnostic>,
) -> Generalised {
    let ty = store.zonk(&typing.ty);
    let is_fun = matches!(ty, Ty::Arrow { .. });
    let (param_dims, result_dims) = size_positions(&ty);
    let mut size_params = typing.size_params.clone();
    let mut exists = Vec::new();
    // Sizes left open in the parameters become size parameters (named per definition, so the
    // printed type is stable); in the result, existentials.
    for (d, inner) in &param_dims {
        match store.dim(d) {
            // Only a size that is a whole dimension of a parameter is known to a call.
            Dim::Var(_) if *inner => errors.push(
                Diagnostic::new(
                    Phase::Size,
                    typing.name_span,
                    "a parameter's size is computed from a size that no parameter has as a whole dimension",
                )
                .with_hint("give the parameters their types, with size parameters such as `[n]`"),
            ),
            Dim::Var(v) => {
                let n = store.fresh_size_param();
                store.dvars[v as usize].bound = Some(Dim::Name(n.clone()));
                size_params.push(n);
            }
            Dim::Name(n) if size_params.contains(&n) => {}
            // An existential that reached a parameter: the function takes any size there.
            Dim::Name(n) if is_invented(&n) => size_params.push(n),
            Dim::Name(n) => errors.push(
                Diagnostic::new(
                    Phase::Size,
                    typing.name_span,
                    format!("size mismatch: a parameter's size would be `{n}`, which is only in scope inside the function"),
                )
                .with_hint("give the parameter a size parameter, e.g. `[n]`, and use it instead"),
            ),
            // Atoms of a zonked type are never computed sizes.
            Dim::Const(_) | Dim::Poly(_) | Dim::Opaque(..) => {}
        }
    }
    let mut escaped = Vec::new();
    for (d, _) in &result_dims {
        match store.dim(d) {
            Dim::Var(v) => {
                let n = store.invent("k");
                store.invented.insert(
                    n.clone(),
                    ("the size of a function's result".into(), Default::default()),
                );
                store.dvars[v as usize].bound = Some(Dim::Name(n.clone()));
                if is_fun {
                    exists.push(n);
                }
            }
            Dim::Name(n) if size_params.contains(&n) || exists.contains(&n) => {}
            Dim::Name(n) if is_invented(&n) => {
                if is_fun {
                    exists.push(n)
                }
            }
            // A size that went out of scope without an `Escape` noticing: hide it.
            Dim::Name(n) => {
                if !escaped.contains(&n) {
                    escaped.push(n)
                }
            }
            Dim::Const(_) | Dim::Poly(_) | Dim::Opaque(..) => {}
        }
    }
    // Sizes nobody determined inside the body are existential.
    for v in 0..store.dvars.len() {
        if store.dvars[v].bound.is_none() {
            let n = store.invent("k");
            store.dvars[v].bound = Some(Dim::Name(n));
        }
    }
    let mut ty = store.zonk(&typing.ty);
    for n in escaped {
        let k = store.invent("k");
        if is_fun {
            exists.push(k.clone());
        }
        ty = ty.subst_name(&n, &Dim::Name(k.clone()));
    }

    // Quantify the rigid type parameters and the type variables left open in the type.
    let mut quantified: HashMap<TVar, u32> = HashMap::new();
    let mut type_params = Vec::new();
    let mut tparam_names = Vec::new();
    for v in &typing.rigid {
        let info = store.tvar(*v);
        let (name, l) = info.rigid.clone().unwrap_or_default_param();
        quantified.insert(*v, type_params.len() as u32);
        type_params.push(l);
        tparam_names.push(name);
    }
    let mut free = Vec::new();
    store.free_tvars(&ty, &mut free);
    let mut letters = ('a'..='z').map(|c| c.to_string());
    for v in free {
        if quantified.contains_key(&v) {
            continue;
        }
        let l = if store.tvar(v).no_fun { Liftedness::Unlifted } else { Liftedness::Lifted };
        quantified.insert(v, type_params.len() as u32);
        type_params.push(l);
        let taken: HashSet<&Name> = tparam_names.iter().collect();
        let name = letters.by_ref().find(|n| !taken.contains(n)).unwrap_or_else(|| format!("t{v}"));
        tparam_names.push(name);
    }
    // Local functions' type parameters come after the definition's own (the definition's
    // scheme does not list them); none may have reached a type of an enclosing scope.
    for lp in &typing.local_rigid {
        for v in 0..lp.outer {
            if store.occurs(lp.var, &Ty::Var(v)) {
                let name = store.tvar(lp.var).rigid.clone().unwrap_or_default_param().0;
                errors.push(
                    Diagnostic::ty(
                        store.tvar(v).span,
                        format!(
                            "the type parameter `{name}` of the local function `{}` would escape its scope",
                            lp.fun
                        ),
                    )
                    .with_label(format!("this value from outside `{}` would have type `{name}`", lp.fun))
                    .with_hint("a local function's type parameter stands for a different type at each use, so it cannot be the type of a value it did not make"),
                );
                break;
            }
        }
        quantified.insert(lp.var, quantified.len() as u32);
    }
    // Any other type variable is undetermined: an ambiguous type.
    let mut seen = HashSet::new();
    for t in all_types {
        let mut vs = Vec::new();
        store.free_tvars(&store.zonk(t), &mut vs);
        for v in vs {
            if !quantified.contains_key(&v) && seen.insert(v) && seen.len() == 1 {
                errors.push(
                    Diagnostic::ty(store.tvar(v).span, "ambiguous type")
                        .with_label("the type of this cannot be determined")
                        .with_hint("add a type annotation"),
                );
            }
        }
    }

    let gen_ty = to_gen(&ty, &quantified);
    let out_ty = to_type(&ty, &quantified);
    let out_scheme = Scheme {
        size_params: size_params.clone(),
        type_params: type_params.iter().enumerate().map(|(i, l)| (TyVar(i as u32), *l)).collect(),
        ty: out_ty,
    };
    let scheme = IScheme { size_params, type_params, tparam_names, ty: gen_ty, exists };
    Generalised { scheme, out_scheme, quantified }
}

trait RigidDefault {
    fn unwrap_or_default_param(self) -> (Name, Liftedness);
}

impl RigidDefault for Option<(Name, Liftedness)> {
    fn unwrap_or_default_param(self) -> (Name, Liftedness) {
        self.unwrap_or_else(|| ("t".into(), Liftedness::Lifted))
    }
}

/// A zonked type with its quantified variables as `Gen`.
fn to_gen(t: &Ty, q: &HashMap<TVar, u32>) -> Ty {
    match t {
        Ty::Var(v) => q.get(v).map_or(Ty::Err, |i| Ty::Gen(*i)),
        Ty::Array { dim, elem, unique } => {
            Ty::Array { dim: dim.clone(), elem: Box::new(to_gen(elem, q)), unique: *unique }
        }
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| to_gen(t, q)).collect()),
        Ty::Record(fs) => Ty::Record(fs.iter().map(|(n, t)| (n.clone(), to_gen(t, q))).collect()),
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(n, ts)| (n.clone(), ts.iter().map(|t| to_gen(t, q)).collect()))
                .collect(),
        ),
        Ty::Arrow { param, from, to } => Ty::Arrow {
            param: param.clone(),
            from: Box::new(to_gen(from, q)),
            to: Box::new(to_gen(to, q)),
        },
        t => t.clone(),
    }
}

/// Convert a zonked internal type to the shared representation.
pub(crate) fn to_type(t: &Ty, q: &HashMap<TVar, u32>) -> Type {
    match t {
        Ty::Prim(p) => Type::Prim(*p),
        Ty::Var(v) => Type::Var(TyVar(q.get(v).copied().unwrap_or(u32::MAX))),
        Ty::Gen(i) => Type::Var(TyVar(*i)),
        Ty::Err => Type::unit(),
        Ty::Array { unique, .. } => {
            let mut shape = Vec::new();
            let mut cur = t;
            while let Ty::Array { dim, elem, .. } = cur {
                shape.push(to_size(dim));
                cur = elem;
            }
            match to_type(cur, q) {
                // An array whose element type is a quantified variable stays nested as is.
                Type::Array { shape: inner, elem, .. } => {
                    shape.extend(inner);
                    Type::Array { shape, elem, unique: *unique }
                }
                e => Type::Array { shape, elem: Box::new(e), unique: *unique },
            }
        }
        Ty::Tuple(ts) => Type::Tuple(ts.iter().map(|t| to_type(t, q)).collect()),
        Ty::Record(fs) => {
            Type::Record(fs.iter().map(|(n, t)| (n.clone(), to_type(t, q))).collect())
        }
        Ty::Sum(cs) => Type::Sum(
            cs.iter()
                .map(|(n, ts)| (n.clone(), ts.iter().map(|t| to_type(t, q)).collect()))
                .collect(),
        ),
        Ty::Arrow { param, from, to } => Type::Arrow {
            param: param.clone().filter(|p| to.mentions(p)),
            from: Box::new(to_type(from, q)),
            to: Box::new(to_type(to, q)),
        },
    }
}

/// A zonked dimension as a checked size.
pub(crate) fn to_size(d: &Dim) -> Size {
    map_atoms(d, &mut |a| match a {
        Dim::Name(n) => Size::Var(n.clone()),
        Dim::Var(v) => Size::Unknown(*v),
        _ => Size::Unknown(u32::MAX),
    })
}

/// Convert a table of node types; whether one of them has `Err` in it (the type of an
/// expression whose mistake was reported).
pub(crate) fn convert_table(
    store: &Store,
    table: &HashMap<NodeId, Ty>,
    q: &HashMap<TVar, u32>,
    out: &mut HashMap<NodeId, Type>,
) -> bool {
    let mut err = false;
    for (id, t) in table {
        let t = store.zonk(t);
        err |= t.has_err();
        out.insert(*id, to_type(&t, q));
    }
    err
}
