//! The solver: discharges the constraints of one definition in order, deferring those whose types
//! are not known yet (field access, constructors, ranges) and retrying them as variables get
//! bound; then defaults overloaded literals as Futhark does and reports what stays unsolved.

use std::collections::{BTreeMap, HashMap};

use crate::diag::{Diagnostic, Phase, Span};
use crate::prim::PrimType;
use crate::syntax::ast::{Name, NodeId, SizeOp};

use super::constraint::{
    ApplyInfo, ArgSize, Constraint, IndexDim, Kind, Reason, SliceKey, SliceSize,
};
use super::ity::{is_invented, show, show_dim, Dim, Store, Ty};
use super::poly::{arith, larger_than, MAX_NODES};
use super::unify::{Mismatch, Mode};

pub(crate) struct Solver<'s> {
    pub store: &'s mut Store,
    pub errors: Vec<Diagnostic>,
    /// For each application node: does the applied function return a fresh (unique) value?
    pub app_unique: HashMap<NodeId, bool>,
    deferred: Vec<Constraint>,
    last_binds: u64,
    /// The arguments given so far to each application spine (keyed by the function's span): where a
    /// size came from, for messages.
    spines: HashMap<Span, Vec<(Span, String, Ty)>>,
    /// Errors whose message shows a type best printed after solving: (span, what, type).
    late: Vec<(Span, &'static str, Ty)>,
    /// The size of each keyed slice of a dimension (`SliceSize::Keyed`).
    slices: HashMap<(Dim, SliceKey), Dim>,
    /// Names bound again where they are in scope (`Gen::shadowed`): a size computed from one of
    /// them (`iota (i+1)`, `xs[i:]`) could mean either binding, so it is not computed.
    pub rebound: std::collections::HashSet<Name>,
    /// Type parameters already reported as not in a class (`x + 1` with `x: t`): one message
    /// says it, not one per operand.
    classless: std::collections::HashSet<(u32, String)>,
}

enum Step {
    Done,
    Defer,
}

impl<'s> Solver<'s> {
    pub fn new(store: &'s mut Store) -> Self {
        Solver {
            store,
            errors: Vec::new(),
            app_unique: HashMap::new(),
            deferred: Vec::new(),
            last_binds: 0,
            spines: HashMap::new(),
            late: Vec::new(),
            slices: HashMap::new(),
            rebound: Default::default(),
            classless: Default::default(),
        }
    }

    /// Solve the constraints in order, then default and report what is left.
    pub fn solve(&mut self, cs: Vec<Constraint>) {
        for c in cs {
            self.run(c);
            self.retry();
        }
        self.finish();
    }

    fn run(&mut self, c: Constraint) {
        if let Step::Defer = self.step(&c) {
            self.deferred.push(c);
        }
    }

    fn retry(&mut self) {
        while !self.deferred.is_empty() && self.store.binds != self.last_binds {
            self.last_binds = self.store.binds;
            for c in std::mem::take(&mut self.deferred) {
                self.run(c);
            }
        }
    }

