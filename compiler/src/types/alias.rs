//! Uniqueness: in-place updates (`let a[i] = v`, `a with [i] = v`) and unique parameters (`*[n]t`)
//! consume an array, which may not be used afterwards, and only arrays that nothing else needs may
//! be consumed. A simple alias analysis over variables: each binding is a root; a value aliases a
//! set of roots (through `let b = a`, indexing, tuples, and function results that are not unique);
//! consuming a value consumes all its roots.

use std::collections::{BTreeSet, HashMap};

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{
    DimIndex, Expr, ExprKind, LoopForm, Name, NodeId, Pat, PatKind, RecordField, TypeExpKind,
    ValDec,
};

use super::Type;

type Root = u32;
type Aliases = BTreeSet<Root>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum RootKind {
    /// A function parameter; `true` when declared unique.
    Param(bool),
    Local,
}

#[derive(Clone, Debug)]
struct RootInfo {
    name: Name,
    kind: RootKind,
    /// Index of the variable that introduced this root (for "bound outside the function").
    var_index: usize,
}

#[derive(Clone, Debug)]
struct Var {
    name: Name,
    roots: Aliases,
}

pub(crate) struct AliasCheck<'a> {
    types: &'a HashMap<NodeId, Type>,
    pats: &'a HashMap<NodeId, Type>,
    app_unique: &'a HashMap<NodeId, bool>,
    vars: Vec<Var>,
    roots: Vec<RootInfo>,
    consumed: HashMap<Root, (Span, String)>,
    /// Enclosing lambdas: the variable mark at their start and the roots they capture.
    lambdas: Vec<(usize, Aliases)>,
    /// Enclosing loop bodies: the variable mark at their start.
    loops: Vec<usize>,
    pub errors: Vec<Diagnostic>,
}

/// Can a value of this type share memory with another (does it contain arrays or closures)?
fn may_alias(t: Option<&Type>) -> bool {
    match t {
        None => true,
        Some(t) => match t {
            Type::Prim(_) => false,
            Type::Array { .. } | Type::Arrow { .. } | Type::Var(_) => true,
            Type::Tuple(ts) => ts.iter().any(|t| may_alias(Some(t))),
            Type::Record(fs) => fs.values().any(|t| may_alias(Some(t))),
            Type::Sum(cs) => cs.values().flatten().any(|t| may_alias(Some(t))),
        },
    }
}

/// Does a parameter of this type consume its argument? A `*` anywhere inside a tuple or record
/// makes the parameter consuming; a tuple written out as the argument is consumed by component
/// (see `ExprKind::Apply`), as Futhark does.
fn consuming_type(t: &Type) -> bool {
    match t {
        Type::Array { unique, .. } => *unique,
        Type::Tuple(ts) => ts.iter().any(consuming_type),
        Type::Record(fs) => fs.values().any(consuming_type),
        Type::Sum(cs) => cs.values().flatten().any(consuming_type),
        _ => false,
    }
}

impl<'a> AliasCheck<'a> {
    pub fn new(
        types: &'a HashMap<NodeId, Type>,
        pats: &'a HashMap<NodeId, Type>,
        app_unique: &'a HashMap<NodeId, bool>,
    ) -> Self {
        AliasCheck {
            types,
            pats,
            app_unique,
            vars: Vec::new(),
            roots: Vec::new(),
            consumed: HashMap::new(),
            lambdas: Vec::new(),
            loops: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Check a top-level definition. Returns whether its result aliases none of its parameters.
    pub fn def(&mut self, d: &ValDec) -> bool {
        let mark = self.roots.len();
        for p in &d.params {
            self.bind_pat(p, &Aliases::new(), true);
        }
        let params: Aliases = (mark as Root..self.roots.len() as Root).collect();
        let result = self.expr(&d.body);
        let aliased: Vec<Root> = result.intersection(&params).copied().collect();
        let declared_unique =
            d.ret.as_ref().is_some_and(|t| matches!(t.kind, TypeExpKind::Unique(_)));
        if declared_unique {
            for r in &aliased {
                let info = &self.roots[*r as usize];
                if info.kind == RootKind::Param(false) {
                    self.errors.push(
                        Diagnostic::ty(
                            d.body.span,
                            format!(
                                "the result of `{}` is declared unique, but it may alias the parameter `{}`",
                                d.name, info.name
                            ),
                        )
                        .with_hint("return a copy (`copy x`), or declare the parameter unique (`*`)"),
                    );
                }
            }
        }
        aliased.is_empty()
    }

    fn new_root(&mut self, name: &str, kind: RootKind) -> Root {
        self.roots.push(RootInfo { name: name.to_string(), kind, var_index: self.vars.len() });
        self.roots.len() as Root - 1
    }

    /// Bind the variables of a pattern to a value with the given aliases.
    fn bind_pat(&mut self, p: &Pat, aliases: &Aliases, param: bool) {
        match &p.kind {
            PatKind::Var(n) => {
                let kind = if param {
                    RootKind::Param(self.pats.get(&p.id).is_some_and(consuming_type))
                } else {
                    RootKind::Local
                };
                let own = self.new_root(n, kind);
                let mut roots =
                    if may_alias(self.pats.get(&p.id)) { aliases.clone() } else { Aliases::new() };
                roots.insert(own);
                self.vars.push(Var { name: n.clone(), roots });
            }
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => {
                ps.iter().for_each(|q| self.bind_pat(q, aliases, param))
            }
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.bind_pat(q, aliases, param)),
            PatKind::Ascribed(q, _) => self.bind_pat(q, aliases, param),
            PatKind::Wildcard | PatKind::Literal(_) => {}
        }
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|v| v.name == name)
    }

