//! The top-level environment: schemes of the definitions checked so far, type abbreviations, and
//! the intrinsics (typed from their signatures in `intrinsics.rs`, parsed on first use).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{Liftedness, Name, TypeExp, TypeParam};

use super::ity::{Dim, IScheme, Store, Ty};
use super::typeexp::{Abbrev, AnySize, Conv};

/// Parses an intrinsic's signature (`syntax::parse_val_spec`).
pub(crate) type ParseSig = fn(&str) -> Result<(Vec<TypeParam>, TypeExp), Vec<Diagnostic>>;

pub(crate) struct Globals {
    pub values: HashMap<Name, Rc<IScheme>>,
    pub abbrevs: HashMap<Name, Abbrev>,
    intrinsics: HashMap<String, String>,
    cache: RefCell<HashMap<String, Option<Rc<IScheme>>>>,
    /// Problems with intrinsic signatures (internal errors, reported once).
    pub sig_errors: RefCell<Vec<Diagnostic>>,
    /// Parses one signature (`syntax::parse_val_spec`).
    parse_sig: ParseSig,
}

impl Globals {
    pub fn new(parse_sig: ParseSig) -> Globals {
        Globals {
            values: HashMap::new(),
            abbrevs: HashMap::new(),
            intrinsics: crate::intrinsics::all().into_iter().map(|i| (i.name, i.sig)).collect(),
            cache: RefCell::new(HashMap::new()),
            sig_errors: RefCell::new(Vec::new()),
            parse_sig,
        }
    }

    /// The scheme of a top-level name: the latest definition, else an intrinsic.
    pub fn lookup(&self, name: &str) -> Option<Rc<IScheme>> {
        if let Some(s) = self.values.get(name) {
            return Some(s.clone());
        }
        let sig = self.intrinsics.get(name)?;
        if let Some(s) = self.cache.borrow().get(name) {
            return s.clone();
        }
        let s = self.intrinsic_scheme(name, sig).map(Rc::new);
        self.cache.borrow_mut().insert(name.to_string(), s.clone());
        s
    }

    pub fn is_intrinsic(&self, name: &str) -> bool {
        !self.values.contains_key(name) && self.intrinsics.contains_key(name)
    }

    /// Every top-level name (for "did you mean").
    pub fn names(&self) -> Vec<Name> {
        self.values.keys().chain(self.intrinsics.keys()).cloned().collect()
    }

    fn intrinsic_scheme(&self, name: &str, sig: &str) -> Option<IScheme> {
        let (params, te) = match (self.parse_sig)(sig) {
            Ok(x) => x,
            Err(mut es) => {
                for e in &mut es {
                    e.message =
                        format!("internal error: in the signature of `{name}`: {}", e.message);
                }
                self.sig_errors.borrow_mut().extend(es);
                return None;
            }
        };
        let (scheme, errors) = scheme_of_sig(&params, &te, &self.abbrevs);
        if !errors.is_empty() {
            self.sig_errors.borrow_mut().extend(errors.into_iter().map(|mut e| {
                e.message = format!("internal error: in the signature of `{name}`: {}", e.message);
                e
            }));
            return None;
        }
        Some(scheme)
    }

    /// A fresh instance of a scheme at a use of `name`.
    pub fn instantiate(&self, store: &mut Store, s: &IScheme, name: &str, span: Span) -> Ty {
        let tvs: Vec<Ty> = s
            .type_params
            .iter()
            .zip(s.tparam_names.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|(l, n)| {
                let t = store.fresh_tvar(span);
                if let Ty::Var(v) = t {
                    let info = store.tvar_mut(v);
                    info.no_fun = *l != Liftedness::Lifted;
                    info.hint = n.cloned();
                    info.plain = true;
                }
                t
            })
            .collect();
        let mut dims: HashMap<Name, Dim> = HashMap::new();
        for n in &s.size_params {
            let d = store.fresh_dim();
            if let Dim::Var(v) = d {
                store.dvars[v as usize].hint = Some(n.clone());
            }
            dims.insert(n.clone(), d);
        }
        for n in &s.exists {
            let d = store.per_app_existential(format!("the size of the result of `{name}`"), span);
            dims.insert(n.clone(), d);
        }
        let t = subst_gen(&s.ty, &tvs);
        if dims.is_empty() {
            return t;
        }
        t.map_dim_atoms(&mut |d| match d {
            Dim::Name(n) => dims.get(n).cloned().unwrap_or_else(|| d.clone()),
            d => d.clone(),
        })
    }
}

/// Replace the quantified variables of a scheme's type.
pub(crate) fn subst_gen(t: &Ty, tvs: &[Ty]) -> Ty {
    match t {
        Ty::Gen(i) => tvs.get(*i as usize).cloned().unwrap_or(Ty::Err),
        Ty::Array { dim, elem, unique } => {
            Ty::Array { dim: dim.clone(), elem: Box::new(subst_gen(elem, tvs)), unique: *unique }
        }
        Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| subst_gen(t, tvs)).collect()),
        Ty::Record(fs) => {
            Ty::Record(fs.iter().map(|(n, t)| (n.clone(), subst_gen(t, tvs))).collect())
        }
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(n, ts)| (n.clone(), ts.iter().map(|t| subst_gen(t, tvs)).collect()))
                .collect(),
        ),
        Ty::Arrow { param, from, to } => Ty::Arrow {
            param: param.clone(),
            from: Box::new(subst_gen(from, tvs)),
            to: Box::new(subst_gen(to, tvs)),
        },
        t => t.clone(),
    }
}

/// The scheme of a signature `[n] 'a : t`: type parameters become quantified variables, `[]`
/// becomes an existential renamed at each use.
pub(crate) fn scheme_of_sig(
    params: &[TypeParam],
    te: &TypeExp,
    abbrevs: &HashMap<Name, Abbrev>,
) -> (IScheme, Vec<Diagnostic>) {
    let mut conv = Conv::new(None, abbrevs, AnySize::PerApp);
    let mut size_params = Vec::new();
    let mut type_params = Vec::new();
    let mut tparam_names = Vec::new();
    for p in params {
        match p {
            TypeParam::Size { name, .. } => {
                conv.sizes.insert(name.clone(), Dim::Name(name.clone()));
                size_params.push(name.clone());
            }
            TypeParam::Type { name, liftedness, .. } => {
                conv.tparams.insert(name.clone(), Ty::Gen(type_params.len() as u32));
                type_params.push(*liftedness);
                tparam_names.push(name.clone());
            }
        }
    }
    let ty = conv.ty(te);
    let scheme = IScheme { size_params, type_params, tparam_names, ty, exists: conv.exists };
    (scheme, conv.errors)
}