    fn finish(&mut self) {
        self.retry();
        // Overloaded types nobody determined: `i32` for integers, `f64` for floats.
        for v in 0..self.store.tvars.len() {
            let info = &self.store.tvars[v];
            if info.bound.is_none() && info.rigid.is_none() {
                if let Some(p) = info.prims.and_then(|s| s.default_type()) {
                    self.store.bind(v as u32, Ty::Prim(p));
                }
            }
        }
        self.last_binds = u64::MAX;
        self.retry();
        // Constructors of an unknown type: the sum type of exactly those constructors.
        let mut sums: BTreeMap<u32, BTreeMap<String, Vec<Ty>>> = BTreeMap::new();
        for c in &self.deferred {
            if let Kind::Constr { ty, name, args } = &c.kind {
                if let Ty::Var(v) = self.store.resolve(ty) {
                    sums.entry(v).or_default().entry(name.clone()).or_insert_with(|| args.clone());
                }
            }
        }
        for (v, cs) in sums {
            self.store.bind(v, Ty::Sum(cs));
        }
        self.last_binds = u64::MAX;
        self.retry();
        // An `unflatten` result size that nothing else determined: its array's size divided by
        // the others.
        let (factor, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|c| matches!(c.kind, Kind::FactorSizes { .. }));
        self.deferred = rest;
        let mut factored = false;
        for c in factor {
            if let Kind::FactorSizes { ty, k } = &c.kind {
                factored |= self.factor_sizes(ty, *k);
            }
        }
        if factored {
            self.last_binds = u64::MAX;
            self.retry();
        }
        for (span, what, t) in std::mem::take(&mut self.late) {
            let f = show(self.store, &t);
            self.errors.push(Diagnostic::ty(span, format!("{what}; found `{f}`")));
        }
        for c in std::mem::take(&mut self.deferred) {
            let d = match &c.kind {
                Kind::Field { field, .. } => Diagnostic::ty(
                    c.span,
                    format!("ambiguous type: the type of this value must be known to access its field `{field}`"),
                )
                .with_hint("add a type annotation"),
                Kind::RangeSize { .. } => continue,
                _ => Diagnostic::ty(c.span, "ambiguous type").with_hint("add a type annotation"),
            };
            self.errors.push(d);
        }
    }

    fn step(&mut self, c: &Constraint) -> Step {
        match &c.kind {
            Kind::Eq { expected, found } => {
                if let Err(m) = self.store.unify(expected, found, Mode::default()) {
                    self.mismatch(m, c.span, &c.reason, expected, found);
                }
            }
            Kind::EqShape { expected, found, inner } => {
                let mode = Mode { ignore_dims: true, ..Mode::default() };
                if let Err(m) = self.store.unify(expected, found, mode) {
                    self.mismatch(m, c.span, &c.reason, expected, found);
                    return Step::Done;
                }
                let mut pairs = Vec::new();
                self.store.zip_dims3(expected, found, found, &mut pairs);
                for (e, f, _) in pairs {
                    let f = self.store.dim(&f);
                    if let Dim::Var(v) = f {
                        let info = &self.store.dvars[v as usize];
                        if v >= *inner && !info.loop_param {
                            let _ = self.store.unify_dim(&f, &e, Mode::default(), false);
                        }
                    }
                }
            }
            Kind::BindSizes { pat, rhs, names } => {
                let mode = Mode { wild: names, ..Mode::default() };
                if let Err(m) = self.store.unify(pat, rhs, mode) {
                    self.mismatch(m, c.span, &c.reason, pat, rhs);
                }
            }
            Kind::Prim { ty, set } => {
                if let Err(m) = self.store.require_prim(ty, *set) {
                    self.mismatch(m, c.span, &c.reason, ty, ty);
                }
            }
            Kind::NoFun { ty, what } => {
                if let Err(Mismatch::Fun { found }) = self.store.forbid_functions(ty) {
                    // Shown at the end, when the function's type is as known as it gets.
                    self.late.push((c.span, what, found));
                }
            }
            Kind::Field { record, field, ty } => return self.field(c, record, field, ty),
            Kind::Constr { ty, name, args } => return self.constr(c, ty, name, args),
            Kind::Apply { fun, arg, result, info } => self.apply(c, fun, arg, result, info),
            Kind::Index { arr, dims, result } => self.index(c, arr, dims, result),
            Kind::Join { branches, result } => self.join(c, branches, result),
            Kind::Escape { ty, names, result } => {
                let mut t = self.store.zonk(ty);
                for n in names {
                    if t.mentions(n) {
                        // Sizes computed from it (`[2*k]`) keep their form: `[2*k₁]`.
                        let k = self.store.existential(
                            format!("the size `{n}`, which is not in scope outside its definition"),
                            c.span,
                        );
                        t = t.subst_name(n, &k);
                    }
                }
                let _ = self.store.unify(result, &t, Mode::default());
            }
            Kind::LoopParam { param, init } => {
                let i = self.store.zonk(init);
                let fresh = self.store.loop_param_dims(&i);
                if let Err(m) = self.store.unify(param, &fresh, Mode::default()) {
                    self.mismatch(m, c.span, &c.reason, param, init);
                }
            }
            Kind::LoopResult { param, init, body } => self.loop_result(c, param, init, body),
            // Done when every size is known; what is left is for `finish`.
            Kind::FactorSizes { ty, k } => {
                if self.unflatten_sizes(ty, *k).iter().any(|d| matches!(d, Dim::Var(_))) {
                    return Step::Defer;
                }
            }
            Kind::UpdateValue { slot, value } => {
                let shape = Mode { ignore_dims: true, ..Mode::default() };
                if let Err(m) = self.store.unify(slot, value, shape) {
                    self.mismatch(m, c.span, &c.reason, slot, value);
                    return Step::Done;
                }
                let mut pairs = Vec::new();
                self.store.zip_dims3(slot, value, value, &mut pairs);
                for (s, v, _) in pairs {
                    let (s, v) = (self.store.dim(&s), self.store.dim(&v));
                    let run_time =
                        |d: &Dim| d.names().iter().any(|n| self.store.invented.contains_key(n));
                    let open = matches!(s, Dim::Var(_)) || matches!(v, Dim::Var(_));
                    if s == v || (!open && (run_time(&s) || run_time(&v))) {
                        continue;
                    }
                    if let Err(m) = self.store.unify_dim(&s, &v, Mode::default(), false) {
                        self.mismatch(m, c.span, &c.reason, slot, value);
                        return Step::Done;
                    }
                }
            }
            Kind::RangeSize { elem, name, dim } => match self.store.resolve(elem) {
                Ty::Prim(PrimType::I64) => {
                    let _ =
                        self.store.unify_dim(dim, &Dim::Name(name.clone()), Mode::default(), false);
                }
                Ty::Var(_) => return Step::Defer,
                _ => {
                    let k = self.store.existential("the size of this range", c.span);
                    let _ = self.store.unify_dim(dim, &k, Mode::default(), false);
                }
            },
            Kind::InstSizes { ty, sizes, tvars, result } => {
                let mut t = self.store.zonk(ty);
                for n in sizes {
                    let d = self.store.fresh_dim();
                    if let Dim::Var(v) = d {
                        self.store.dvars[v as usize].hint = Some(n.clone());
                    }
                    t = t.subst_name(n, &d);
                }
                if !tvars.is_empty() {
                    let mut fresh = HashMap::new();
                    for &r in tvars {
                        let info = self.store.tvar(r).clone();
                        let f = self.store.fresh_tvar(c.span);
                        if let Ty::Var(v) = f {
                            let new = self.store.tvar_mut(v);
                            new.no_fun = info.no_fun;
                            new.hint = info.rigid.map(|(n, _)| n);
                            new.plain = true;
                        }
                        fresh.insert(r, f);
                    }
                    t = t.subst_tvars(&fresh);
                }
                let _ = self.store.unify(result, &t, Mode::default());
            }
        }
        Step::Done
    }