    /// A use of a variable: it must not have been consumed.
    fn use_var(&mut self, idx: usize, span: Span) {
        let roots = self.vars[idx].roots.clone();
        for r in &roots {
            if let Some((at, what)) = self.consumed.remove(r) {
                let name = &self.vars[idx].name;
                self.errors.push(
                    Diagnostic::ty(
                        span,
                        format!("`{name}` is used after being consumed by {what}"),
                    )
                    .with_label("used here")
                    .with_secondary(at, "consumed here")
                    .with_hint("use a copy (`copy x`) before the update if both values are needed"),
                );
                break;
            }
        }
        for (mark, captured) in &mut self.lambdas {
            if idx < *mark {
                captured.extend(roots.iter().copied());
            }
        }
    }

    /// Consume the value of `e` (whose aliases are given).
    fn consume(&mut self, e: &Expr, aliases: &Aliases, what: &str) {
        let roots = match &e.kind {
            ExprKind::Var(n) => match self.lookup(n) {
                Some(i) => self.vars[i].roots.clone(),
                None => {
                    self.errors.push(
                        Diagnostic::ty(
                            e.span,
                            format!("cannot consume the top-level definition `{n}`"),
                        )
                        .with_label(format!("consumed by {what}"))
                        .with_hint(
                            "in-place updates need a local array; make a copy first (`copy x`)",
                        ),
                    );
                    return;
                }
            },
            _ => aliases.clone(),
        };
        let shown = |s: &Self, r: Root| match &e.kind {
            ExprKind::Var(n) => n.clone(),
            _ => s.roots[r as usize].name.clone(),
        };
        for r in &roots {
            let info = self.roots[*r as usize].clone();
            let name = shown(self, *r);
            if info.kind == RootKind::Param(false) {
                let what_param = if name == info.name {
                    format!("`{name}` is a parameter that is not unique")
                } else {
                    format!("`{name}` aliases the parameter `{}`, which is not unique", info.name)
                };
                self.errors.push(
                    Diagnostic::ty(e.span, format!("cannot consume `{name}`: {what_param}"))
                        .with_label(format!("consumed by {what}"))
                        .with_hint(format!(
                            "declare the parameter unique (e.g. `({}: *[]i32)`) to allow in-place updates, or update a copy",
                            info.name
                        )),
                );
                return;
            }
            if let Some((mark, _)) = self.lambdas.last() {
                if info.var_index < *mark {
                    self.errors.push(
                        Diagnostic::ty(
                            e.span,
                            format!(
                                "cannot consume `{name}` inside a function: it is bound outside it"
                            ),
                        )
                        .with_label(format!("consumed by {what}"))
                        .with_hint("copy the array inside the function first (`copy x`)"),
                    );
                    return;
                }
            }
            if let Some(mark) = self.loops.last() {
                if info.var_index < *mark {
                    self.errors.push(
                        Diagnostic::ty(e.span, format!("cannot consume `{name}` in a loop body: it is bound outside the loop"))
                            .with_label(format!("consumed by {what}"))
                            .with_hint("make it a loop parameter, or update a copy"),
                    );
                    return;
                }
            }
        }
        for r in roots {
            self.consumed.insert(r, (e.span, what.to_string()));
        }
    }

