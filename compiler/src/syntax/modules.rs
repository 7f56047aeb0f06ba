//! The module language, flattened away: [`flatten`] turns a program's declarations, modules
//! included, into plain declarations whose names say where they were declared (`M.f`, `M.N.t`).
//!
//! Every module is known statically, so this is Futhark's defunctorisation done before type
//! checking: a structure's declarations are emitted once with its path as their prefix; a
//! parametric module is kept as its body and the scope it was written in, and each application
//! emits the body again with the parameter bound to the argument (so `module A = F X` declares
//! `A.f`, `A.t`, ...). Names are resolved here, lexically and in order, as Futhark does: a
//! variable or type that refers to a module-level declaration becomes that declaration's
//! qualified name, `M.f` written as a projection becomes a variable, and local bindings shadow.
//! The checker then sees one flat program and reports type errors at the spans they were written
//! at; for a parametric module's body, once, naming the applications (`Flat::instances`).
//!
//! Module types are checked by name: a module ascribed or passed where a module type is
//! expected must declare everything the module type specifies, and only those names remain
//! visible through it. Type abstraction is not enforced: the definition of a type a module type
//! leaves abstract stays visible to the checker, so a program Futhark rejects for relying on it
//! is accepted (what it computes is the same).
//!
//! A numeric module (`f32`, `i64`) can be an argument: `P.sqrt` is then `f32.sqrt` and `P.t` the
//! type `f32`. Opening one (`open f32`, `f32.(e)`) brings its members, `t` and its operators
//! into scope: `+` there is `f32`'s, so its operands are ascribed `f32`, as in `x f32.+ y`.
//!
//! A module may declare the built-in operators anew (`def (+)`): after that declaration, and
//! where the module is opened, `+` names it. Operators written qualified (`f32.+`) stay the
//! built-in ones (the parser lists them).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use crate::diag::{Diagnostic, Span};
use crate::prim::PrimType;
use crate::syntax::ast::*;

/// The plain declarations of a program written with modules, and one more than the largest node
/// id in them. Programs without module declarations come back as they are.
/// `needs_resolution` says whether the parser read an `m.(e)` or a pattern binding an operator
/// name (`(<=)`), whose uses it renames `(<=)`; `builtin_ops` are the operator nodes
/// written qualified by a numeric module (`x f32.+ y`), which a module's own `+` does not
/// replace.
pub fn flatten(
    decs: Vec<SrcDec>,
    next_id: u32,
    needs_resolution: bool,
    builtin_ops: &HashSet<NodeId>,
) -> Result<Flat, Vec<Diagnostic>> {
    let mut duplicates = Vec::new();
    duplicate_definitions(&decs, &mut duplicates);
    if !duplicates.is_empty() {
        return Err(duplicates);
    }
    if !needs_resolution && decs.iter().all(|d| matches!(d, SrcDec::Dec(_))) {
        let plain = decs
            .into_iter()
            .filter_map(|d| match d {
                SrcDec::Dec(d) => Some(d),
                _ => None,
            })
            .collect();
        return Ok(Flat { decs: plain, next_id, instances: BTreeMap::new() });
    }
    let mut f = Flattener {
        builtin_ops,
        out: Vec::new(),
        diags: Vec::new(),
        used_ids: HashSet::new(),
        next_id,
        emitted: HashMap::new(),
        instances: BTreeMap::new(),
        anon: 0,
        depth: 0,
        too_large: false,
    };
    let mut scope = Scope::default();
    f.decs(&decs, &mut scope, "", None, false);
    if f.diags.is_empty() {
        Ok(Flat { decs: f.out, next_id: f.next_id, instances: f.instances })
    } else {
        Err(f.diags)
    }
}