    /// The array's size and the `k` result sizes of `unflatten` at `ty` (`[p]t -> [n][m]t`).
    fn unflatten_sizes(&self, ty: &Ty, k: usize) -> Vec<Dim> {
        let Ty::Arrow { from, to, .. } = self.store.resolve(ty) else { return Vec::new() };
        let Ty::Array { dim, .. } = self.store.resolve(&from) else { return Vec::new() };
        let mut dims = vec![self.store.dim(&dim)];
        let mut cur = self.store.resolve(&to);
        while let (Ty::Array { dim, elem, .. }, true) = (&cur, dims.len() <= k) {
            dims.push(self.store.dim(dim));
            cur = self.store.resolve(elem);
        }
        dims
    }

    /// Bind the one unknown result size of an `unflatten` to the quotient of its array's size by
    /// the others, when that divides exactly; whether it did.
    fn factor_sizes(&mut self, ty: &Ty, k: usize) -> bool {
        let dims = self.unflatten_sizes(ty, k);
        let Some((p, result)) = dims.split_first() else { return false };
        let has_var = |d: &Dim| {
            let mut v = false;
            super::poly::for_each_atom(d, &mut |a| v |= matches!(a, Dim::Var(_)));
            v
        };
        let unknown: Vec<&Dim> = result.iter().filter(|d| matches!(d, Dim::Var(_))).collect();
        let ([var], false) = (unknown.as_slice(), has_var(p)) else { return false };
        let mut product = super::poly::Poly::constant(1);
        for d in result.iter().filter(|d| !matches!(d, Dim::Var(_))) {
            if has_var(d) {
                return false;
            }
            product = product.mul(&super::poly::to_poly(d));
        }
        let Some(q) = super::poly::to_poly(p).divide_by_monomial(&product) else { return false };
        self.store.unify_dim(var, &super::poly::from_poly(q), Mode::default(), false).is_ok()
    }

