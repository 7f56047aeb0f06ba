//! Rank constraint generation for one top-level definition.
//!
//! A type is split into a *rank* (a linear sum of rank variables and a constant: its number of
//! leading array dimensions) and a *base* (what is left: a primitive, a type-variable base, an
//! arrow, a tuple, a record). Bases are unified structurally on the spot (arrows, tuples and
//! records split into their components, each with its own rank equality); ranks only give linear
//! equalities, which go into the ILP. Every application of a spine `f a1 ... an` gets fresh
//! `(M_i, R_i)` with `M_i + F_(i-1) + |param_i| = R_i + |arg_i|`, where `F_i = F_(i-1) + M_i` is the
//! frame the mapped prefix has built (DESIGN.md, seed note §3.1).
//!
//! The analysis is deliberately lenient about everything but ranks: a base mismatch or a construct
//! it cannot follow marks the result `incomplete`, and the ordinary checker (which runs on the
//! elaborated program) reports the real error.

use std::collections::{BTreeMap, HashMap};

use crate::diag::Span;
use crate::syntax::ast::{
    DimIndex, Expr, ExprKind, LoopForm, Name, NodeId, Pat, PatKind, RecordField, TypeExp,
    TypeParam, ValDec,
};

use super::super::env::Globals;
use super::super::ity::Ty;
use super::super::typeexp::{AnySize, Conv};

/// A rank variable.
pub(crate) type RVar = usize;

/// A linear rank expression `c + Σ k·v`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Lin {
    pub c: i64,
    pub terms: Vec<(RVar, i64)>,
}

impl Lin {
    pub fn konst(c: i64) -> Lin {
        Lin { c, terms: vec![] }
    }
    pub fn var(v: RVar) -> Lin {
        Lin { c: 0, terms: vec![(v, 1)] }
    }
    pub fn plus(&self, o: &Lin) -> Lin {
        let mut r = self.clone();
        r.c += o.c;
        for &(v, k) in &o.terms {
            match r.terms.iter_mut().find(|(w, _)| *w == v) {
                Some(t) => t.1 += k,
                None => r.terms.push((v, k)),
            }
        }
        r.terms.retain(|t| t.1 != 0);
        r
    }
    pub fn minus(&self, o: &Lin) -> Lin {
        self.plus(&Lin { c: -o.c, terms: o.terms.iter().map(|&(v, k)| (v, -k)).collect() })
    }
    pub fn add_const(&self, c: i64) -> Lin {
        self.plus(&Lin::konst(c))
    }
    pub fn eval(&self, vals: &[i64]) -> i64 {
        self.c + self.terms.iter().map(|&(v, k)| k * vals.get(v).copied().unwrap_or(0)).sum::<i64>()
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Base {
    Prim,
    /// A base variable (index into `Rank::bases`).
    Var(usize),
    /// A rigid type parameter of the definition.
    Rigid(usize),
    /// A sum type or anything opaque to rank analysis.
    Opaque,
    Arrow(Box<RTy>, Box<RTy>),
    Tuple(Vec<RTy>),
    Record(BTreeMap<Name, RTy>),
}

#[derive(Clone, Debug)]
pub(crate) struct RTy {
    pub rank: Lin,
    pub base: Base,
}

impl RTy {
    fn prim() -> RTy {
        RTy { rank: Lin::konst(0), base: Base::Prim }
    }
    fn with_rank(&self, rank: Lin) -> RTy {
        RTy { rank, base: self.base.clone() }
    }
}

/// The rank variables of one application in a spine.
#[derive(Clone, Debug)]
pub(crate) struct App {
    pub m: RVar,
    pub r: RVar,
    /// The frame built before this argument (`F_(i-1)`).
    pub frame: Lin,
    /// The argument's base (a function may not be replicated beyond the frame).
    pub arg_base: Base,
    pub span: Span,
}

/// One application spine (`f a1 .. an`, `a op b`, `-a`, `x |> f`, or the implicit application
/// inside an explicit `map f xs` whose `f` is not a lambda).
#[derive(Clone, Debug)]
pub(crate) struct Spine {
    pub apps: Vec<App>,
    pub span: Span,
}

/// How an explicit `map`/`mapN` was read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum MapKind {
    /// `map (\x ... -> e) xs ...`: the lambda's parameters meet the elements.
    Lambda,
    /// `map f xs ...`: `f` is applied flexibly to the elements (a spine keyed by the map's id).
    Eta,
}

pub(crate) struct Rank<'a> {
    globals: &'a Globals,
    user_defs: &'a dyn Fn(&str) -> bool,
    pub n_rvars: usize,
    pub rvar_names: Vec<String>,
    bases: Vec<Option<Base>>,
    pub eqs: Vec<(Lin, Span)>,
    pub spines: HashMap<NodeId, Spine>,
    pub maps: HashMap<NodeId, MapKind>,
    pub incomplete: bool,
    /// Local bindings; a local function with type parameters lists their `Base::Rigid` indices,
    /// which each use instantiates afresh.
    locals: Vec<(Name, RTy, Vec<usize>)>,
    /// Every type given to a node, checked at the end: a function's rank must be 0.
    seen: Vec<RTy>,
    tparams: HashMap<Name, usize>,
    depth: usize,
    /// Steps of base unification left; the analysis gives up (`incomplete`) when they run out.
    unify_budget: usize,
}

