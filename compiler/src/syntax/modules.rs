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
//! at (a parametric module's body, once for each application that is wrong).
//!
//! Module types are checked by name: a module ascribed or passed where a module type is
//! expected must declare everything the module type specifies, and only those names remain
//! visible through it. Type abstraction is not enforced: the definition of a type a module type
//! leaves abstract stays visible to the checker, so a program Futhark rejects for relying on it
//! is accepted (what it computes is the same).
//!
//! A numeric module (`f32`, `i64`) can be an argument: `P.sqrt` is then `f32.sqrt` and `P.t` the
//! type `f32`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use crate::diag::{Diagnostic, Span};
use crate::prim::PrimType;
use crate::syntax::ast::*;

/// The plain declarations of a program written with modules, and one more than the largest node
/// id in them. Programs without module declarations come back as they are.
/// `local_opens` says whether the parser read an `m.(e)`; `builtin_ops` are the operator nodes
/// written qualified by a numeric module (`x f32.+ y`), which a module's own `+` does not
/// replace.
pub fn flatten(
    decs: Vec<SrcDec>,
    next_id: u32,
    local_opens: bool,
    builtin_ops: &HashSet<NodeId>,
) -> Result<(Vec<Dec>, u32), Vec<Diagnostic>> {
    if !local_opens && decs.iter().all(|d| matches!(d, SrcDec::Dec(_))) {
        let plain = decs
            .into_iter()
            .filter_map(|d| match d {
                SrcDec::Dec(d) => Some(d),
                _ => None,
            })
            .collect();
        return Ok((plain, next_id));
    }
    let mut f = Flattener {
        builtin_ops,
        out: Vec::new(),
        diags: Vec::new(),
        used_ids: HashSet::new(),
        next_id,
        emitted: HashMap::new(),
        anon: 0,
        depth: 0,
        too_large: false,
    };
    let mut scope = Scope::default();
    f.decs(&decs, &mut scope, "", None, false);
    if f.diags.is_empty() {
        Ok((f.out, f.next_id))
    } else {
        Err(f.diags)
    }
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
                        for (k, v) in &e.values {
                            scope.values.insert(k.clone(), v.clone());
                        }
                        for (k, v) in &e.types {
                            scope.types.insert(k.clone(), v.clone());
                        }
                        for (k, v) in &e.mods {
                            scope.mods.insert(k.clone(), v.clone());
                        }
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

    fn mod_path(&mut self, path: &[(Name, Span)], scope: &Scope) -> Option<Module> {
        let (first, span) = &path[0];
        let mut m = match scope.mods.get(first) {
            Some(m) => m.clone(),
            None => match PrimType::from_name(first) {
                Some(t) => Module::Numeric(t),
                None => {
                    self.error(*span, format!("unknown module `{first}`"));
                    return None;
                }
            },
        };
        let mut written = first.clone();
        for (name, span) in &path[1..] {
            let next = match &m {
                Module::Struct(e) => e.mods.get(name).cloned(),
                _ => None,
            };
            match next {
                Some(n) => m = n,
                None => {
                    self.error(*span, format!("module `{written}` has no module `{name}`"));
                    return None;
                }
            }
            written = format!("{written}.{name}");
        }
        Some(m)
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
        let m = self.mod_exp(&f.body, &scope, prefix);
        self.depth -= 1;
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
                let mut ok = true;
                for v in &sig.values {
                    match e.values.get(v) {
                        Some(flat) => {
                            out.values.insert(v.clone(), flat.clone());
                        }
                        None => {
                            ok = false;
                            self.error(
                                span,
                                format!("the module lacks `{v}`, which its module type specifies (`val {v}`)"),
                            );
                        }
                    }
                }
                for t in &sig.types {
                    match e.types.get(t) {
                        Some(flat) => {
                            out.types.insert(t.clone(), flat.clone());
                        }
                        None => {
                            ok = false;
                            self.error(
                                span,
                                format!("the module lacks the type `{t}`, which its module type specifies"),
                            );
                        }
                    }
                }
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
            SigExpKind::With(inner, names, _) => {
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

    // -----------------------------------------------------------------------------------------
    // Names inside declarations

    /// What `M.N.x` (as projections of a variable) denotes, if `M` is a module.
    fn resolve(&mut self, e: &Expr, scope: &Scope, locals: &Locals) -> Option<Resolved> {
        match &e.kind {
            ExprKind::Var(n) if !locals.values.contains(n) => {
                scope.mods.get(n).map(|m| Resolved::Module(m.clone(), n.clone()))
            }
            ExprKind::Project(inner, f) => match self.resolve(inner, scope, locals)? {
                Resolved::Module(m, written) => {
                    let path = format!("{written}.{f}");
                    match &m {
                        Module::Struct(x) => {
                            if let Some(m) = x.mods.get(f) {
                                Some(Resolved::Module(m.clone(), path))
                            } else if let Some(v) = x.values.get(f) {
                                Some(Resolved::Value(v.clone()))
                            } else {
                                self.error(e.span, format!("module `{written}` has no `{f}`"));
                                Some(Resolved::Error)
                            }
                        }
                        Module::Numeric(t) => Some(Resolved::Value(format!("{t}.{f}"))),
                        Module::Functor(_) => {
                            self.error(
                                e.span,
                                format!("`{written}` is a parametric module: apply it to a module first"),
                            );
                            Some(Resolved::Error)
                        }
                    }
                }
                other => Some(other),
            },
            _ => None,
        }
    }

    /// The operator of the node `id`: the built-in one if it was written qualified (`f32.+`).
    fn op_name(&self, op: &Name, id: NodeId, scope: &Scope, locals: &Locals) -> Name {
        if self.builtin_ops.contains(&id) {
            op.clone()
        } else {
            self.value_name(op, scope, locals)
        }
    }

    /// The declaration a variable or operator (or a backticked `M.f`) names.
    fn value_name(&self, n: &Name, scope: &Scope, locals: &Locals) -> Name {
        if locals.values.contains(n) {
            return n.clone();
        }
        if let Some(flat) = scope.values.get(n) {
            return flat.clone();
        }
        // `` x `M.f` y ``: resolved here when `M` is a module in scope; otherwise the checker
        // reports the name.
        let mut parts = n.split('.');
        let mut m = parts.next().and_then(|first| scope.mods.get(first)).cloned();
        let mut rest: Vec<&str> = parts.collect();
        let Some(last) = rest.pop() else { return n.clone() };
        for part in rest {
            m = match m {
                Some(Module::Struct(x)) => x.mods.get(part).cloned(),
                _ => None,
            };
        }
        match m {
            Some(Module::Struct(x)) => x.values.get(last).cloned().unwrap_or_else(|| n.clone()),
            Some(Module::Numeric(t)) => format!("{t}.{last}"),
            _ => n.clone(),
        }
    }

    fn expr(&mut self, e: &Expr, scope: &Scope, locals: &mut Locals) -> Expr {
        let kind = match &e.kind {
            ExprKind::Project(..) => match self.resolve(e, scope, locals) {
                Some(Resolved::Value(v)) => ExprKind::Var(v),
                Some(Resolved::Error) => ExprKind::Var(String::from("%error")),
                Some(Resolved::Module(_, written)) => {
                    self.error(e.span, format!("`{written}` is a module, not a value"));
                    ExprKind::Var(String::from("%error"))
                }
                None => {
                    let ExprKind::Project(inner, f) = &e.kind else { unreachable!() };
                    ExprKind::Project(Box::new(self.expr(inner, scope, locals)), f.clone())
                }
            },
            ExprKind::Var(n) => {
                let local = locals.values.contains(n);
                if !local && !scope.values.contains_key(n) && scope.mods.contains_key(n) {
                    self.error(e.span, format!("`{n}` is a module, not a value"));
                }
                ExprKind::Var(self.value_name(n, scope, locals))
            }
            ExprKind::Literal(l) => ExprKind::Literal(*l),
            ExprKind::Tuple(es) => ExprKind::Tuple(self.exprs(es, scope, locals)),
            ExprKind::ArrayLit(es) => ExprKind::ArrayLit(self.exprs(es, scope, locals)),
            ExprKind::Constr(c, es) => ExprKind::Constr(c.clone(), self.exprs(es, scope, locals)),
            ExprKind::Record(fs) => ExprKind::Record(
                fs.iter()
                    .map(|f| match f {
                        RecordField::Explicit(n, x) => {
                            RecordField::Explicit(n.clone(), self.expr(x, scope, locals))
                        }
                        RecordField::Implicit(n, x) => {
                            let x = self.expr(x, scope, locals);
                            if matches!(&x.kind, ExprKind::Var(v) if v == n) {
                                RecordField::Implicit(n.clone(), x)
                            } else {
                                RecordField::Explicit(n.clone(), x)
                            }
                        }
                    })
                    .collect(),
            ),
            ExprKind::Range { start, second, end, kind } => ExprKind::Range {
                start: self.boxed(start, scope, locals),
                second: second.as_ref().map(|s| self.boxed(s, scope, locals)),
                end: self.boxed(end, scope, locals),
                kind: *kind,
            },
            ExprKind::Index(x, idx) => {
                ExprKind::Index(self.boxed(x, scope, locals), self.dims(idx, scope, locals))
            }
            ExprKind::Apply(a, b) => {
                if let ExprKind::Var(n) = &a.kind {
                    if let Some(path) = n.strip_prefix(LOCAL_OPEN) {
                        return self.local_open(path, a.span, b, scope, locals);
                    }
                }
                ExprKind::Apply(self.boxed(a, scope, locals), self.boxed(b, scope, locals))
            }
            ExprKind::BinOp { op, op_span, lhs, rhs } => {
                let op = self.op_name(op, e.id, scope, locals);
                let mut lhs = self.boxed(lhs, scope, locals);
                let mut rhs = self.boxed(rhs, scope, locals);
                if let Some(t) = self.numeric_op(&op, scope, locals) {
                    lhs = self.ascribed(lhs, t);
                    rhs = self.ascribed(rhs, t);
                }
                ExprKind::BinOp { op, op_span: *op_span, lhs, rhs }
            }
            ExprKind::Neg(x) => ExprKind::Neg(self.boxed(x, scope, locals)),
            ExprKind::Not(x) => ExprKind::Not(self.boxed(x, scope, locals)),
            ExprKind::OpSection(op) => {
                let op = self.op_name(op, e.id, scope, locals);
                match self.numeric_op(&op, scope, locals) {
                    // `t.((+))` is `((+) : t -> t -> t)`, as `(t.+)` is.
                    Some(t) => {
                        let result = if is_comparison(&op) { PrimType::Bool } else { t };
                        let ty = arrow(t, arrow(t, prim(result, e.span), e.span), e.span);
                        let section =
                            Expr { kind: ExprKind::OpSection(op), span: e.span, id: self.fresh() };
                        ExprKind::Ascript(Box::new(section), ty)
                    }
                    None => ExprKind::OpSection(op),
                }
            }
            ExprKind::LeftSection(op, x) | ExprKind::RightSection(op, x) => {
                let op = self.op_name(op, e.id, scope, locals);
                let mut x = self.boxed(x, scope, locals);
                if let Some(t) = self.numeric_op(&op, scope, locals) {
                    x = self.ascribed(x, t);
                }
                match &e.kind {
                    ExprKind::LeftSection(..) => ExprKind::LeftSection(op, x),
                    _ => ExprKind::RightSection(op, x),
                }
            }
            ExprKind::ProjectSection(fs) => ExprKind::ProjectSection(fs.clone()),
            ExprKind::Lambda { params, ret, body } => {
                let mark = locals.values.len();
                let params = params.iter().map(|p| self.pat(p, scope, locals)).collect();
                let ret = ret.as_ref().map(|t| self.type_exp(t, scope, locals));
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Lambda { params, ret, body }
            }
            ExprKind::If(a, b, c) => ExprKind::If(
                self.boxed(a, scope, locals),
                self.boxed(b, scope, locals),
                self.boxed(c, scope, locals),
            ),
            ExprKind::Let { sizes, pat, rhs, body } => {
                let rhs = self.boxed(rhs, scope, locals);
                let mark = locals.values.len();
                locals.values.extend(sizes.iter().map(|(n, _)| n.clone()));
                let pat = self.pat(pat, scope, locals);
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Let { sizes: sizes.clone(), pat, rhs, body }
            }
            ExprKind::LetFun { name, name_span, type_params, params, ret, rhs, body } => {
                let (vmark, tmark) = (locals.values.len(), locals.types.len());
                bind_type_params(type_params, locals);
                let params = params.iter().map(|p| self.pat(p, scope, locals)).collect();
                let ret = ret.as_ref().map(|t| self.type_exp(t, scope, locals));
                let rhs = self.boxed(rhs, scope, locals);
                locals.values.truncate(vmark);
                locals.types.truncate(tmark);
                locals.values.push(name.clone());
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(vmark);
                ExprKind::LetFun {
                    name: name.clone(),
                    name_span: *name_span,
                    type_params: type_params.clone(),
                    params,
                    ret,
                    rhs,
                    body,
                }
            }
            ExprKind::LetWith { name, name_span, indices, value, body } => {
                let indices = self.dims(indices, scope, locals);
                let value = self.boxed(value, scope, locals);
                let mark = locals.values.len();
                locals.values.push(name.clone());
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::LetWith {
                    name: name.clone(),
                    name_span: *name_span,
                    indices,
                    value,
                    body,
                }
            }
            ExprKind::Update(a, idx, v) => ExprKind::Update(
                self.boxed(a, scope, locals),
                self.dims(idx, scope, locals),
                self.boxed(v, scope, locals),
            ),
            ExprKind::RecordUpdate(a, fs, v) => ExprKind::RecordUpdate(
                self.boxed(a, scope, locals),
                fs.clone(),
                self.boxed(v, scope, locals),
            ),
            ExprKind::Loop { pat, init, form, body } => {
                let init = init.as_ref().map(|i| self.boxed(i, scope, locals));
                let mark = locals.values.len();
                let (form, pat) = match form {
                    LoopForm::For { var, var_span, bound } => {
                        let bound = self.boxed(bound, scope, locals);
                        locals.values.push(var.clone());
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::For { var: var.clone(), var_span: *var_span, bound }, pat)
                    }
                    LoopForm::ForIn(p, xs) => {
                        let xs = self.boxed(xs, scope, locals);
                        let p = self.pat(p, scope, locals);
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::ForIn(p, xs), pat)
                    }
                    LoopForm::While(c) => {
                        let pat = self.pat(pat, scope, locals);
                        (LoopForm::While(self.boxed(c, scope, locals)), pat)
                    }
                };
                let body = self.boxed(body, scope, locals);
                locals.values.truncate(mark);
                ExprKind::Loop { pat, init, form, body }
            }
            ExprKind::Match(x, cases) => {
                let x = self.boxed(x, scope, locals);
                let cases = cases
                    .iter()
                    .map(|(p, b)| {
                        let mark = locals.values.len();
                        let p = self.pat(p, scope, locals);
                        let b = self.expr(b, scope, locals);
                        locals.values.truncate(mark);
                        (p, b)
                    })
                    .collect();
                ExprKind::Match(x, cases)
            }
            ExprKind::Ascript(x, t) => {
                ExprKind::Ascript(self.boxed(x, scope, locals), self.type_exp(t, scope, locals))
            }
            ExprKind::Coerce(x, t) => {
                ExprKind::Coerce(self.boxed(x, scope, locals), self.type_exp(t, scope, locals))
            }
            ExprKind::Assert(a, b) => {
                ExprKind::Assert(self.boxed(a, scope, locals), self.boxed(b, scope, locals))
            }
        };
        Expr { kind, span: e.span, id: self.id(e.id) }
    }

    /// `m.(e)`: `e` with the names `m` declares in scope, above the local bindings around it.
    fn local_open(
        &mut self,
        path: &str,
        span: Span,
        e: &Expr,
        scope: &Scope,
        locals: &mut Locals,
    ) -> Expr {
        let steps: Vec<(Name, Span)> = path.split('.').map(|n| (n.to_string(), span)).collect();
        let mut inner = scope.clone();
        match self.mod_path(&steps, scope) {
            Some(Module::Struct(x)) => {
                inner.values.extend(x.values.iter().map(|(k, v)| (k.clone(), v.clone())));
                inner.types.extend(x.types.iter().map(|(k, v)| (k.clone(), v.clone())));
                inner.mods.extend(x.mods.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Some(Module::Numeric(t)) => open_numeric(&mut inner, t),
            Some(Module::Functor(f)) => {
                self.error(
                    span,
                    format!("`{}` is a parametric module: apply it before opening it", f.name),
                );
            }
            None => {}
        }
        // The opened names shadow the local bindings around `m.(e)`.
        let mut opened = Locals {
            values: locals
                .values
                .iter()
                .filter(|n| {
                    !inner.values.contains_key(*n) || scope.values.get(*n) == inner.values.get(*n)
                })
                .cloned()
                .collect(),
            types: locals
                .types
                .iter()
                .filter(|n| {
                    !inner.types.contains_key(*n) || scope.types.get(*n) == inner.types.get(*n)
                })
                .cloned()
                .collect(),
        };
        let mut out = self.expr(e, &inner, &mut opened);
        out.span = span.to(e.span);
        out
    }

    /// The type whose operator `op` is, inside `t.(e)` for a numeric module `t`.
    fn numeric_op(&self, op: &str, scope: &Scope, locals: &Locals) -> Option<PrimType> {
        let t = scope.numeric_ops?;
        if locals.values.iter().any(|n| n == op) {
            return None;
        }
        let float = matches!(t, PrimType::Float(_));
        let arith = ["+", "-", "*", "/", "%", "**"].contains(&op);
        let int_only = ["//", "%%", "&", "|", "^", "<<", ">>", ">>>"].contains(&op);
        let numeric = t != PrimType::Bool;
        ((numeric && (arith || (int_only && !float))) || is_comparison(op)).then_some(t)
    }

    fn fresh(&mut self) -> NodeId {
        let id = self.next_id;
        self.next_id += 1;
        self.used_ids.insert(id);
        NodeId(id)
    }

    /// `(e : t)`.
    fn ascribed(&mut self, e: Box<Expr>, t: PrimType) -> Box<Expr> {
        let span = e.span;
        let id = self.fresh();
        Box::new(Expr { kind: ExprKind::Ascript(e, prim(t, span)), span, id })
    }

    fn boxed(&mut self, e: &Expr, scope: &Scope, locals: &mut Locals) -> Box<Expr> {
        Box::new(self.expr(e, scope, locals))
    }

    fn exprs(&mut self, es: &[Expr], scope: &Scope, locals: &mut Locals) -> Vec<Expr> {
        es.iter().map(|x| self.expr(x, scope, locals)).collect()
    }

    fn dims(&mut self, idx: &[DimIndex], scope: &Scope, locals: &mut Locals) -> Vec<DimIndex> {
        idx.iter()
            .map(|d| match d {
                DimIndex::Fix(x) => DimIndex::Fix(self.expr(x, scope, locals)),
                DimIndex::Slice { start, end, stride } => DimIndex::Slice {
                    start: start.as_ref().map(|x| self.expr(x, scope, locals)),
                    end: end.as_ref().map(|x| self.expr(x, scope, locals)),
                    stride: stride.as_ref().map(|x| self.expr(x, scope, locals)),
                },
            })
            .collect()
    }

    /// A pattern, its types resolved; the variables it binds are added to `locals`.
    fn pat(&mut self, p: &Pat, scope: &Scope, locals: &mut Locals) -> Pat {
        let kind = match &p.kind {
            PatKind::Var(n) => {
                locals.values.push(n.clone());
                PatKind::Var(n.clone())
            }
            PatKind::Wildcard => PatKind::Wildcard,
            PatKind::Literal(l) => PatKind::Literal(*l),
            PatKind::Tuple(ps) => {
                PatKind::Tuple(ps.iter().map(|q| self.pat(q, scope, locals)).collect())
            }
            PatKind::Constr(c, ps) => {
                PatKind::Constr(c.clone(), ps.iter().map(|q| self.pat(q, scope, locals)).collect())
            }
            PatKind::Record(fs) => PatKind::Record(
                fs.iter().map(|(n, q)| (n.clone(), self.pat(q, scope, locals))).collect(),
            ),
            PatKind::Ascribed(q, t) => {
                let t = self.type_exp(t, scope, locals);
                PatKind::Ascribed(Box::new(self.pat(q, scope, locals)), t)
            }
        };
        Pat { kind, span: p.span, id: self.id(p.id) }
    }

    fn type_exp(&mut self, t: &TypeExp, scope: &Scope, locals: &Locals) -> TypeExp {
        let kind = match &t.kind {
            TypeExpKind::Prim(p) => TypeExpKind::Prim(*p),
            TypeExpKind::Named(n, args) => {
                let args: Vec<TypeArg> = args
                    .iter()
                    .map(|a| match a {
                        TypeArg::Size(d) => TypeArg::Size(d.clone()),
                        TypeArg::Type(t) => TypeArg::Type(self.type_exp(t, scope, locals)),
                    })
                    .collect();
                match self.type_name(n, t.span, scope, locals) {
                    TypeName::Named(n) => TypeExpKind::Named(n, args),
                    TypeName::Prim(p) if args.is_empty() => TypeExpKind::Prim(p),
                    TypeName::Prim(p) => {
                        self.error(t.span, format!("the type `{p}` takes no arguments"));
                        TypeExpKind::Prim(p)
                    }
                }
            }
            TypeExpKind::Array(d, elem) => {
                TypeExpKind::Array(d.clone(), Box::new(self.type_exp(elem, scope, locals)))
            }
            TypeExpKind::Tuple(ts) => {
                TypeExpKind::Tuple(ts.iter().map(|x| self.type_exp(x, scope, locals)).collect())
            }
            TypeExpKind::Record(fs) => TypeExpKind::Record(
                fs.iter().map(|(n, x)| (n.clone(), self.type_exp(x, scope, locals))).collect(),
            ),
            TypeExpKind::Arrow(n, a, b) => TypeExpKind::Arrow(
                n.clone(),
                Box::new(self.type_exp(a, scope, locals)),
                Box::new(self.type_exp(b, scope, locals)),
            ),
            TypeExpKind::Unique(x) => {
                TypeExpKind::Unique(Box::new(self.type_exp(x, scope, locals)))
            }
            TypeExpKind::Exists(ns, x) => {
                TypeExpKind::Exists(ns.clone(), Box::new(self.type_exp(x, scope, locals)))
            }
            TypeExpKind::Sum(cs) => TypeExpKind::Sum(
                cs.iter()
                    .map(|(c, ts)| {
                        (c.clone(), ts.iter().map(|x| self.type_exp(x, scope, locals)).collect())
                    })
                    .collect(),
            ),
        };
        TypeExp { kind, span: t.span }
    }

    fn type_name(&mut self, n: &Name, span: Span, scope: &Scope, locals: &Locals) -> TypeName {
        if locals.types.contains(n) {
            return TypeName::Named(n.clone());
        }
        let parts: Vec<&str> = n.split('.').collect();
        if parts.len() == 1 {
            return match scope.types.get(n) {
                // `t` inside `f32.(e)`.
                Some(flat) => match PrimType::from_name(flat) {
                    Some(p) => TypeName::Prim(p),
                    None => TypeName::Named(flat.clone()),
                },
                None => TypeName::Named(n.clone()),
            };
        }
        let (last, mods) = parts.split_last().unwrap_or((&"", &[]));
        let path: Vec<(Name, Span)> = mods.iter().map(|m| (m.to_string(), span)).collect();
        let Some(m) = self.mod_path(&path, scope) else { return TypeName::Named(n.clone()) };
        match m {
            Module::Struct(e) => match e.types.get(*last) {
                Some(flat) => TypeName::Named(flat.clone()),
                None => {
                    self.error(span, format!("module `{}` has no type `{last}`", mods.join(".")));
                    TypeName::Named(n.clone())
                }
            },
            Module::Numeric(p) if *last == "t" => TypeName::Prim(p),
            Module::Numeric(p) => {
                self.error(
                    span,
                    format!("the numeric module `{p}` has no type `{last}` (its type is `{p}.t`)"),
                );
                TypeName::Named(n.clone())
            }
            Module::Functor(f) => {
                self.error(
                    span,
                    format!("`{}` is a parametric module: apply it to a module first", f.name),
                );
                TypeName::Named(n.clone())
            }
        }
    }
}

enum Resolved {
    Module(Module, Name),
    Value(Name),
    /// Reported.
    Error,
}

enum TypeName {
    Named(Name),
    Prim(PrimType),
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

fn is_comparison(op: &str) -> bool {
    ["==", "!=", "<", "<=", ">", ">="].contains(&op)
}

fn prim(t: PrimType, span: Span) -> TypeExp {
    TypeExp { kind: TypeExpKind::Prim(t), span }
}

fn arrow(a: PrimType, b: TypeExp, span: Span) -> TypeExp {
    TypeExp { kind: TypeExpKind::Arrow(None, Box::new(prim(a, span)), Box::new(b)), span }
}

fn bind_type_params(params: &[TypeParam], locals: &mut Locals) {
    for p in params {
        match p {
            TypeParam::Size { name, .. } => locals.values.push(name.clone()),
            TypeParam::Type { name, .. } => locals.types.push(name.clone()),
        }
    }
}

#[cfg(test)]
mod tests;