    /// The value written by an in-place update must not share memory with the array updated.
    fn overlap(&mut self, value: &Expr, value_aliases: &Aliases, target: &Aliases) {
        if value_aliases.intersection(target).next().is_some() {
            self.errors.push(
                Diagnostic::ty(
                    value.span,
                    "the value written by an in-place update may alias the array it updates",
                )
                .with_hint("use `copy` to remove the aliasing from the value"),
            );
        }
    }

    fn unique_param(&self, fun: &Expr, index: usize) -> bool {
        self.param_type(fun, index).is_some_and(consuming_type)
    }

    /// The type of the parameter `index` of the function `fun`.
    fn param_type(&self, fun: &Expr, index: usize) -> Option<&'a Type> {
        let mut t = self.types.get(&fun.id);
        for _ in 0..index {
            t = match t {
                Some(Type::Arrow { to, .. }) => Some(to),
                _ => None,
            };
        }
        match t {
            Some(Type::Arrow { from, .. }) => Some(from),
            _ => None,
        }
    }

    fn result(&self, e: &Expr, parts: Aliases) -> Aliases {
        if self.app_unique.get(&e.id).copied().unwrap_or(false) || !may_alias(self.types.get(&e.id))
        {
            Aliases::new()
        } else {
            parts
        }
    }

    fn dims(&mut self, ds: &[DimIndex]) {
        for d in ds {
            match d {
                DimIndex::Fix(x) => {
                    self.expr(x);
                }
                DimIndex::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.expr(x);
                    }
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> Aliases {
        let keep =
            |s: &Self, a: Aliases| if may_alias(s.types.get(&e.id)) { a } else { Aliases::new() };
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::OpSection(_) | ExprKind::ProjectSection(_) => {
                Aliases::new()
            }
            ExprKind::Var(n) => match self.lookup(n) {
                Some(i) => {
                    self.use_var(i, e.span);
                    keep(self, self.vars[i].roots.clone())
                }
                None => Aliases::new(),
            },
            ExprKind::Tuple(es) | ExprKind::Constr(_, es) => {
                let mut out = Aliases::new();
                for x in es {
                    out.extend(self.expr(x));
                }
                out
            }
            ExprKind::ArrayLit(es) => {
                for x in es {
                    self.expr(x);
                }
                Aliases::new()
            }
            ExprKind::Record(fs) => {
                let mut out = Aliases::new();
                for f in fs {
                    let (RecordField::Explicit(_, x) | RecordField::Implicit(_, x)) = f;
                    out.extend(self.expr(x));
                }
                out
            }
            ExprKind::Range { start, second, end, .. } => {
                self.expr(start);
                if let Some(s) = second {
                    self.expr(s);
                }
                self.expr(end);
                Aliases::new()
            }
            ExprKind::Project(x, _) | ExprKind::Ascript(x, _) | ExprKind::Coerce(x, _) => {
                let a = self.expr(x);
                keep(self, a)
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => {
                self.expr(x);
                Aliases::new()
            }
            ExprKind::Assert(c, x) => {
                self.expr(c);
                self.expr(x)
            }
            ExprKind::LeftSection(_, x) | ExprKind::RightSection(_, x) => self.expr(x),
            ExprKind::Index(x, ds) => {
                let a = self.expr(x);
                self.dims(ds);
                keep(self, a)
            }
            ExprKind::Apply(..) => {
                let mut args = Vec::new();
                let mut cur = e;
                while let ExprKind::Apply(f, a) = &cur.kind {
                    args.push(a.as_ref());
                    cur = f;
                }
                args.reverse();
                let mut all = self.expr(cur);
                let callee = match &cur.kind {
                    ExprKind::Var(n) => format!("passing it to `{n}`"),
                    _ => "passing it to a function".to_string(),
                };
                // Every argument is evaluated before the call consumes any (Futhark's
                // order): a later argument may read what an earlier one hands over, if it
                // does not alias it. A tuple argument to a tuple parameter is consumed by
                // component, as its parameter's components are unique or not.
                let mut parts: Vec<(&Expr, Aliases, bool)> = Vec::new();
                for (i, a) in args.into_iter().enumerate() {
                    match (&a.kind, self.param_type(cur, i)) {
                        (ExprKind::Tuple(es), Some(Type::Tuple(ts))) if es.len() == ts.len() => {
                            for (x, t) in es.iter().zip(ts) {
                                let xa = self.expr(x);
                                parts.push((x, xa, consuming_type(t)));
                            }
                        }
                        (_, t) => {
                            let aa = self.expr(a);
                            parts.push((a, aa, t.is_some_and(consuming_type)));
                        }
                    }
                }
                for (k, (a, aa, unique)) in parts.iter().enumerate() {
                    if !*unique {
                        continue;
                    }
                    let shared = parts.iter().enumerate().find(|(j, (_, other, _))| {
                        *j != k && other.intersection(aa).next().is_some()
                    });
                    if let Some((_, (other, _, _))) = shared {
                        self.errors.push(
                            Diagnostic::ty(
                                other.span,
                                "this argument aliases another that the call consumes",
                            )
                            .with_secondary(a.span, "consumed here")
                            .with_hint("pass a copy (`copy x`) of one of them"),
                        );
                    }
                    self.consume(a, aa, &callee);
                }
                for (_, aa, _) in parts {
                    all.extend(aa);
                }
                self.result(e, all)
            }
            ExprKind::BinOp { op, lhs, rhs, .. } => match op.as_str() {
                "|>" | "<|" => {
                    let (arg, fun) = if op == "|>" { (lhs, rhs) } else { (rhs, lhs) };
                    let (aa, fa) = if op == "|>" {
                        let aa = self.expr(arg);
                        (aa, self.expr(fun))
                    } else {
                        let fa = self.expr(fun);
                        (self.expr(arg), fa)
                    };
                    if self.unique_param(fun, 0) {
                        let what = match &fun.kind {
                            ExprKind::Var(n) => format!("passing it to `{n}`"),
                            _ => "passing it to a function".to_string(),
                        };
                        self.consume(arg, &aa, &what);
                    }
                    let mut all = aa;
                    all.extend(fa);
                    self.result(e, all)
                }
                _ => {
                    let mut all = self.expr(lhs);
                    all.extend(self.expr(rhs));
                    if op == ">->" || op == "<-<" || !super::gen::is_operator(op) {
                        self.result(e, all)
                    } else {
                        Aliases::new()
                    }
                }
            },
            ExprKind::Lambda { params, body, .. } => {
                let mark = self.vars.len();
                self.lambdas.push((mark, Aliases::new()));
                for p in params {
                    self.bind_pat(p, &Aliases::new(), true);
                }
                self.expr(body);
                self.vars.truncate(mark);
                self.lambdas.pop().map(|(_, c)| c).unwrap_or_default()
            }
            ExprKind::If(c, a, b) => {
                self.expr(c);
                let before = self.consumed.clone();
                let mut out = self.expr(a);
                let after_a = std::mem::replace(&mut self.consumed, before);
                out.extend(self.expr(b));
                self.consumed.extend(after_a);
                out
            }
            ExprKind::Match(x, cases) => {
                let sa = self.expr(x);
                let before = self.consumed.clone();
                let mut all_consumed = before.clone();
                let mut out = Aliases::new();
                for (p, body) in cases {
                    self.consumed = before.clone();
                    let mark = self.vars.len();
                    self.bind_pat(p, &sa, false);
                    out.extend(self.expr(body));
                    self.vars.truncate(mark);
                    all_consumed.extend(std::mem::take(&mut self.consumed));
                }
                self.consumed = all_consumed;
                out
            }
            ExprKind::Let { pat, rhs, body, .. } => {
                let mark = self.vars.len();
                match (&pat.kind, &rhs.kind) {
                    // `let (x, y) = (a, b)`: each name aliases its own component only.
                    (PatKind::Tuple(ps), ExprKind::Tuple(es)) if ps.len() == es.len() => {
                        let parts: Vec<Aliases> = es.iter().map(|x| self.expr(x)).collect();
                        for (p, a) in ps.iter().zip(&parts) {
                            self.bind_pat(p, a, false);
                        }
                    }
                    _ => {
                        let ra = self.expr(rhs);
                        self.bind_pat(pat, &ra, false);
                    }
                }
                let out = self.expr(body);
                self.vars.truncate(mark);
                out
            }
            ExprKind::LetFun { name, params, rhs, body, .. } => {
                let mark = self.vars.len();
                self.lambdas.push((mark, Aliases::new()));
                for p in params {
                    self.bind_pat(p, &Aliases::new(), true);
                }
                self.expr(rhs);
                self.vars.truncate(mark);
                let captured = self.lambdas.pop().map(|(_, c)| c).unwrap_or_default();
                let own = self.new_root(name, RootKind::Local);
                let mut roots = captured;
                roots.insert(own);
                self.vars.push(Var { name: name.clone(), roots });
                let out = self.expr(body);
                self.vars.truncate(mark);
                out
            }
            ExprKind::LetWith { name, name_span, indices, value, body } => {
                self.dims(indices);
                let va = self.expr(value);
                let var = Expr { kind: ExprKind::Var(name.clone()), span: *name_span, id: e.id };
                if let Some(i) = self.lookup(name) {
                    self.use_var(i, *name_span);
                    let roots = self.vars[i].roots.clone();
                    self.overlap(value, &va, &roots);
                    self.consume(&var, &roots, "an in-place update");
                }
                let mark = self.vars.len();
                let own = self.new_root(name, RootKind::Local);
                self.vars.push(Var { name: name.clone(), roots: [own].into() });
                let out = self.expr(body);
                self.vars.truncate(mark);
                out
            }
            ExprKind::Update(x, ds, v) => {
                let xa = self.expr(x);
                self.dims(ds);
                let va = self.expr(v);
                self.overlap(v, &va, &xa);
                self.consume(x, &xa, "an in-place update");
                Aliases::new()
            }
            ExprKind::RecordUpdate(x, _, v) => {
                let mut out = self.expr(x);
                out.extend(self.expr(v));
                out
            }
            ExprKind::Loop { pat, init, form, body } => {
                self.loop_expr(e, pat, init.as_deref(), form, body)
            }
        }
    }

    fn loop_expr(
        &mut self,
        e: &Expr,
        pat: &Pat,
        init: Option<&Expr>,
        form: &LoopForm,
        body: &Expr,
    ) -> Aliases {
        let ia = match init {
            Some(x) => self.expr(x),
            None => {
                let mut a = Aliases::new();
                for (n, span, id) in pat_vars(pat) {
                    if let Some(i) = self.lookup(&n) {
                        self.use_var(i, span);
                        // Only values that may share memory are handed to the loop.
                        if may_alias(self.pats.get(&id)) {
                            a.extend(self.vars[i].roots.iter().copied());
                        }
                    }
                }
                a
            }
        };
        let xa = match form {
            LoopForm::For { bound, .. } => {
                self.expr(bound);
                Aliases::new()
            }
            LoopForm::ForIn(_, xs) => self.expr(xs),
            LoopForm::While(_) => Aliases::new(),
        };
        let mark = self.vars.len();
        let root_mark = self.roots.len() as Root;
        self.loops.push(mark);
        self.bind_pat(pat, &Aliases::new(), false);
        let param_roots: Aliases = (root_mark..self.roots.len() as Root).collect();
        match form {
            LoopForm::For { var, .. } => {
                let own = self.new_root(var, RootKind::Local);
                self.vars.push(Var { name: var.clone(), roots: [own].into() });
            }
            LoopForm::ForIn(p, _) => self.bind_pat(p, &xa, false),
            LoopForm::While(c) => {
                self.expr(c);
            }
        }
        let ba = self.expr(body);
        self.loops.pop();
        self.vars.truncate(mark);
        let consumed_param = param_roots.iter().any(|r| self.consumed.contains_key(r));
        self.consumed.retain(|r, _| *r < root_mark);
        let outer: Aliases = ba.into_iter().filter(|r| *r < root_mark).collect();
        if consumed_param {
            if let Some(x) = init {
                self.consume(x, &ia, "the loop, which updates its parameter in place");
            } else {
                let var = Expr { kind: ExprKind::Tuple(vec![]), span: pat.span, id: e.id };
                self.consume(&var, &ia, "the loop, which updates its parameter in place");
            }
            outer
        } else {
            let mut out = ia;
            out.extend(outer);
            out
        }
    }
}

/// The variables a pattern binds, with their spans and pattern nodes.
fn pat_vars(p: &Pat) -> Vec<(Name, Span, NodeId)> {
    let mut out = Vec::new();
    fn go(p: &Pat, out: &mut Vec<(Name, Span, NodeId)>) {
        match &p.kind {
            PatKind::Var(n) => out.push((n.clone(), p.span, p.id)),
            PatKind::Tuple(ps) | PatKind::Constr(_, ps) => ps.iter().for_each(|q| go(q, out)),
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| go(q, out)),
            PatKind::Ascribed(q, _) => go(q, out),
            PatKind::Wildcard | PatKind::Literal(_) => {}
        }
    }
    go(p, &mut out);
    out
}