const MAX_DEPTH: usize = 400;

/// Base unification work allowed per definition: far above what any real program needs, low
/// enough that a pathological one gives up in milliseconds instead of running for hours.
const UNIFY_BUDGET: usize = 200_000;

/// The built-in reading of explicit maps: name → number of arrays.
fn map_arity(name: &str) -> Option<usize> {
    match name {
        "map" | "map1" => Some(1),
        "map2" => Some(2),
        "map3" => Some(3),
        "map4" => Some(4),
        "map5" => Some(5),
        _ => None,
    }
}

/// A built-in operator (a program's own operators are typed like the functions they are).
fn is_operator(op: &str) -> bool {
    crate::types::gen::is_operator(op)
}

impl<'a> Rank<'a> {
    pub fn new(globals: &'a Globals, user_defs: &'a dyn Fn(&str) -> bool) -> Self {
        Rank {
            globals,
            user_defs,
            n_rvars: 0,
            rvar_names: vec![],
            bases: vec![],
            eqs: vec![],
            spines: HashMap::new(),
            maps: HashMap::new(),
            incomplete: false,
            locals: vec![],
            seen: vec![],
            tparams: HashMap::new(),
            depth: 0,
            unify_budget: UNIFY_BUDGET,
        }
    }

    pub fn rvar(&mut self, name: String) -> RVar {
        self.n_rvars += 1;
        self.rvar_names.push(name);
        self.n_rvars - 1
    }

    fn fresh_base(&mut self) -> Base {
        self.bases.push(None);
        Base::Var(self.bases.len() - 1)
    }

    /// A fresh type: unknown rank and base (a type variable α with its rank ᾱ).
    fn fresh(&mut self) -> RTy {
        let r = self.rvar(format!("r{}", self.n_rvars));
        RTy { rank: Lin::var(r), base: self.fresh_base() }
    }

    pub fn is_fun(&self, b: &Base) -> bool {
        matches!(self.resolve(b), Base::Arrow(..))
    }

    fn resolve(&self, b: &Base) -> Base {
        let mut b = b.clone();
        let mut steps = 0;
        while let Base::Var(v) = b {
            match self.bases.get(v).and_then(|x| x.clone()) {
                Some(nb) if steps < 10_000 => {
                    b = nb;
                    steps += 1;
                }
                _ => return Base::Var(v),
            }
        }
        b
    }

    fn eq(&mut self, a: &Lin, b: &Lin, span: Span) {
        let d = a.minus(b);
        if d.terms.is_empty() && d.c == 0 {
            return;
        }
        self.eqs.push((d, span));
    }

    fn unify(&mut self, a: &RTy, b: &RTy, span: Span) {
        self.eq(&a.rank, &b.rank, span);
        self.unify_base(&a.base, &b.base, span, 0);
    }

