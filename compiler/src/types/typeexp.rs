//! Type expressions as written (`[n]f32`, `vec [3] i32`, `*[]t`, `(n: i64) -> [n]t`) to internal
//! types: type abbreviations are expanded, size names resolved, and `[]` becomes whatever the
//! position calls for (a size to infer, an existential, or a scheme's result existential).

use std::collections::{BTreeMap, HashMap};

use crate::diag::Diagnostic;
use crate::prim::PrimType;
use crate::syntax::ast::{Name, SizeExp, SizeExpKind, TypeArg, TypeExp, TypeExpKind, TypeParam};

use super::ity::{Dim, Store, Ty};
use super::poly::arith;

/// A type abbreviation `type t [n] 'a = ...`.
#[derive(Clone, Debug)]
pub(crate) struct Abbrev {
    pub params: Vec<TypeParam>,
    pub def: TypeExp,
    /// The definition has errors (already reported): uses are unconstrained.
    pub broken: bool,
}

/// What `[]` (and `?[k].`) stands for in the type being converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AnySize {
    /// A size to infer (parameter types, ascriptions, loop parameters).
    Infer,
    /// A fresh existential (coercions `:>`).
    Existential,
    /// A function result's existential, fresh at every application (return types).
    PerApp,
}

/// Converts type expressions. In scheme mode (no store), `[]` becomes a placeholder name listed in
/// `exists`, which instantiation replaces.
pub(crate) struct Conv<'a> {
    pub store: Option<&'a mut Store>,
    pub abbrevs: &'a HashMap<Name, Abbrev>,
    pub tparams: HashMap<Name, Ty>,
    pub sizes: HashMap<Name, Dim>,
    pub any: AnySize,
    pub errors: Vec<Diagnostic>,
    /// Placeholder names for `[]` in scheme mode.
    pub exists: Vec<Name>,
    /// Existential names invented for `[]` and `?[k].` (not in scheme mode).
    pub invented: Vec<Name>,
    /// Bounds the work of expanding abbreviations (which can grow exponentially).
    budget: usize,
}

const EXPANSION_BUDGET: usize = 100_000;

impl<'a> Conv<'a> {
    pub fn new(
        store: Option<&'a mut Store>,
        abbrevs: &'a HashMap<Name, Abbrev>,
        any: AnySize,
    ) -> Self {
        Conv {
            store,
            abbrevs,
            tparams: HashMap::new(),
            sizes: HashMap::new(),
            any,
            errors: Vec::new(),
            exists: Vec::new(),
            invented: Vec::new(),
            budget: EXPANSION_BUDGET,
        }
    }

    fn any_dim(&mut self, what: &str, span: crate::Span) -> Dim {
        match self.store.as_deref_mut() {
            None => {
                let n = format!("?{}", self.exists.len());
                self.exists.push(n.clone());
                Dim::Name(n)
            }
            Some(store) => {
                let d = match self.any {
                    AnySize::Infer => return store.fresh_dim(),
                    AnySize::Existential => store.existential(what, span),
                    AnySize::PerApp => store.per_app_existential(what, span),
                };
                if let Dim::Name(n) = &d {
                    self.invented.push(n.clone());
                }
                d
            }
        }
    }

    pub fn size(&mut self, s: &SizeExp) -> Dim {
        match &s.kind {
            SizeExpKind::Any => self.any_dim("an unknown size `[]`", s.span),
            SizeExpKind::Const(n) => Dim::Const(*n),
            SizeExpKind::Bin(op, a, b) => {
                let (a, b) = (self.size(a), self.size(b));
                arith(*op, &a, &b)
            }
            SizeExpKind::Var(n) => match self.sizes.get(n) {
                Some(d) => d.clone(),
                None => {
                    let mut d = Diagnostic::ty(s.span, format!("unknown size `{n}`"))
                        .with_label("not a size parameter or `i64` variable in scope");
                    if let Some(h) = did_you_mean(n, self.sizes.keys().map(String::as_str)) {
                        d = d.with_hint(h);
                    }
                    self.errors.push(d);
                    self.any_dim("an unknown size", s.span)
                }
            },
        }
    }