    fn field(&mut self, c: &Constraint, record: &Ty, field: &str, ty: &Ty) -> Step {
        let r = self.store.resolve(record);
        let ft = match &r {
            Ty::Var(v) if self.store.tvar(*v).rigid.is_none() => return Step::Defer,
            Ty::Err => Some(Ty::Err),
            Ty::Record(fs) => fs.get(field).cloned(),
            Ty::Tuple(ts) => field.parse::<usize>().ok().and_then(|i| ts.get(i).cloned()),
            _ => {
                let t = show(self.store, &r);
                self.errors.push(
                    Diagnostic::ty(
                        c.span,
                        format!(
                            "type mismatch: expected a record with a field `{field}`, found `{t}`"
                        ),
                    )
                    .with_label(format!("this has type `{t}`")),
                );
                return Step::Done;
            }
        };
        match ft {
            Some(ft) => {
                if let Err(m) = self.store.unify(ty, &ft, Mode::default()) {
                    self.mismatch(m, c.span, &c.reason, ty, &ft);
                }
            }
            None => {
                let t = show(self.store, &r);
                self.errors
                    .push(Diagnostic::ty(c.span, format!("the type `{t}` has no field `{field}`")));
                let _ = self.store.unify(ty, &Ty::Err, Mode::default());
            }
        }
        Step::Done
    }

    fn constr(&mut self, c: &Constraint, ty: &Ty, name: &str, args: &[Ty]) -> Step {
        let t = self.store.resolve(ty);
        match &t {
            Ty::Var(v) if self.store.tvar(*v).rigid.is_none() => return Step::Defer,
            Ty::Err => {}
            Ty::Sum(cs) => match cs.get(name) {
                Some(ps) if ps.len() == args.len() => {
                    for (p, a) in ps.clone().iter().zip(args) {
                        if let Err(m) = self.store.unify(p, a, Mode::default()) {
                            self.mismatch(m, c.span, &c.reason, p, a);
                        }
                    }
                }
                Some(ps) => self.errors.push(Diagnostic::ty(
                    c.span,
                    format!(
                        "the constructor `#{name}` takes {} values, but is given {}",
                        ps.len(),
                        args.len()
                    ),
                )),
                None => {
                    let s = show(self.store, &t);
                    self.errors.push(Diagnostic::ty(
                        c.span,
                        format!("the type `{s}` has no constructor `#{name}`"),
                    ));
                }
            },
            _ => {
                let s = show(self.store, &t);
                self.errors.push(Diagnostic::ty(
                    c.span,
                    format!("type mismatch: expected a sum type with a constructor `#{name}`, found `{s}`"),
                ));
            }
        }
        Step::Done
    }