    fn unify_base(&mut self, a: &Base, b: &Base, span: Span, depth: usize) {
        if depth > 200 || self.unify_budget == 0 {
            self.incomplete = true;
            return;
        }
        self.unify_budget -= 1;
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (&a, &b) {
            (Base::Var(x), Base::Var(y)) if x == y => {}
            (Base::Var(x), _) => self.bind(*x, b.clone()),
            (_, Base::Var(y)) => self.bind(*y, a.clone()),
            (Base::Prim, Base::Prim) | (Base::Opaque, Base::Opaque) => {}
            (Base::Rigid(x), Base::Rigid(y)) if x == y => {}
            (Base::Arrow(p1, r1), Base::Arrow(p2, r2)) => {
                self.eq(&p1.rank, &p2.rank, span);
                self.unify_base(&p1.base, &p2.base, span, depth + 1);
                self.eq(&r1.rank, &r2.rank, span);
                self.unify_base(&r1.base, &r2.base, span, depth + 1);
            }
            (Base::Tuple(xs), Base::Tuple(ys)) if xs.len() == ys.len() => {
                for (x, y) in xs.iter().zip(ys) {
                    self.eq(&x.rank, &y.rank, span);
                    self.unify_base(&x.base, &y.base, span, depth + 1);
                }
            }
            (Base::Record(xs), Base::Record(ys)) if xs.keys().eq(ys.keys()) => {
                for (x, y) in xs.values().zip(ys.values()) {
                    self.eq(&x.rank, &y.rank, span);
                    self.unify_base(&x.base, &y.base, span, depth + 1);
                }
            }
            _ => self.incomplete = true,
        }
    }

    fn bind(&mut self, v: usize, b: Base) {
        // A variable bound to a type that contains it would be an infinite type (`f f` with
        // `f : (t -> t -> t) -> ...`); the ordinary checker reports it, so only give up here.
        if self.occurs(v, &b, 0) {
            self.incomplete = true;
            return;
        }
        if let Some(slot) = self.bases.get_mut(v) {
            *slot = Some(b);
        }
    }

    fn occurs(&self, v: usize, b: &Base, depth: usize) -> bool {
        if depth > 200 {
            return true;
        }
        match self.resolve(b) {
            Base::Var(x) => x == v,
            Base::Prim | Base::Opaque | Base::Rigid(_) => false,
            Base::Arrow(p, r) => {
                self.occurs(v, &p.base, depth + 1) || self.occurs(v, &r.base, depth + 1)
            }
            Base::Tuple(xs) => xs.iter().any(|x| self.occurs(v, &x.base, depth + 1)),
            Base::Record(xs) => xs.values().any(|x| self.occurs(v, &x.base, depth + 1)),
        }
    }

    fn note(&mut self, t: &RTy) {
        self.seen.push(t.clone());
    }

    /// Constraints that need the final bases: functions have rank 0 (no arrays of functions).
    pub fn finish(&mut self) {
        let seen = std::mem::take(&mut self.seen);
        for t in &seen {
            if let Base::Arrow(..) = self.resolve(&t.base) {
                self.eq(&t.rank, &Lin::konst(0), Span::DUMMY);
            }
        }
    }

    /// The type of a scheme or annotation (`Ty::Gen(i)` is `gens[i]`).
    fn of_ty(&mut self, t: &Ty, gens: &[RTy]) -> RTy {
        match t {
            Ty::Prim(_) => RTy::prim(),
            Ty::Gen(i) => match gens.get(*i as usize) {
                Some(g) => g.clone(),
                None => {
                    self.incomplete = true;
                    self.fresh()
                }
            },
            Ty::Var(_) | Ty::Err => {
                self.incomplete = true;
                self.fresh()
            }
            Ty::Array { elem, .. } => {
                let e = self.of_ty(elem, gens);
                e.with_rank(e.rank.add_const(1))
            }
            Ty::Tuple(ts) => {
                let ts = ts.iter().map(|t| self.of_ty(t, gens)).collect();
                RTy { rank: Lin::konst(0), base: Base::Tuple(ts) }
            }
            Ty::Record(fs) => {
                let fs = fs.iter().map(|(k, t)| (k.clone(), self.of_ty(t, gens))).collect();
                RTy { rank: Lin::konst(0), base: Base::Record(fs) }
            }
            Ty::Arrow { from, to, .. } => {
                let a = self.of_ty(from, gens);
                let b = self.of_ty(to, gens);
                RTy { rank: Lin::konst(0), base: Base::Arrow(Box::new(a), Box::new(b)) }
            }
            Ty::Sum(_) => RTy { rank: Lin::konst(0), base: Base::Opaque },
        }
    }