    pub fn ty(&mut self, te: &TypeExp) -> Ty {
        if self.budget == 0 {
            if self.budget == 0 && !self.errors.iter().any(|e| e.message.contains("too large")) {
                self.errors.push(Diagnostic::ty(
                    te.span,
                    "this type is too large after expanding its abbreviations",
                ));
            }
            return Ty::Err;
        }
        self.budget -= 1;
        match &te.kind {
            TypeExpKind::Prim(p) => Ty::Prim(*p),
            TypeExpKind::Array(s, elem) => {
                let dim = self.size(s);
                let elem = self.ty(elem);
                Ty::array(dim, elem)
            }
            TypeExpKind::Tuple(ts) => {
                let ts: Vec<Ty> = ts.iter().map(|t| self.ty(t)).collect();
                if ts.len() == 1 {
                    ts.into_iter().next().unwrap_or(Ty::Err)
                } else {
                    Ty::Tuple(ts)
                }
            }
            TypeExpKind::Record(fs) => {
                let mut out = BTreeMap::new();
                for (n, t) in fs {
                    let t = self.ty(t);
                    if out.insert(n.clone(), t).is_some() {
                        self.errors.push(Diagnostic::ty(
                            te.span,
                            format!("field `{n}` is declared twice"),
                        ));
                    }
                }
                Ty::Record(out)
            }
            TypeExpKind::Sum(cs) => {
                let mut out = BTreeMap::new();
                for (n, ts) in cs {
                    let ts: Vec<Ty> = ts.iter().map(|t| self.ty(t)).collect();
                    if out.insert(n.clone(), ts).is_some() {
                        self.errors.push(Diagnostic::ty(
                            te.span,
                            format!("constructor `#{n}` is declared twice"),
                        ));
                    }
                }
                Ty::Sum(out)
            }
            TypeExpKind::Arrow(p, a, b) => {
                let from = self.ty(a);
                let saved = p
                    .as_ref()
                    .map(|p| (p.clone(), self.sizes.insert(p.clone(), Dim::Name(p.clone()))));
                let to = self.ty(b);
                if let Some((p, old)) = saved {
                    match old {
                        Some(d) => self.sizes.insert(p, d),
                        None => self.sizes.remove(&p),
                    };
                }
                Ty::Arrow { param: p.clone(), from: Box::new(from), to: Box::new(to) }
            }
            TypeExpKind::Unique(t) => self.ty(t).make_unique(),
            TypeExpKind::Exists(names, t) => {
                let mut saved = Vec::new();
                for n in names {
                    let d = self.any_dim(&format!("the existential size `{n}`"), te.span);
                    saved.push((n.clone(), self.sizes.insert(n.clone(), d)));
                }
                let t = self.ty(t);
                for (n, old) in saved.into_iter().rev() {
                    match old {
                        Some(d) => self.sizes.insert(n, d),
                        None => self.sizes.remove(&n),
                    };
                }
                t
            }
            TypeExpKind::Named(name, args) => self.named(te, name, args),
        }
    }