    fn apply(&mut self, c: &Constraint, fun: &Ty, arg: &Ty, result: &Ty, info: &ApplyInfo) {
        let mut f = self.store.resolve(fun);
        if let Ty::Var(v) = f {
            if self.store.tvar(v).rigid.is_none() {
                let a = self.store.fresh_tvar(info.fun_span);
                let b = self.store.fresh_tvar(info.fun_span);
                let arrow = Ty::arrow(a, b);
                if self.store.unify(&Ty::Var(v), &arrow, Mode::default()).is_err() {
                    // An overloaded (numeric) type: not a function.
                    self.not_a_function(self.show_found(&Ty::Var(v)), info);
                    let _ = self.store.unify(result, &Ty::Err, Mode::default());
                    return;
                }
                f = self.store.resolve(&arrow);
            }
        }
        match f {
            Ty::Err => {
                let _ = self.store.unify(result, &Ty::Err, Mode::default());
            }
            Ty::Arrow { param, from, to } => {
                if info.index == 0 {
                    self.spines.remove(&info.fun_span);
                }
                if let Err(m) = self.store.unify(&from, arg, Mode::default()) {
                    self.apply_mismatch(m, c, info, &from, arg);
                }
                self.store.settle_sizes(arg);
                self.spines.entry(info.fun_span).or_default().push((
                    info.arg_span,
                    describe_arg(info),
                    arg.clone(),
                ));
                let mut to = self.store.zonk(&to);
                if let Some(p) = param.filter(|p| to.mentions(p)) {
                    let d = match &info.arg_size {
                        // A name alone keeps naming the size even where a binding shadows
                        // it (the types could then confuse the two bindings, which lowering
                        // catches at run time); a computed size of one is not computed.
                        ArgSize::Var(x) => Dim::Name(x.clone()),
                        ArgSize::Const(k) => Dim::Const(*k),
                        ArgSize::Expr(d) if !self.mentions_rebound(d) => d.clone(),
                        ArgSize::Expr(_) => self.store.existential(
                            "a size given by a name that is bound again inside its scope in this \
                             definition (rename one binding to keep the size)",
                            info.arg_span,
                        ),
                        ArgSize::Other => self.store.existential(
                            "a size given by an argument that is not a variable",
                            info.arg_span,
                        ),
                    };
                    to = to.subst_name(&p, &d);
                }
                let to = self.store.refresh_per_app(&to);
                // Sizes built by repeated application (`sq (sq (sq xs))`) grow at every step;
                // past a bound they are known only at run time.
                let store = &mut *self.store;
                let to = to.map_dims(&mut |d| {
                    if larger_than(d, MAX_NODES) {
                        store.existential(
                            "a size too large to compute from its parts",
                            info.arg_span,
                        )
                    } else {
                        d.clone()
                    }
                });
                self.app_unique.insert(info.node, info.fresh || fresh_result(&to));
                let _ = self.store.unify(result, &to, Mode::default());
            }
            other => {
                let t = format!("`{}`", show(self.store, &other));
                self.not_a_function(t, info);
                let _ = self.store.unify(result, &Ty::Err, Mode::default());
            }
        }
    }

    fn not_a_function(&mut self, found: String, info: &ApplyInfo) {
        let what = match (&info.callee, info.index) {
            (Some(n), 0) => format!("`{n}` is not a function"),
            (Some(n), _) => format!("`{n}` is applied to too many arguments"),
            (None, _) => "this is not a function".to_string(),
        };
        let mut d = Diagnostic::ty(
            info.fun_span,
            format!("type mismatch: expected a function, found {found}"),
        )
        .with_label(what)
        .with_secondary(info.arg_span, "applied to this argument");
        // Futhark before 0.25 took the sizes as arguments (`unflatten n m xs`).
        if let Some(n @ ("unflatten" | "unflatten_3d" | "unflatten_4d")) = info.callee.as_deref() {
            let dims = match n {
                "unflatten" => "[n][m]",
                "unflatten_3d" => "[n][m][l]",
                _ => "[n][m][l][k]",
            };
            d = d.with_hint(format!(
                "`{n}` takes the array alone; the sizes of its result come from their type, \
                 as in Futhark: `{n} xs : {dims}t`"
            ));
        }
        self.errors.push(d);
    }