    fn of_type_exp(&mut self, te: &TypeExp) -> RTy {
        let mut conv = Conv::new(None, &self.globals.abbrevs, AnySize::PerApp);
        let mut gens = Vec::new();
        let mut names: Vec<(&Name, &usize)> = self.tparams.iter().collect();
        names.sort_by_key(|(_, i)| **i);
        for (n, i) in names {
            conv.tparams.insert(n.clone(), Ty::Gen(gens.len() as u32));
            gens.push(RTy { rank: Lin::konst(0), base: Base::Rigid(*i) });
        }
        let ty = conv.ty(te);
        // Unknown size names are fine here (sizes are checked later); other errors are not ours.
        if conv.errors.iter().any(|e| !e.message.contains("size")) {
            self.incomplete = true;
        }
        self.of_ty(&ty, &gens)
    }

    fn lookup(&mut self, name: &str) -> Option<RTy> {
        if let Some((_, t, tparams)) = self.locals.iter().rev().find(|(n, ..)| n == name) {
            if tparams.is_empty() {
                return Some(t.clone());
            }
            let (t, tparams) = (t.clone(), tparams.clone());
            let fresh: HashMap<usize, RTy> = tparams.iter().map(|&i| (i, self.fresh())).collect();
            return Some(self.instantiate(&t, &fresh));
        }
        let s = self.globals.lookup(name)?;
        let gens: Vec<RTy> = s.type_params.iter().map(|_| self.fresh()).collect();
        Some(self.of_ty(&s.ty, &gens))
    }