/// Reports each name defined twice in one sequence of declarations (the program's, or a module's
/// body), as Futhark does: values and modules share a namespace, types and module types have
/// their own. A `local` or `open` declaration is not counted (Futhark's rule), and a name may be
/// defined anew in a nested module or where it only shadows the prelude's.
fn duplicate_definitions(decs: &[SrcDec], diags: &mut Vec<Diagnostic>) {
    let mut first: HashMap<(u8, &str), Span> = HashMap::new();
    for d in decs {
        let (space, what, name, span) = match d {
            SrcDec::Dec(Dec::Val(v)) => (0, "value", &v.name, v.name_span),
            SrcDec::Dec(Dec::Type(t)) => (1, "type", &t.name, t.span),
            SrcDec::Module(m) => {
                nested_duplicates(&m.body, diags);
                (0, "module", &m.name, m.name_span)
            }
            SrcDec::ModType { name, name_span, .. } => (2, "module type", name, *name_span),
            SrcDec::Open(m, _) => {
                nested_duplicates(m, diags);
                continue;
            }
            SrcDec::Local(d, _) => {
                duplicate_definitions(std::slice::from_ref(d), diags);
                continue;
            }
        };
        match first.get(&(space, name.as_str())) {
            Some(at) => diags.push(
                Diagnostic::ty(span, format!("duplicate definition of {what} `{name}`"))
                    .with_label("defined again here")
                    .with_secondary(*at, "first defined here")
                    .with_hint("rename one of them; a name is defined once in a program or module"),
            ),
            None => {
                first.insert((space, name.as_str()), span);
            }
        }
    }
}

/// [`duplicate_definitions`] in the module bodies written inside `m`.
fn nested_duplicates(m: &ModExp, diags: &mut Vec<Diagnostic>) {
    match &m.kind {
        ModExpKind::Var(_) => {}
        ModExpKind::Struct(decs) => duplicate_definitions(decs, diags),
        ModExpKind::Apply(f, a) => {
            nested_duplicates(f, diags);
            nested_duplicates(a, diags);
        }
        ModExpKind::Ascribe(m, _) => nested_duplicates(m, diags),
    }
}

/// A program's plain declarations, one more than the largest node id in them, and where the
/// declarations emitted by parametric modules' applications came from.
pub struct Flat {
    pub decs: Vec<Dec>,
    pub next_id: u32,
    pub instances: BTreeMap<Name, Instance>,
}

/// How deeply parametric modules may apply others (each application emits a copy of a body).
const MAX_APPLICATION_DEPTH: u32 = 64;

/// The most declarations a program's modules may expand to: parametric modules applying others
/// more than once can multiply a short program's size exponentially.
const MAX_DECLARATIONS: usize = 20_000;

/// What is visible at a point of the program: source names and the declarations they denote.
#[derive(Clone, Default)]
struct Scope {
    values: HashMap<Name, Name>,
    types: HashMap<Name, Name>,
    mods: HashMap<Name, Module>,
    sigs: HashMap<Name, Rc<Sig>>,
    /// Inside `t.(e)` for a numeric module `t`: its operators are the ones on `t`.
    numeric_ops: Option<PrimType>,
}

impl Scope {
    /// The module `path` names (a numeric module by its name, unless shadowed), or the index of
    /// the first step that names none.
    fn find_module(&self, path: &[&str]) -> Result<Module, usize> {
        let first = path.first().ok_or(0usize)?;
        let mut m = match self.mods.get(*first) {
            Some(m) => m.clone(),
            None => Module::Numeric(PrimType::from_name(first).ok_or(0usize)?),
        };
        for (i, name) in path.iter().enumerate().skip(1) {
            m = match &m {
                Module::Struct(e) => e.mods.get(*name).cloned().ok_or(i)?,
                _ => return Err(i),
            };
        }
        Ok(m)
    }