    fn index(&mut self, c: &Constraint, arr: &Ty, dims: &[IndexDim], result: &Ty) {
        let mut cur = self.store.resolve(arr);
        let mut out_dims = Vec::new();
        for (k, ix) in dims.iter().enumerate() {
            let (dim, elem) = match &cur {
                Ty::Err => {
                    let _ = self.store.unify(result, &Ty::Err, Mode::default());
                    return;
                }
                Ty::Array { dim, elem, .. } => (dim.clone(), (**elem).clone()),
                Ty::Var(v) if self.store.tvar(*v).rigid.is_none() => {
                    let dim = self.store.fresh_dim();
                    let elem = self.store.fresh_tvar(c.span);
                    let _ = self.store.unify(
                        &cur,
                        &Ty::array(dim.clone(), elem.clone()),
                        Mode::default(),
                    );
                    (dim, elem)
                }
                _ => {
                    let t = show(self.store, arr);
                    let msg = if k == 0 {
                        format!("type mismatch: expected an array, found `{t}`")
                    } else {
                        format!("type mismatch: expected an array of at least {} dimensions, found `{t}`", dims.len())
                    };
                    self.errors.push(Diagnostic::ty(c.span, msg).with_label(match dims.len() {
                        1 => "indexed with 1 index".to_string(),
                        k => format!("indexed with {k} indices"),
                    }));
                    let _ = self.store.unify(result, &Ty::Err, Mode::default());
                    return;
                }
            };
            match ix {
                IndexDim::Fix => {}
                IndexDim::Slice(s) => out_dims.push(match s {
                    SliceSize::Whole => dim,
                    SliceSize::Known(d) => d.clone(),
                    SliceSize::Span { start, end, .. }
                        if !self.mentions_rebound(start)
                            && !end.as_ref().is_some_and(|e| self.mentions_rebound(e)) =>
                    {
                        arith(SizeOp::Sub, end.as_ref().unwrap_or(&dim), start)
                    }
                    SliceSize::Span { key: Some(key), .. } => self.keyed_slice(&dim, key, c.span),
                    SliceSize::Span { key: None, .. } => {
                        self.store.existential("the size of this slice", c.span)
                    }
                    SliceSize::Keyed(key) => self.keyed_slice(&dim, key, c.span),
                    SliceSize::Unknown => self.store.existential("the size of this slice", c.span),
                }),
            }
            cur = self.store.resolve(&elem);
        }
        let t = out_dims.into_iter().rev().fold(cur, |t, d| Ty::array(d, t));
        let _ = self.store.unify(result, &t, Mode::default());
    }

    fn join(&mut self, c: &Constraint, branches: &[(Ty, Span)], result: &Ty) {
        let Some((first, _)) = branches.first() else {
            let _ = self.store.unify(result, &Ty::Err, Mode::default());
            return;
        };
        let mut acc = first.clone();
        for (t, span) in &branches[1..] {
            match self.store.join(&acc, t, "a size that differs between branches", c.span) {
                Ok(j) => acc = j,
                Err(m) => {
                    let e = acc.clone();
                    self.mismatch(m, *span, &c.reason, &e, t);
                }
            }
        }
        let _ = self.store.unify(result, &acc, Mode::default());
    }

    fn loop_result(&mut self, c: &Constraint, param: &Ty, init: &Ty, body: &Ty) {
        let shape = Mode { ignore_dims: true, ..Mode::default() };
        if let Err(m) = self.store.unify(param, body, shape) {
            self.mismatch(m, c.span, &c.reason, param, body);
            return;
        }
        let mut triples = Vec::new();
        self.store.zip_dims3(param, init, body, &mut triples);
        for (p, i, b) in triples {
            let (p, i, b) = (self.store.dim(&p), self.store.dim(&i), self.store.dim(&b));
            match &p {
                Dim::Var(_) => {
                    let d = if b == i || b == p || self.same_each_time(&b, &[&p, &i]) {
                        i
                    } else if let Dim::Var(_) = b {
                        let _ = self.store.unify_dim(&b, &i, Mode::default(), false);
                        i
                    } else {
                        self.store.existential(
                            "a loop parameter's size, which changes across iterations",
                            c.span,
                        )
                    };
                    let _ = self.store.unify_dim(&p, &d, Mode::default(), false);
                }
                _ => {
                    if let Err(m) = self.store.unify_dim(&p, &i, Mode::default(), false) {
                        self.mismatch(m, c.span, &Reason::LoopInit(c.span), param, init);
                    }
                    if self.same_each_time(&b, &[&p]) {
                        continue;
                    }
                    if let Err(m) = self.store.unify_dim(&p, &b, Mode::default(), false) {
                        self.mismatch(m, c.span, &c.reason, param, body);
                    }
                }
            }
        }
    }