    /// `t` with the rigid type parameters in `fresh` replaced: `[2]t` at `t := α` is `[2]α`,
    /// of rank `1 + ᾱ`.
    fn instantiate(&self, t: &RTy, fresh: &HashMap<usize, RTy>) -> RTy {
        let inst = |t: &RTy| self.instantiate(t, fresh);
        match self.resolve(&t.base) {
            Base::Rigid(i) => match fresh.get(&i) {
                Some(f) => RTy { rank: t.rank.plus(&f.rank), base: f.base.clone() },
                None => t.clone(),
            },
            Base::Arrow(a, b) => RTy {
                rank: t.rank.clone(),
                base: Base::Arrow(Box::new(inst(&a)), Box::new(inst(&b))),
            },
            Base::Tuple(ts) => {
                RTy { rank: t.rank.clone(), base: Base::Tuple(ts.iter().map(inst).collect()) }
            }
            Base::Record(fs) => RTy {
                rank: t.rank.clone(),
                base: Base::Record(fs.iter().map(|(n, f)| (n.clone(), inst(f))).collect()),
            },
            Base::Prim | Base::Var(_) | Base::Opaque => t.clone(),
        }
    }

    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|(n, ..)| n == name)
    }

    /// The definition's type (parameters, then the body's full type).
    pub fn def(&mut self, v: &ValDec) {
        for p in &v.type_params {
            match p {
                TypeParam::Type { name, .. } => {
                    let i = self.tparams.len();
                    self.tparams.insert(name.clone(), i);
                }
                TypeParam::Size { name, .. } => {
                    self.locals.push((name.clone(), RTy::prim(), Vec::new()))
                }
            }
        }
        for p in &v.params {
            let t = self.fresh();
            self.pat(p, &t);
        }
        let body = self.expr(&v.body);
        if let Some(ret) = &v.ret {
            let r = self.of_type_exp(ret);
            self.unify(&r, &body, v.body.span);
        }
        self.finish();
    }

    fn pat(&mut self, p: &Pat, t: &RTy) {
        self.note(t);
        match &p.kind {
            PatKind::Var(n) => self.locals.push((n.clone(), t.clone(), Vec::new())),
            PatKind::Wildcard => {}
            PatKind::Tuple(ps) => {
                let ts: Vec<RTy> = ps.iter().map(|_| self.fresh()).collect();
                let tt = RTy { rank: Lin::konst(0), base: Base::Tuple(ts.clone()) };
                self.unify(&tt, t, p.span);
                for (p, t) in ps.iter().zip(&ts) {
                    self.pat(p, t);
                }
            }
            PatKind::Record(fs) => match self.resolve(&t.base) {
                Base::Record(rs) => {
                    self.eq(&t.rank, &Lin::konst(0), p.span);
                    for (n, p) in fs {
                        match rs.get(n) {
                            Some(ft) => self.pat(p, &ft.clone()),
                            None => {
                                self.incomplete = true;
                                let f = self.fresh();
                                self.pat(p, &f);
                            }
                        }
                    }
                }
                _ => {
                    let ts: BTreeMap<Name, RTy> =
                        fs.iter().map(|(n, _)| (n.clone(), self.fresh())).collect();
                    let rt = RTy { rank: Lin::konst(0), base: Base::Record(ts.clone()) };
                    self.unify(&rt, t, p.span);
                    for (n, p) in fs {
                        if let Some(ft) = ts.get(n) {
                            self.pat(p, &ft.clone());
                        }
                    }
                }
            },
            PatKind::Ascribed(q, te) => {
                let a = self.of_type_exp(te);
                self.unify(&a, t, p.span);
                self.pat(q, t);
            }
            PatKind::Literal(_) => self.unify(&RTy::prim(), t, p.span),
            PatKind::Constr(_, ps) => {
                for p in ps {
                    let f = self.fresh();
                    self.pat(p, &f);
                }
            }
        }
    }

    /// The full type of an expression (any frame of its own is folded into its rank).
    pub fn expr(&mut self, e: &Expr) -> RTy {
        self.depth += 1;
        let t = if self.depth > MAX_DEPTH {
            self.incomplete = true;
            self.fresh()
        } else {
            self.expr_inner(e)
        };
        self.depth -= 1;
        self.note(&t);
        t
    }

    fn expr_inner(&mut self, e: &Expr) -> RTy {
        let sp = e.span;
        match &e.kind {
            ExprKind::Literal(_) => RTy::prim(),
            ExprKind::Var(n) => match self.lookup(n) {
                Some(t) => t,
                None => {
                    self.incomplete = true;
                    self.fresh()
                }
            },
            ExprKind::Tuple(es) => {
                let ts = es.iter().map(|e| self.expr(e)).collect();
                RTy { rank: Lin::konst(0), base: Base::Tuple(ts) }
            }
            ExprKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let (RecordField::Explicit(n, e) | RecordField::Implicit(n, e)) = f;
                    let t = self.expr(e);
                    m.insert(n.clone(), t);
                }
                RTy { rank: Lin::konst(0), base: Base::Record(m) }
            }
            ExprKind::ArrayLit(es) => {
                let t = match es.first() {
                    Some(e0) => self.expr(e0),
                    None => self.fresh(),
                };
                for e in es.iter().skip(1) {
                    let u = self.expr(e);
                    self.unify(&t, &u, e.span);
                }
                t.with_rank(t.rank.add_const(1))
            }
            ExprKind::Range { start, second, end, .. } => {
                for e in [Some(start), second.as_ref(), Some(end)].into_iter().flatten() {
                    let t = self.expr(e);
                    self.unify(&t, &RTy::prim(), e.span);
                }
                RTy { rank: Lin::konst(1), base: Base::Prim }
            }
            ExprKind::Project(r, f) => {
                let t = self.expr(r);
                self.eq(&t.rank, &Lin::konst(0), sp);
                match self.resolve(&t.base) {
                    Base::Record(fs) if fs.contains_key(f) => fs[f].clone(),
                    Base::Tuple(ts) => match f.parse::<usize>().ok().and_then(|i| ts.get(i)) {
                        Some(t) => t.clone(),
                        None => {
                            self.incomplete = true;
                            self.fresh()
                        }
                    },
                    _ => {
                        self.incomplete = true;
                        self.fresh()
                    }
                }
            }
            ExprKind::Index(a, idx) => {
                let t = self.expr(a);
                let k = self.dim_indices(idx);
                let res = self.fresh();
                self.eq(&res.rank.add_const(k), &t.rank, sp);
                self.unify_base(&res.base, &t.base, sp, 0);
                res
            }
            ExprKind::Apply(..) => {
                let mut args = Vec::new();
                let mut f = e;
                while let ExprKind::Apply(g, a) = &f.kind {
                    args.push(&**a);
                    f = g;
                }
                args.reverse();
                if let ExprKind::Var(n) = &f.kind {
                    if let Some(k) = map_arity(n) {
                        if args.len() == k + 1 && !self.is_local(n) && !(self.user_defs)(n) {
                            return self.explicit_map(e.id, args[0], &args[1..], sp);
                        }
                    }
                }
                let ft = self.expr(f);
                let ats: Vec<(RTy, Span)> = args.iter().map(|a| (self.expr(a), a.span)).collect();
                self.spine(e.id, ft, ats, sp)
            }
            ExprKind::BinOp { op, lhs, rhs, .. } => {
                if op == "|>" || op == "<|" {
                    let (f, x) = if op == "|>" { (rhs, lhs) } else { (lhs, rhs) };
                    let xt = self.expr(x);
                    let ft = self.expr(f);
                    return self.spine(e.id, ft, vec![(xt, x.span)], sp);
                }
                if op == ">->" || op == "<-<" {
                    let (f, g) = if op == ">->" { (lhs, rhs) } else { (rhs, lhs) };
                    let (a, b, c) = (self.fresh(), self.fresh(), self.fresh());
                    let ft = self.expr(f);
                    let gt = self.expr(g);
                    let fab = arrow(a.clone(), b.clone());
                    let gbc = arrow(b, c.clone());
                    self.unify(&ft, &fab, f.span);
                    self.unify(&gt, &gbc, g.span);
                    return arrow(a, c);
                }
                let lt = self.expr(lhs);
                let rt = self.expr(rhs);
                let ot = if is_operator(op) {
                    self.op_type(op)
                } else {
                    match self.lookup(op) {
                        Some(t) => t,
                        None => {
                            self.incomplete = true;
                            self.fresh()
                        }
                    }
                };
                self.spine(e.id, ot, vec![(lt, lhs.span), (rt, rhs.span)], sp)
            }
            ExprKind::Neg(x) | ExprKind::Not(x) => {
                let xt = self.expr(x);
                let ft = arrow(RTy::prim(), RTy::prim());
                self.spine(e.id, ft, vec![(xt, x.span)], sp)
            }
            ExprKind::OpSection(op) if is_operator(op) => self.op_type(op),
            ExprKind::OpSection(op) => self.lookup(op).unwrap_or_else(|| {
                // A program's own operator, typed like the function it is.
                self.incomplete = true;
                self.fresh()
            }),
            ExprKind::LeftSection(op, x) | ExprKind::RightSection(op, x) => {
                let xt = self.expr(x);
                let ot = if is_operator(op) {
                    self.op_type(op)
                } else {
                    self.lookup(op).unwrap_or_else(|| {
                        self.incomplete = true;
                        self.fresh()
                    })
                };
                let (a, b, c) = (self.fresh(), self.fresh(), self.fresh());
                self.unify(&ot, &arrow(a.clone(), arrow(b.clone(), c.clone())), sp);
                if matches!(e.kind, ExprKind::LeftSection(..)) {
                    self.unify(&a, &xt, x.span);
                    arrow(b, c)
                } else {
                    self.unify(&b, &xt, x.span);
                    arrow(a, c)
                }
            }
            ExprKind::ProjectSection(_) => {
                self.incomplete = true;
                self.fresh()
            }
            ExprKind::Lambda { params, ret, body } => {
                let mark = self.locals.len();
                let pts: Vec<RTy> = params.iter().map(|_| self.fresh()).collect();
                for (p, t) in params.iter().zip(&pts) {
                    self.pat(p, t);
                }
                let bt = self.expr(body);
                if let Some(r) = ret {
                    let rt = self.of_type_exp(r);
                    self.unify(&rt, &bt, body.span);
                }
                self.locals.truncate(mark);
                pts.into_iter().rev().fold(bt, |acc, p| arrow(p, acc))
            }
            ExprKind::If(c, a, b) => {
                let ct = self.expr(c);
                self.unify(&ct, &RTy::prim(), c.span);
                let at = self.expr(a);
                let bt = self.expr(b);
                self.unify(&at, &bt, b.span);
                at
            }
            ExprKind::Let { sizes, pat, rhs, body } => {
                let rt = self.expr(rhs);
                let mark = self.locals.len();
                for (n, _) in sizes {
                    self.locals.push((n.clone(), RTy::prim(), Vec::new()));
                }
                self.pat(pat, &rt);
                let bt = self.expr(body);
                self.locals.truncate(mark);
                bt
            }
            ExprKind::LetFun { name, type_params, params, ret, rhs, body, .. } => {
                let mark = self.locals.len();
                let saved = self.tparams.clone();
                let mut own = Vec::new();
                for p in type_params {
                    match p {
                        TypeParam::Type { name, .. } => {
                            // Numbered past every type parameter in scope, so they stay apart.
                            let i = self.tparams.values().max().map_or(0, |m| m + 1);
                            self.tparams.insert(name.clone(), i);
                            own.push(i);
                        }
                        TypeParam::Size { name, .. } => {
                            self.locals.push((name.clone(), RTy::prim(), Vec::new()))
                        }
                    }
                }
                let pts: Vec<RTy> = params.iter().map(|_| self.fresh()).collect();
                for (p, t) in params.iter().zip(&pts) {
                    self.pat(p, t);
                }
                let bt = self.expr(rhs);
                if let Some(r) = ret {
                    let rt = self.of_type_exp(r);
                    self.unify(&rt, &bt, rhs.span);
                }
                self.locals.truncate(mark);
                self.tparams = saved;
                let ft = pts.into_iter().rev().fold(bt, |acc, p| arrow(p, acc));
                self.locals.push((name.clone(), ft, own));
                let t = self.expr(body);
                self.locals.truncate(mark);
                t
            }
            ExprKind::LetWith { name, indices, value, body, .. } => {
                let at = self.lookup(name).unwrap_or_else(|| self.fresh());
                let k = self.dim_indices(indices);
                let vt = self.expr(value);
                self.eq(&vt.rank.add_const(k), &at.rank, value.span);
                self.unify_base(&vt.base, &at.base, value.span, 0);
                self.expr(body)
            }
            ExprKind::Update(a, indices, v) => {
                let at = self.expr(a);
                let k = self.dim_indices(indices);
                let vt = self.expr(v);
                self.eq(&vt.rank.add_const(k), &at.rank, v.span);
                self.unify_base(&vt.base, &at.base, v.span, 0);
                at
            }
            ExprKind::RecordUpdate(r, _, v) => {
                let rt = self.expr(r);
                self.expr(v);
                self.incomplete |= !matches!(self.resolve(&rt.base), Base::Record(_));
                rt
            }
            ExprKind::Loop { pat, init, form, body } => {
                let mark = self.locals.len();
                let pt = match init {
                    Some(i) => self.expr(i),
                    None => self.fresh(),
                };
                match form {
                    LoopForm::For { var, bound, .. } => {
                        let bt = self.expr(bound);
                        self.unify(&bt, &RTy::prim(), bound.span);
                        self.locals.push((var.clone(), RTy::prim(), Vec::new()));
                    }
                    LoopForm::ForIn(p, xs) => {
                        let xt = self.expr(xs);
                        let el = self.fresh();
                        self.eq(&el.rank.add_const(1), &xt.rank, xs.span);
                        self.unify_base(&el.base, &xt.base, xs.span, 0);
                        self.pat(p, &el);
                    }
                    LoopForm::While(_) => {}
                }
                self.pat(pat, &pt);
                if let LoopForm::While(c) = form {
                    let ct = self.expr(c);
                    self.unify(&ct, &RTy::prim(), c.span);
                }
                let bt = self.expr(body);
                self.unify(&pt, &bt, body.span);
                self.locals.truncate(mark);
                pt
            }
            ExprKind::Match(s, cases) => {
                let st = self.expr(s);
                let res = self.fresh();
                for (p, b) in cases {
                    let mark = self.locals.len();
                    self.pat(p, &st);
                    let bt = self.expr(b);
                    self.unify(&res, &bt, b.span);
                    self.locals.truncate(mark);
                }
                res
            }
            ExprKind::Ascript(x, te) | ExprKind::Coerce(x, te) => {
                let xt = self.expr(x);
                let tt = self.of_type_exp(te);
                self.unify(&tt, &xt, sp);
                tt
            }
            ExprKind::Assert(c, x) => {
                let ct = self.expr(c);
                self.unify(&ct, &RTy::prim(), c.span);
                self.expr(x)
            }
            ExprKind::Constr(_, es) => {
                for e in es {
                    self.expr(e);
                }
                RTy { rank: Lin::konst(0), base: Base::Opaque }
            }
        }
    }

    /// Check index expressions; the number of dimensions removed.
    fn dim_indices(&mut self, idx: &[DimIndex]) -> i64 {
        let mut k = 0;
        for d in idx {
            match d {
                DimIndex::Fix(i) => {
                    k += 1;
                    let t = self.expr(i);
                    self.unify(&t, &RTy::prim(), i.span);
                }
                DimIndex::Slice { start, end, stride } => {
                    for i in [start, end, stride].into_iter().flatten() {
                        let t = self.expr(i);
                        self.unify(&t, &RTy::prim(), i.span);
                    }
                }
            }
        }
        k
    }

    /// The type of a built-in binary operator as a curried function.
    fn op_type(&mut self, op: &str) -> RTy {
        match op {
            "==" | "!=" => {
                let a = self.fresh();
                arrow(a.clone(), arrow(a, RTy::prim()))
            }
            "++" => {
                let a = self.fresh();
                let arr = a.with_rank(a.rank.add_const(1));
                arrow(arr.clone(), arrow(arr.clone(), arr))
            }
            _ => arrow(RTy::prim(), arrow(RTy::prim(), RTy::prim())),
        }
    }

    /// An application spine: fresh (M, R) per argument (rule C-APP, frames accumulated).
    fn spine(&mut self, id: NodeId, f: RTy, args: Vec<(RTy, Span)>, span: Span) -> RTy {
        self.eq(&f.rank, &Lin::konst(0), span);
        let mut cur = f;
        let mut frame = Lin::konst(0);
        let mut apps = Vec::new();
        for (a, asp) in args {
            let (p, r) = match self.resolve(&cur.base) {
                Base::Arrow(p, r) => (*p, *r),
                Base::Var(v) => {
                    let (p, r) = (self.fresh(), self.fresh());
                    self.bind(v, Base::Arrow(Box::new(p.clone()), Box::new(r.clone())));
                    (p, r)
                }
                _ => {
                    self.incomplete = true;
                    (self.fresh(), self.fresh())
                }
            };
            let i = self.n_rvars;
            let m = self.rvar(format!("M{i}"));
            let rr = self.rvar(format!("R{i}"));
            // M + F + |p| = R + |a|
            let lhs = Lin::var(m).plus(&frame).plus(&p.rank);
            let rhs = Lin::var(rr).plus(&a.rank);
            self.eq(&lhs, &rhs, asp);
            self.unify_base(&p.base, &a.base, asp, 0);
            apps.push(App { m, r: rr, frame: frame.clone(), arg_base: a.base.clone(), span: asp });
            frame = frame.plus(&Lin::var(m));
            cur = r;
        }
        self.spines.insert(id, Spine { apps, span });
        cur.with_rank(cur.rank.plus(&frame))
    }

    /// An explicit `map`/`mapN` read as the built-in C-MAP: the function's parameters meet the
    /// arrays' elements, and the map itself has no (M, R).
    fn explicit_map(&mut self, id: NodeId, f: &Expr, arrays: &[&Expr], span: Span) -> RTy {
        let mut elems = Vec::new();
        for a in arrays {
            let at = self.expr(a);
            let el = self.fresh();
            self.eq(&el.rank.add_const(1), &at.rank, a.span);
            self.unify_base(&el.base, &at.base, a.span, 0);
            elems.push((el, a.span));
        }
        let res = match &f.kind {
            ExprKind::Lambda { params, ret, body } if params.len() == arrays.len() => {
                self.maps.insert(id, MapKind::Lambda);
                let mark = self.locals.len();
                for (p, (t, _)) in params.iter().zip(&elems) {
                    self.pat(p, t);
                }
                let bt = self.expr(body);
                if let Some(r) = ret {
                    let rt = self.of_type_exp(r);
                    self.unify(&rt, &bt, body.span);
                }
                self.locals.truncate(mark);
                bt
            }
            _ => {
                self.maps.insert(id, MapKind::Eta);
                let ft = self.expr(f);
                self.spine(id, ft, elems, span)
            }
        };
        res.with_rank(res.rank.add_const(1))
    }
}

fn arrow(a: RTy, b: RTy) -> RTy {
    RTy { rank: Lin::konst(0), base: Base::Arrow(Box::new(a), Box::new(b)) }
}