    fn named(&mut self, te: &TypeExp, name: &Name, args: &[TypeArg]) -> Ty {
        if let Some(t) = self.tparams.get(name) {
            if !args.is_empty() {
                self.errors.push(Diagnostic::ty(
                    te.span,
                    format!("the type parameter `{name}` takes no arguments"),
                ));
            }
            return t.clone();
        }
        if let Some(p) = PrimType::from_name(name) {
            if args.is_empty() {
                return Ty::Prim(p);
            }
        }
        let Some(ab) = self.abbrevs.get(name) else {
            let mut d = Diagnostic::ty(te.span, format!("unknown type `{name}`"));
            let candidates: Vec<String> = self
                .abbrevs
                .keys()
                .chain(self.tparams.keys())
                .cloned()
                .chain(PrimType::all().map(|p| p.name().to_string()))
                .collect();
            if let Some(h) = did_you_mean(name, candidates.iter().map(String::as_str)) {
                d = d.with_hint(h);
            }
            self.errors.push(d);
            return Ty::Err;
        };
        if ab.broken {
            return Ty::Err;
        }
        if ab.params.len() != args.len() {
            self.errors.push(Diagnostic::ty(
                te.span,
                format!(
                    "the type `{name}` takes {} argument{}, but is given {}",
                    ab.params.len(),
                    if ab.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
            return Ty::Err;
        }
        let mut tparams = HashMap::new();
        let mut sizes = HashMap::new();
        for (p, a) in ab.params.iter().zip(args) {
            match (p, a) {
                (TypeParam::Size { name, .. }, TypeArg::Size(s)) => {
                    let d = self.size(s);
                    sizes.insert(name.clone(), d);
                }
                (TypeParam::Type { name, .. }, TypeArg::Type(t)) => {
                    let t = self.ty(t);
                    tparams.insert(name.clone(), t);
                }
                (TypeParam::Size { name: p, .. }, TypeArg::Type(t)) => {
                    self.errors.push(Diagnostic::ty(
                        t.span,
                        format!("expected a size `[...]` for the parameter `{p}` of `{name}`"),
                    ));
                }
                (TypeParam::Type { name: p, .. }, TypeArg::Size(s)) => {
                    self.errors.push(Diagnostic::ty(
                        s.span,
                        format!("expected a type for the parameter `{p}` of `{name}`"),
                    ));
                }
            }
        }
        let def = ab.def.clone();
        let saved_t = std::mem::replace(&mut self.tparams, tparams);
        let saved_s = std::mem::replace(&mut self.sizes, sizes);
        let t = self.ty(&def);
        self.tparams = saved_t;
        self.sizes = saved_s;
        t
    }
}

/// Size names a type expression refers to that it does not bind itself (in order, deduplicated).
pub(crate) fn free_size_names(te: &TypeExp, out: &mut Vec<(Name, crate::Span)>) {
    fn go(te: &TypeExp, bound: &mut Vec<Name>, out: &mut Vec<(Name, crate::Span)>) {
        let size = |s: &SizeExp, bound: &Vec<Name>, out: &mut Vec<(Name, crate::Span)>| {
            s.for_each_name(&mut |n, span| {
                if !bound.contains(n) && !out.iter().any(|(m, _)| m == n) {
                    out.push((n.clone(), span));
                }
            })
        };
        match &te.kind {
            TypeExpKind::Prim(_) => {}
            TypeExpKind::Array(s, t) => {
                size(s, bound, out);
                go(t, bound, out);
            }
            TypeExpKind::Tuple(ts) => ts.iter().for_each(|t| go(t, bound, out)),
            TypeExpKind::Record(fs) => fs.iter().for_each(|(_, t)| go(t, bound, out)),
            TypeExpKind::Sum(cs) => {
                cs.iter().flat_map(|(_, ts)| ts).for_each(|t| go(t, bound, out))
            }
            TypeExpKind::Arrow(p, a, b) => {
                go(a, bound, out);
                let n = bound.len();
                bound.extend(p.iter().cloned());
                go(b, bound, out);
                bound.truncate(n);
            }
            TypeExpKind::Unique(t) => go(t, bound, out),
            TypeExpKind::Exists(names, t) => {
                let n = bound.len();
                bound.extend(names.iter().cloned());
                go(t, bound, out);
                bound.truncate(n);
            }
            TypeExpKind::Named(_, args) => {
                for a in args {
                    match a {
                        TypeArg::Size(s) => size(s, bound, out),
                        TypeArg::Type(t) => go(t, bound, out),
                    }
                }
            }
        }
    }
    go(te, &mut Vec::new(), out)
}

/// "did you mean `y`?" for a close name (edit distance at most a third of the length, at least 1).
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.contains('.') && !name.contains('.') {
            continue;
        }
        let d = edit_distance(name, c);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || d == bd && c < bc) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| format!("did you mean `{c}`?"))
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 3 {
        return usize::MAX;
    }
    // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=m).collect();
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}