    /// Is `b`, a branch join's existential, one of `sizes` in every branch (`if c then acc else
    /// replicate n 0` with `acc` of the initial size `n`)? Then the loop keeps that size.
    fn same_each_time(&self, b: &Dim, sizes: &[&Dim]) -> bool {
        let Dim::Name(n) = b else { return false };
        let Some(alts) = self.store.alternatives.get(n) else { return false };
        alts.iter().all(|a| {
            let a = self.store.dim(a);
            sizes.iter().any(|s| self.store.dim(s) == a)
        })
    }

    // -----------------------------------------------------------------------------------------
    // Messages

    fn mismatch(&mut self, m: Mismatch, span: Span, reason: &Reason, expected: &Ty, found: &Ty) {
        let e = show(self.store, expected);
        let f = show(self.store, found);
        let d = match m {
            Mismatch::Types | Mismatch::Occurs => {
                let mut d =
                    Diagnostic::ty(span, format!("type mismatch: expected `{e}`, found `{f}`"))
                        .with_label(format!("this has type `{f}`"));
                if let Mismatch::Occurs = m {
                    d = d.with_hint("this would be an infinite type");
                }
                explain(d, reason, &format!("`{e}`"))
            }
            Mismatch::Class { set, found } => {
                if let Ty::Var(v) = self.store.resolve(&found) {
                    if self.store.tvar(v).rigid.is_some()
                        && !self.classless.insert((v, set.describe()))
                    {
                        return;
                    }
                }
                let f = self.show_found(&found);
                let d = Diagnostic::ty(
                    span,
                    format!("type mismatch: expected {}, found {f}", set.describe()),
                )
                .with_label(format!("this has {f}"));
                explain(d, reason, &set.describe())
            }
            Mismatch::Fun { found } => fun_error(span, &show(self.store, &found)),
            Mismatch::Size { expected: d1, found: d2, .. } => {
                let (s1, s2) = (show_dim(self.store, &d1), show_dim(self.store, &d2));
                let d = Diagnostic::new(
                    Phase::Size,
                    span,
                    format!("size mismatch: expected size {s1}, found size {s2}"),
                )
                .with_label(format!("this has type `{f}`"));
                let d = explain(d, reason, &format!("`{e}`"));
                self.size_hints(d, &[d1, d2])
            }
        };
        self.errors.push(d);
    }

    fn apply_mismatch(
        &mut self,
        m: Mismatch,
        c: &Constraint,
        info: &ApplyInfo,
        expected: &Ty,
        found: &Ty,
    ) {
        let e = show(self.store, expected);
        let f = show(self.store, found);
        let fun = info.callee.as_ref().map_or("this function".to_string(), |n| format!("`{n}`"));
        let arg = describe_arg(info);
        let takes = format!("{fun} takes an argument of type `{e}`");
        let d = match m {
            Mismatch::Size { expected: d1, found: d2, outer } => {
                let (s1, s2) = (show_dim(self.store, &d1), show_dim(self.store, &d2));
                // Which earlier argument of this application the expected size comes from.
                let spine = self.spines.get(&info.fun_span).map_or(&[][..], Vec::as_slice);
                let origin = spine.iter().find(|(_, _, t)| {
                    let mut found = false;
                    self.store.zonk(t).for_each_dim(&mut |d| found |= *d == d1);
                    found
                });
                let d = match origin {
                    Some((span, what, t)) => {
                        // Both sizes are their arguments' lengths, or some are inner dimensions.
                        let origin_outer = matches!(self.store.resolve(t), Ty::Array { dim, .. } if self.store.dim(&dim) == d1);
                        let how = if outer && origin_outer {
                            "arguments of the same length"
                        } else {
                            "arguments of matching sizes"
                        };
                        Diagnostic::new(
                            Phase::Size,
                            c.span,
                            format!("size mismatch: {fun} expects {how}, but {what} has size {s1} and {arg} has size {s2}"),
                        )
                        .with_label(format!("{arg} has size {s2}"))
                        .with_secondary(*span, format!("{what} has size {s1}"))
                    }
                    None => Diagnostic::new(
                        Phase::Size,
                        c.span,
                        format!("size mismatch: {fun} expects an argument of size {s1}, but {arg} has size {s2}"),
                    )
                    .with_label(format!("this has type `{f}`"))
                    .with_secondary(info.fun_span, takes),
                };
                self.size_hints(d, &[d1, d2])
            }
            Mismatch::Class { set, found } => {
                let t = self.show_found(&found);
                Diagnostic::ty(
                    c.span,
                    format!("type mismatch: expected {}, found {t}", set.describe()),
                )
                .with_label(format!("this has type `{f}`"))
                .with_secondary(info.fun_span, takes)
            }
            Mismatch::Fun { found } => {
                fun_error(c.span, &show(self.store, &found)).with_secondary(info.fun_span, takes)
            }
            Mismatch::Types | Mismatch::Occurs => {
                let d =
                    Diagnostic::ty(c.span, format!("type mismatch: expected `{e}`, found `{f}`"))
                        .with_label(format!("this has type `{f}`"))
                        .with_secondary(info.fun_span, takes);
                if let Mismatch::Occurs = m {
                    d.with_hint("this would be an infinite type")
                } else {
                    d
                }
            }
        };
        self.errors.push(d);
    }