    /// A structure's names in scope, above those of the same names.
    fn open(&mut self, e: &Exports) {
        self.values.extend(e.values.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.types.extend(e.types.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.mods.extend(e.mods.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

#[derive(Clone)]
enum Module {
    Struct(Rc<Exports>),
    Functor(Rc<Functor>),
    Numeric(PrimType),
}

/// The names a structure exports, each with the flat name of its declaration.
#[derive(Clone, Default)]
struct Exports {
    values: BTreeMap<Name, Name>,
    types: BTreeMap<Name, Name>,
    mods: BTreeMap<Name, Module>,
}

struct Functor {
    name: Name,
    params: Vec<ModParam>,
    ret: Option<SigExp>,
    body: ModExp,
    scope: Scope,
}

/// A module type, by the names it specifies.
#[derive(Clone, Default)]
struct Sig {
    values: BTreeSet<Name>,
    types: BTreeSet<Name>,
    mods: BTreeMap<Name, Sig>,
}

/// Source names bound locally (parameters, `let`s, type parameters): they shadow the module
/// level.
#[derive(Default)]
struct Locals {
    values: Vec<Name>,
    types: Vec<Name>,
}

struct Flattener<'b> {
    builtin_ops: &'b HashSet<NodeId>,
    out: Vec<Dec>,
    diags: Vec<Diagnostic>,
    used_ids: HashSet<u32>,
    next_id: u32,
    /// How many declarations have taken each flat name, so that a redeclared name gets a
    /// distinct one (a parametric module's body may still refer to the earlier declaration).
    emitted: HashMap<Name, u32>,
    instances: BTreeMap<Name, Instance>,
    /// Numbers the modules written without a name (arguments, opened structures).
    anon: u32,
    depth: u32,
    too_large: bool,
}

impl Flattener<'_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) -> &mut Self {
        self.diags.push(Diagnostic::ty(span, msg));
        self
    }

    /// Adds a hint to the diagnostic just reported.
    fn hint_last(&mut self, hint: &str) {
        if let Some(d) = self.diags.pop() {
            self.diags.push(d.with_hint(hint));
        }
    }

    fn id(&mut self, id: NodeId) -> NodeId {
        if self.used_ids.insert(id.0) {
            id
        } else {
            self.fresh()
        }
    }

    /// The flat name for a declaration of `name` under `prefix`: `prefix` + `name`, or, when
    /// that was declared before, a variant no program can write (`M.f%2`).
    fn flat_name(&mut self, prefix: &str, name: &str, keep: bool) -> Name {
        let base = format!("{prefix}{name}");
        let n = self.emitted.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 || keep {
            base
        } else {
            format!("{base}%{n}")
        }
    }

    // -----------------------------------------------------------------------------------------
    // Declarations

    /// Flattens `decs` in `scope`, declaring under `prefix`; what they export goes to `exports`
    /// (`None` under `local`). `in_module` is false only at the top level.
    fn decs(
        &mut self,
        decs: &[SrcDec],
        scope: &mut Scope,
        prefix: &str,
        mut exports: Option<&mut Exports>,
        in_module: bool,
    ) {
        for d in decs {
            self.dec(d, scope, prefix, exports.as_deref_mut(), in_module);
        }
    }

    fn dec(
        &mut self,
        d: &SrcDec,
        scope: &mut Scope,
        prefix: &str,
        exports: Option<&mut Exports>,
        in_module: bool,
    ) {
        if self.out.len() > MAX_DECLARATIONS {
            if !self.too_large {
                self.too_large = true;
                let span = match d {
                    SrcDec::Dec(Dec::Val(v)) => v.name_span,
                    SrcDec::Dec(Dec::Type(t)) => t.span,
                    SrcDec::Module(m) => m.name_span,
                    SrcDec::ModType { name_span, .. } => *name_span,
                    SrcDec::Open(_, span) | SrcDec::Local(_, span) => *span,
                };
                self.error(
                    span,
                    format!("the program's modules expand to more than {MAX_DECLARATIONS} declarations"),
                )
                .hint_last("parametric modules that apply others more than once multiply; apply them once and share the result");
            }
            return;
        }
        match d {
            SrcDec::Dec(Dec::Val(v)) => {
                if v.entry && in_module {
                    self.error(v.name_span, "an entry point cannot be declared in a module")
                        .hint_last(
                            "declare it at the top level and call the module's function from it",
                        );
                    return;
                }
                let flat = self.val_dec(v, scope, prefix);
                scope.values.insert(v.name.clone(), flat.name.clone());
                if let Some(e) = exports {
                    e.values.insert(v.name.clone(), flat.name.clone());
                }
                self.out.push(Dec::Val(flat));
            }
            SrcDec::Dec(Dec::Type(t)) => {
                let flat = self.type_dec(t, scope, prefix);
                scope.types.insert(t.name.clone(), flat.name.clone());
                if let Some(e) = exports {
                    e.types.insert(t.name.clone(), flat.name.clone());
                }
                self.out.push(Dec::Type(flat));
            }
            SrcDec::Module(mb) => {
                let m = if mb.params.is_empty() {
                    let path = format!("{prefix}{}.", mb.name);
                    let m = self.mod_exp(&mb.body, scope, &path);
                    match (m, &mb.sig) {
                        (Some(m), Some(sig)) => {
                            self.sig(sig, scope).and_then(|s| self.ascribe(m, &s, mb.name_span))
                        }
                        (m, _) => m,
                    }
                } else {
                    Some(Module::Functor(Rc::new(Functor {
                        name: format!("{prefix}{}", mb.name),
                        params: mb.params.clone(),
                        ret: mb.sig.clone(),
                        body: mb.body.clone(),
                        scope: scope.clone(),
                    })))
                };
                if let Some(m) = m {
                    scope.mods.insert(mb.name.clone(), m.clone());
                    if let Some(e) = exports {
                        e.mods.insert(mb.name.clone(), m);
                    }
                }
            }
            SrcDec::ModType { name, sig, .. } => {
                if let Some(s) = self.sig(sig, scope) {
                    scope.sigs.insert(name.clone(), Rc::new(s));
                }
            }
            SrcDec::Open(m, span) => {
                let path = format!("{prefix}{}.", self.next_anon());
                match self.mod_exp(m, scope, &path) {
                    Some(Module::Struct(e)) => {
                        scope.open(&e);
                        if let Some(x) = exports {
                            x.values.extend(e.values.clone());
                            x.types.extend(e.types.clone());
                            x.mods.extend(e.mods.clone());
                        }
                    }
                    // Its members, its type `t` and its operators, for the rest of the scope
                    // (not exported: they are the numeric module's, not this one's).
                    Some(Module::Numeric(t)) => open_numeric(scope, t),
                    Some(Module::Functor(f)) => {
                        self.error(
                            *span,
                            format!(
                                "`{}` is a parametric module: apply it before opening it",
                                f.name
                            ),
                        );
                    }
                    None => {}
                }
            }
            SrcDec::Local(d, _) => self.dec(d, scope, prefix, None, in_module),
        }
    }

    /// A path component for a module written without a name: a number, which no name a
    /// program declares can be.
    fn next_anon(&mut self) -> String {
        self.anon += 1;
        self.anon.to_string()
    }

    fn val_dec(&mut self, v: &ValDec, scope: &Scope, prefix: &str) -> ValDec {
        let mut locals = Locals::default();
        bind_type_params(&v.type_params, &mut locals);
        let params = v.params.iter().map(|p| self.pat(p, scope, &mut locals)).collect();
        let ret = v.ret.as_ref().map(|t| self.type_exp(t, scope, &locals));
        let body = self.expr(&v.body, scope, &mut locals);
        // Entry points keep their names: they are the program's interface.
        let name = self.flat_name(prefix, &v.name, v.entry);
        ValDec {
            entry: v.entry,
            name,
            name_span: v.name_span,
            type_params: v.type_params.clone(),
            params,
            ret,
            body,
            doc: v.doc.clone(),
            span: v.span,
        }
    }

    fn type_dec(&mut self, t: &TypeDec, scope: &Scope, prefix: &str) -> TypeDec {
        let mut locals = Locals::default();
        bind_type_params(&t.params, &mut locals);
        let def = self.type_exp(&t.def, scope, &locals);
        let name = self.flat_name(prefix, &t.name, false);
        TypeDec { liftedness: t.liftedness, name, params: t.params.clone(), def, span: t.span }
    }

    // -----------------------------------------------------------------------------------------
    // Module expressions and module types

    fn mod_exp(&mut self, m: &ModExp, scope: &Scope, prefix: &str) -> Option<Module> {
        match &m.kind {
            ModExpKind::Var(path) => self.mod_path(path, scope),
            ModExpKind::Struct(decs) => {
                let mut inner = scope.clone();
                let mut exports = Exports::default();
                self.decs(decs, &mut inner, prefix, Some(&mut exports), true);
                Some(Module::Struct(Rc::new(exports)))
            }
            ModExpKind::Apply(f, arg) => {
                let fm = self.mod_exp(f, scope, prefix)?;
                let arg_prefix = format!("{prefix}{}.", self.next_anon());
                let am = self.mod_exp(arg, scope, &arg_prefix)?;
                self.apply(fm, am, m.span, arg.span, prefix)
            }
            ModExpKind::Ascribe(inner, sig) => {
                let im = self.mod_exp(inner, scope, prefix)?;
                let s = self.sig(sig, scope)?;
                self.ascribe(im, &s, m.span)
            }
        }
    }

    /// The module `path` names, or an error at the first step that names none.
    fn mod_path(&mut self, path: &[(Name, Span)], scope: &Scope) -> Option<Module> {
        let names: Vec<&str> = path.iter().map(|(n, _)| n.as_str()).collect();
        match scope.find_module(&names) {
            Ok(m) => Some(m),
            Err(0) => {
                self.error(path[0].1, format!("unknown module `{}`", names[0]));
                None
            }
            Err(i) => {
                let written = names[..i].join(".");
                self.error(path[i].1, format!("module `{written}` has no module `{}`", names[i]));
                None
            }
        }
    }

    fn apply(
        &mut self,
        f: Module,
        arg: Module,
        span: Span,
        arg_span: Span,
        prefix: &str,
    ) -> Option<Module> {
        let Module::Functor(f) = f else {
            self.error(span, "only a parametric module can be applied to a module");
            return None;
        };
        if self.depth >= MAX_APPLICATION_DEPTH {
            self.error(span, "parametric modules applied too deeply");
            return None;
        }
        let param = &f.params[0];
        let psig = self.sig(&param.sig, &f.scope)?;
        let arg = self.ascribe(arg, &psig, arg_span)?;
        let mut scope = f.scope.clone();
        scope.mods.insert(param.name.clone(), arg);
        if f.params.len() > 1 {
            return Some(Module::Functor(Rc::new(Functor {
                name: f.name.clone(),
                params: f.params[1..].to_vec(),
                ret: f.ret.clone(),
                body: f.body.clone(),
                scope,
            })));
        }
        self.depth += 1;
        let first = self.out.len();
        let m = self.mod_exp(&f.body, &scope, prefix);
        self.depth -= 1;
        // The innermost application is the one to name (an inner one has recorded its own).
        for d in &self.out[first..] {
            let name = match d {
                Dec::Val(v) => &v.name,
                Dec::Type(t) => &t.name,
            };
            self.instances
                .entry(name.clone())
                .or_insert_with(|| Instance { functor: f.name.clone(), at: span });
        }
        match (&f.ret, m) {
            (Some(sig), Some(m)) => {
                let s = self.sig(sig, &scope)?;
                self.ascribe(m, &s, span)
            }
            (_, m) => m,
        }
    }

    /// `m` seen through the module type `sig`: it must declare what `sig` specifies, and only
    /// that stays visible.
    fn ascribe(&mut self, m: Module, sig: &Sig, span: Span) -> Option<Module> {
        match m {
            Module::Struct(e) => {
                let mut out = Exports::default();
                let mut ok = self.keep(&sig.values, &e.values, &mut out.values, "", span);
                ok &= self.keep(&sig.types, &e.types, &mut out.types, "the type ", span);
                for (name, s) in &sig.mods {
                    match e.mods.get(name) {
                        Some(inner) => match self.ascribe(inner.clone(), s, span) {
                            Some(inner) => {
                                out.mods.insert(name.clone(), inner);
                            }
                            None => ok = false,
                        },
                        None => {
                            ok = false;
                            self.error(
                                span,
                                format!("the module lacks the module `{name}`, which its module type specifies"),
                            );
                        }
                    }
                }
                ok.then(|| Module::Struct(Rc::new(out)))
            }
            Module::Numeric(t) => {
                let members: BTreeSet<String> = crate::intrinsics::numeric_members(t)
                    .into_iter()
                    .filter_map(|m| m.name.split_once('.').map(|(_, short)| short.to_string()))
                    .collect();
                let mut ok = true;
                for v in &sig.values {
                    let operator = !v.starts_with(|c: char| c.is_alphanumeric() || c == '_');
                    if !operator && !members.contains(v) {
                        ok = false;
                        self.error(span, format!("the numeric module `{t}` has no `{v}`, which the module type specifies"));
                    }
                }
                for n in sig.types.iter().filter(|n| *n != "t").chain(sig.mods.keys()) {
                    ok = false;
                    self.error(span, format!("the numeric module `{t}` has no `{n}` (its one type is `t`), which the module type specifies"));
                }
                ok.then_some(Module::Numeric(t))
            }
            Module::Functor(f) => {
                self.error(
                    span,
                    format!("`{}` is a parametric module, where a module was expected", f.name),
                );
                None
            }
        }
    }

    /// Copies the declarations named in `names` from `from` to `into`, reporting each one
    /// missing (`what` says what kind of name it is); whether none was.
    fn keep(
        &mut self,
        names: &BTreeSet<Name>,
        from: &BTreeMap<Name, Name>,
        into: &mut BTreeMap<Name, Name>,
        what: &str,
        span: Span,
    ) -> bool {
        let mut ok = true;
        for n in names {
            match from.get(n) {
                Some(flat) => {
                    into.insert(n.clone(), flat.clone());
                }
                None => {
                    ok = false;
                    let spec =
                        if what.is_empty() { format!(" (`val {n}`)") } else { String::new() };
                    self.error(
                        span,
                        format!(
                            "the module lacks {what}`{n}`, which its module type specifies{spec}"
                        ),
                    );
                }
            }
        }
        ok
    }

    fn sig(&mut self, s: &SigExp, scope: &Scope) -> Option<Sig> {
        match &s.kind {
            SigExpKind::Var(path) => {
                let (name, span) = &path[0];
                if path.len() > 1 {
                    self.error(s.span, "unsupported: module types declared in modules (`M.S`)")
                        .hint_last("declare the module type at the top level");
                    return None;
                }
                match scope.sigs.get(name) {
                    Some(sig) => Some((**sig).clone()),
                    None => {
                        self.error(*span, format!("unknown module type `{name}`"));
                        None
                    }
                }
            }
            SigExpKind::Specs(specs) => {
                let mut out = Sig::default();
                for spec in specs {
                    match spec {
                        Spec::Val { name, .. } => {
                            out.values.insert(name.clone());
                        }
                        Spec::Type { name, .. } => {
                            out.types.insert(name.clone());
                        }
                        Spec::Module { name, sig, .. } => {
                            let inner = self.sig(sig, scope)?;
                            out.mods.insert(name.clone(), inner);
                        }
                        Spec::Include(sig) => {
                            let inner = self.sig(sig, scope)?;
                            out.values.extend(inner.values);
                            out.types.extend(inner.types);
                            out.mods.extend(inner.mods);
                        }
                    }
                }
                Some(out)
            }
            SigExpKind::With(inner, names) => {
                let sig = self.sig(inner, scope)?;
                let mut at = &sig;
                for n in &names[..names.len() - 1] {
                    match at.mods.get(n) {
                        Some(m) => at = m,
                        None => {
                            self.error(s.span, format!("the module type has no module `{n}`"));
                            return None;
                        }
                    }
                }
                let last = &names[names.len() - 1];
                if !at.types.contains(last) {
                    self.error(s.span, format!("the module type has no type `{last}` to refine"));
                    return None;
                }
                Some(sig)
            }
        }
    }
}

/// A numeric module's members, its type `t` and its operators in scope.
fn open_numeric(scope: &mut Scope, t: PrimType) {
    for m in crate::intrinsics::numeric_members(t) {
        if let Some((_, short)) = m.name.split_once('.') {
            scope.values.insert(short.to_string(), m.name.clone());
        }
    }
    scope.types.insert("t".to_string(), t.name().to_string());
    scope.numeric_ops = Some(t);
}

fn bind_type_params(params: &[TypeParam], locals: &mut Locals) {
    for p in params {
        match p {
            TypeParam::Size { name, .. } => locals.values.push(name.clone()),
            TypeParam::Type { name, .. } => locals.types.push(name.clone()),
        }
    }
}

mod resolve;
#[cfg(test)]
mod tests;