    /// One dimension (a size not yet inferred is one too) sliced with the same bounds: the
    /// same size at run time.
    fn keyed_slice(&mut self, dim: &Dim, key: &SliceKey, span: Span) -> Dim {
        let k = (self.store.dim(dim), key.clone());
        match self.slices.get(&k) {
            Some(s) => s.clone(),
            None => {
                let s = self.store.existential("the size of this slice", span);
                self.slices.insert(k, s.clone());
                s
            }
        }
    }

    fn mentions_rebound(&self, d: &Dim) -> bool {
        d.names().iter().any(|n| self.rebound.contains(n))
    }

    /// A type in a message: "`bool`", or "a floating-point type" for an undetermined literal.
    fn show_found(&self, t: &Ty) -> String {
        if let Ty::Var(v) = self.store.resolve(t) {
            let info = self.store.tvar(v);
            if let (None, Some(set)) = (&info.rigid, info.prims) {
                return set.describe();
            }
        }
        format!("`{}`", show(self.store, t))
    }

    /// Explain invented sizes ("`k₁` is the size of the result of `filter`").
    fn size_hints(&self, mut d: Diagnostic, dims: &[Dim]) -> Diagnostic {
        let mut any = false;
        let mut seen = Vec::new();
        for n in dims.iter().flat_map(|dim| self.store.dim(dim).names()) {
            if is_invented(&n) && !seen.contains(&n) {
                any = true;
                if let Some((why, _)) = self.store.invented.get(&n) {
                    d = d.with_hint(format!("`{n}` is {why}, known only at run time"));
                }
                seen.push(n);
            }
        }
        if any {
            d = d.with_hint("if the sizes are equal at run time, say so with a coercion `e :> [n]t`, which checks it");
        }
        d
    }
}

/// "`xs`", or "argument 2" when the argument is not a variable.
fn describe_arg(info: &ApplyInfo) -> String {
    match &info.arg_name {
        Some(n) => format!("`{n}`"),
        None => format!("argument {}", info.index + 1),
    }
}

fn explain(mut d: Diagnostic, reason: &Reason, expected: &str) -> Diagnostic {
    let (label, hints) = reason.explain(expected);
    if let Some((span, text)) = label {
        d = d.with_secondary(span, text);
    }
    for h in hints {
        d = d.with_hint(h);
    }
    d
}

fn fun_error(span: Span, found: &str) -> Diagnostic {
    Diagnostic::ty(span, format!("type mismatch: expected a type without functions, found `{found}`")).with_hint(
        "functions cannot be stored in arrays, compared, or given for a type parameter declared `'a` (only `'^a`)",
    )
}

/// Does a value of this type (an application's result) alias nothing?
fn fresh_result(t: &Ty) -> bool {
    match t {
        Ty::Array { unique, .. } => *unique,
        Ty::Tuple(ts) => ts.iter().all(fresh_result),
        Ty::Record(fs) => fs.values().all(fresh_result),
        Ty::Arrow { .. } | Ty::Var(_) | Ty::Gen(_) | Ty::Sum(_) => false,
        Ty::Prim(_) | Ty::Err => true,
    }
}
