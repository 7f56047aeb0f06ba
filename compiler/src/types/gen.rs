//! Constraint generation: one walk over a top-level definition that gives every expression and
//! pattern a type (usually a fresh variable) and records, in order, the constraints that relate
//! them. Nothing is solved here; the solver (`solve.rs`) discharges the list afterwards.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Span};
use crate::prim::PrimType;
use crate::syntax::ast::{
    Expr, ExprKind, Literal, Name, NodeId, Pat, PatKind, RecordField, TypeExp, TypeParam, ValDec,
};

use super::constraint::{Constraint, Kind, Reason};
use super::env::Globals;
use super::ity::{Dim, PrimSet, Store, TVar, Ty};
use super::typeexp::{did_you_mean, free_size_names, AnySize, Conv};

mod arrays;
mod ops;

/// How deeply expressions may nest before the checker gives up (guards the native stack).
pub(crate) const MAX_DEPTH: usize = 500;

#[derive(Clone, Debug)]
enum LocalKind {
    Value,
    /// A size parameter: an `i64` value and a size.
    Size,
    /// A local function with size or type parameters, instantiated afresh at each use.
    Fun(Vec<Name>, Vec<TVar>),
}

#[derive(Clone, Debug)]
struct Local {
    /// Unique within the definition (`push_local` sets it): which binding a name meant, for
    /// slices that must get the same size (`SliceKey`).
    id: u32,
    name: Name,
    ty: Ty,
    kind: LocalKind,
}

/// A variable bound by a pattern.
pub(crate) type Bound = Vec<(Name, Ty, Span)>;

/// A type parameter of a local function (`let id 't (x: t) = x`): rigid in its body, instantiated
/// at each use. Type variables made before it (`outer` and up) belong to enclosing scopes and must
/// not come to mention it.
#[derive(Clone, Debug)]
pub(crate) struct LocalTypeParam {
    pub var: TVar,
    pub outer: TVar,
    pub fun: Name,
}

/// The generated typing of a top-level definition.
pub(crate) struct DefTyping {
    pub ty: Ty,
    /// The rigid type parameters, in declaration order.
    pub rigid: Vec<TVar>,
    /// The type parameters of local functions, quantified after `rigid`.
    pub local_rigid: Vec<LocalTypeParam>,
    pub size_params: Vec<Name>,
    /// Did the definition declare its return type?
    pub ret_declared: bool,
    pub name_span: Span,
}

pub(crate) struct Gen<'g> {
    pub globals: &'g Globals,
    pub store: Store,
    pub cs: Vec<Constraint>,
    pub expr_ty: HashMap<NodeId, Ty>,
    pub pat_ty: HashMap<NodeId, Ty>,
    pub errors: Vec<Diagnostic>,
    locals: Vec<Local>,
    tparams: Vec<(Name, Ty)>,
    depth: usize,
    /// Functions being defined (for the "no recursion" hint).
    defining: Vec<Name>,
    /// Integer literals without a suffix: their value must fit the type they get.
    pub int_literals: Vec<(i128, Ty, Span)>,
    pub too_deep: bool,
    /// The next `Local::id`.
    next_local: u32,
    local_rigid: Vec<LocalTypeParam>,
    /// Names bound where a binding of the same name is in scope (`let i = i + 1`): types name
    /// sizes by their source names, so the two `i`s could not be told apart, and a size is not
    /// named by or computed from such a name (bindings in sibling scopes, such as the
    /// parameters of two lambdas, never meet and do not count).
    pub shadowed: HashSet<Name>,
}

const ARITH: &[&str] = &["+", "-", "*", "/", "%", "//", "%%", "**"];
const BITWISE: &[&str] = &["&", "|", "^", "<<", ">>", ">>>"];
const ORDER: &[&str] = &["<", "<=", ">", ">="];

/// Is `op` one of the built-in operators (rather than a backticked function)?
pub(crate) fn is_operator(op: &str) -> bool {
    ARITH.contains(&op)
        || BITWISE.contains(&op)
        || ORDER.contains(&op)
        || ["==", "!=", "&&", "||", "++", "|>", "<|", ">->", "<-<"].contains(&op)
}

impl<'g> Gen<'g> {
    pub fn new(globals: &'g Globals, store: Store) -> Self {
        Gen {
            globals,
            store,
            cs: Vec::new(),
            expr_ty: HashMap::new(),
            pat_ty: HashMap::new(),
            errors: Vec::new(),
            locals: Vec::new(),
            tparams: Vec::new(),
            depth: 0,
            defining: Vec::new(),
            int_literals: Vec::new(),
            too_deep: false,
            next_local: 0,
            local_rigid: Vec::new(),
            shadowed: HashSet::new(),
        }
    }

    fn push_local(&mut self, mut l: Local) {
        l.id = self.next_local;
        self.next_local += 1;
        if self.locals.iter().any(|m| m.name == l.name) {
            self.shadowed.insert(l.name.clone());
        }
        self.locals.push(l);
    }

    fn push(&mut self, kind: Kind, span: Span, reason: Reason) {
        self.cs.push(Constraint { kind, span, reason });
    }

    fn eq(&mut self, expected: Ty, found: Ty, span: Span, reason: Reason) {
        self.push(Kind::Eq { expected, found }, span, reason);
    }

    /// The value written by an in-place update has the type of the part it replaces.
    fn update_value(&mut self, slot: Ty, value: Ty, span: Span) {
        self.push(Kind::UpdateValue { slot, value }, span, Reason::UpdateValue);
    }

    fn fresh(&mut self, span: Span) -> Ty {
        self.store.fresh_tvar(span)
    }

    fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn bind(&mut self, bound: Bound) {
        let mut seen: Vec<&str> = Vec::new();
        for (n, _, span) in &bound {
            if seen.contains(&n.as_str()) {
                self.errors.push(
                    Diagnostic::ty(*span, format!("`{n}` is bound twice in this pattern"))
                        .with_label("bound again here"),
                );
            }
            seen.push(n);
        }
        for (name, ty, _) in bound {
            self.push_local(Local { id: 0, name, ty, kind: LocalKind::Value });
        }
    }

    // -----------------------------------------------------------------------------------------
    // Definitions

    pub fn def(&mut self, d: &ValDec) -> DefTyping {
        self.defining.push(d.name.clone());
        let mut rigid = Vec::new();
        let mut size_params = Vec::new();
        for tp in &d.type_params {
            match tp {
                TypeParam::Size { name, .. } => {
                    self.push_local(Local {
                        id: 0,
                        name: name.clone(),
                        ty: Ty::i64(),
                        kind: LocalKind::Size,
                    });
                    size_params.push(name.clone());
                }
                TypeParam::Type { name, liftedness, span } => {
                    let t = self.store.fresh_rigid(name, *liftedness, *span);
                    if let Ty::Var(v) = t {
                        rigid.push(v);
                    }
                    self.tparams.push((name.clone(), t));
                }
            }
        }
        // `[]` in a parameter's type is a size to infer. (Futhark makes it a fresh, rigid size
        // parameter; inferring accepts a superset of programs, see the report in mod.rs.)
        let (param_tys, names, hidden) = self.params(&d.params, AnySize::Infer);
        let ret = d.ret.as_ref().map(|te| self.ret_type(te));
        let body = self.expr(&d.body);
        let ret_ty = self.check_ret(ret, body, d.body.span, hidden);
        let ty = arrows(&param_tys, &names, ret_ty);
        self.defining.pop();
        DefTyping {
            ty,
            rigid,
            local_rigid: std::mem::take(&mut self.local_rigid),
            size_params,
            ret_declared: d.ret.is_some(),
            name_span: d.name_span,
        }
    }

    /// Parameters of a function: their types, their arrow names (when a parameter is a plain
    /// variable, sizes in later types may refer to it), and the names bound by other patterns.
    fn params(&mut self, ps: &[Pat], any: AnySize) -> (Vec<Ty>, Vec<Option<Name>>, Vec<Name>) {
        let mut tys = Vec::new();
        let mut names = Vec::new();
        let mut hidden = Vec::new();
        let mut seen: Vec<Name> = Vec::new();
        for p in ps {
            let mut bound = Vec::new();
            let t = self.pat(p, any, &mut bound);
            self.plain_params(p);
            for (n, _, span) in &bound {
                if seen.contains(n) {
                    self.errors.push(
                        Diagnostic::ty(*span, format!("`{n}` is bound twice in the parameters"))
                            .with_label("bound again here"),
                    );
                }
            }
            seen.extend(bound.iter().map(|(n, _, _)| n.clone()));
            let simple = simple_name(p);
            for (n, _, _) in &bound {
                if simple.as_ref() != Some(n) {
                    hidden.push(n.clone());
                }
            }
            names.push(simple);
            tys.push(t);
            self.bind(bound);
        }
        (tys, names, hidden)
    }

    fn escape(&mut self, ty: Ty, names: Vec<Name>, span: Span) -> Ty {
        if names.is_empty() {
            return ty;
        }
        let result = self.fresh(span);
        self.push(Kind::Escape { ty, names, result: result.clone() }, span, Reason::None);
        result
    }

    /// Convert a type annotation; size names refer to size parameters and `i64` variables in scope.
    pub fn conv_type(&mut self, te: &TypeExp, any: AnySize) -> Ty {
        self.conv_type_names(te, any).0
    }

    /// A declared return type, and the existential sizes it declares (`[]`, `?[k].`).
    fn ret_type(&mut self, te: &TypeExp) -> (Ty, Vec<Name>, Span) {
        let (t, names) = self.conv_type_names(te, AnySize::PerApp);
        (t, names, te.span)
    }

    /// Check a body against a declared return type: its declared existential sizes match any size.
    fn check_ret(
        &mut self,
        ret: Option<(Ty, Vec<Name>, Span)>,
        body: Ty,
        body_span: Span,
        hidden: Vec<Name>,
    ) -> Ty {
        match ret {
            Some((t, names, span)) => {
                // The body may have any sizes where the declared type has existentials: it is
                // checked against the declared type with a fresh size in each (one per name,
                // so a name used twice still means one size), wherever they sit (in a sum
                // type's payload or a type abbreviation too).
                let mut fresh: HashMap<Name, Dim> = HashMap::new();
                let store = &mut self.store;
                let view = t.map_dim_atoms(&mut |d| match d {
                    Dim::Name(n) if names.contains(n) => {
                        fresh.entry(n.clone()).or_insert_with(|| store.fresh_dim()).clone()
                    }
                    d => d.clone(),
                });
                self.eq(view, body, body_span, Reason::Return(span));
                t
            }
            None => self.escape(body, hidden, body_span),
        }
    }

    fn conv_type_names(&mut self, te: &TypeExp, any: AnySize) -> (Ty, Vec<Name>) {
        let mut names = Vec::new();
        free_size_names(te, &mut names);
        let mut sizes = HashMap::new();
        let mut uses = Vec::new();
        for (n, span) in names {
            match self.lookup_local(&n) {
                Some(Local { kind: LocalKind::Size, .. }) => {
                    sizes.insert(n.clone(), Dim::Name(n));
                }
                Some(Local { kind: LocalKind::Value, ty, .. }) => {
                    uses.push((ty.clone(), span));
                    sizes.insert(n.clone(), Dim::Name(n));
                }
                _ => {}
            }
        }
        let tparams = self.tparams.iter().cloned().collect();
        let mut conv = Conv::new(Some(&mut self.store), &self.globals.abbrevs, any);
        conv.tparams = tparams;
        conv.sizes = sizes;
        let t = conv.ty(te);
        self.errors.append(&mut conv.errors);
        let invented = std::mem::take(&mut conv.invented);
        for (ty, span) in uses {
            self.eq(Ty::i64(), ty, span, Reason::SizeVar(span));
        }
        (t, invented)
    }

    // -----------------------------------------------------------------------------------------
    // Patterns

    /// Mark the types of the parameters in `p` that have no annotation as types without
    /// uniqueness: only a written `*` lets a function consume its parameter.
    fn plain_params(&mut self, p: &Pat) {
        match &p.kind {
            PatKind::Var(_) => {
                if let Some(Ty::Var(v)) = self.pat_ty.get(&p.id) {
                    let v = *v;
                    self.store.tvar_mut(v).plain = true;
                }
            }
            PatKind::Tuple(ps) => ps.iter().for_each(|q| self.plain_params(q)),
            PatKind::Record(fs) => fs.iter().for_each(|(_, q)| self.plain_params(q)),
            _ => {}
        }
    }

    pub fn pat(&mut self, p: &Pat, any: AnySize, bound: &mut Bound) -> Ty {
        let t = match &p.kind {
            PatKind::Var(n) => {
                let t = self.fresh(p.span);
                bound.push((n.clone(), t.clone(), p.span));
                t
            }
            PatKind::Wildcard => self.fresh(p.span),
            PatKind::Tuple(ps) => Ty::Tuple(ps.iter().map(|q| self.pat(q, any, bound)).collect()),
            PatKind::Record(fs) => {
                let mut out = std::collections::BTreeMap::new();
                for (n, q) in fs {
                    let t = self.pat(q, any, bound);
                    if out.insert(n.clone(), t).is_some() {
                        self.errors.push(Diagnostic::ty(
                            q.span,
                            format!("field `{n}` appears twice in this pattern"),
                        ));
                    }
                }
                Ty::Record(out)
            }
            PatKind::Ascribed(q, te) => {
                let t = self.conv_type(te, any);
                let inner = self.pat(q, any, bound);
                self.eq(t.clone(), inner, q.span, Reason::Ascription(te.span));
                t
            }
            PatKind::Literal(l) => self.literal(l, p.span),
            PatKind::Constr(name, ps) => {
                let args = ps.iter().map(|q| self.pat(q, any, bound)).collect();
                let t = self.fresh(p.span);
                self.push(
                    Kind::Constr { ty: t.clone(), name: name.clone(), args },
                    p.span,
                    Reason::Pattern,
                );
                t
            }
        };
        self.pat_ty.insert(p.id, t.clone());
        t
    }

    fn literal(&mut self, l: &Literal, span: Span) -> Ty {
        match l {
            Literal::Int(_, Some(t)) => Ty::Prim(PrimType::Int(*t)),
            Literal::Int(v, None) => {
                let t = self.store.fresh_prim(PrimSet::numeric(), span);
                self.int_literals.push((*v, t.clone(), span));
                t
            }
            Literal::Float(_, Some(t)) => Ty::Prim(PrimType::Float(*t)),
            Literal::Float(_, None) => self.store.fresh_prim(PrimSet::floats(), span),
            Literal::Bool(_) => Ty::bool(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Expressions

    pub fn expr(&mut self, e: &Expr) -> Ty {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.errors.push(Diagnostic::ty(
                    e.span,
                    format!("this expression is nested too deeply (more than {MAX_DEPTH} levels)"),
                ));
            }
            return Ty::Err;
        }
        self.depth += 1;
        let t = self.expr_kind(e);
        self.depth -= 1;
        self.expr_ty.insert(e.id, t.clone());
        t
    }

    fn expr_kind(&mut self, e: &Expr) -> Ty {
        let span = e.span;
        match &e.kind {
            ExprKind::Literal(l) => self.literal(l, span),
            ExprKind::Var(name) => self.var(name, span),
            ExprKind::Tuple(es) => Ty::Tuple(es.iter().map(|x| self.expr(x)).collect()),
            ExprKind::Record(fields) => {
                let mut out = std::collections::BTreeMap::new();
                for f in fields {
                    let (n, x) = match f {
                        RecordField::Explicit(n, x) | RecordField::Implicit(n, x) => (n, x),
                    };
                    let t = self.expr(x);
                    if out.insert(n.clone(), t).is_some() {
                        self.errors
                            .push(Diagnostic::ty(x.span, format!("field `{n}` is given twice")));
                    }
                }
                Ty::Record(out)
            }
            ExprKind::ArrayLit(es) => {
                let elem = self.fresh(span);
                let first = es.first().map(|x| x.span);
                for (i, x) in es.iter().enumerate() {
                    let t = self.expr(x);
                    let reason = match first {
                        Some(f) if i > 0 => Reason::Element { first: f },
                        _ => Reason::None,
                    };
                    self.eq(elem.clone(), t, x.span, reason);
                }
                self.push(
                    Kind::NoFun { ty: elem.clone(), what: "arrays cannot contain functions" },
                    span,
                    Reason::None,
                );
                Ty::array(Dim::Const(es.len() as i64), elem)
            }
            ExprKind::Range { start, second, end, kind } => {
                let t = self.expr(start);
                self.push(
                    Kind::Prim { ty: t.clone(), set: PrimSet::ints() },
                    start.span,
                    Reason::None,
                );
                for x in second.iter().chain(std::iter::once(end)) {
                    let u = self.expr(x);
                    self.eq(t.clone(), u, x.span, Reason::RangeBound { first: start.span });
                }
                let dim = self.range_size(start, second.as_deref(), end, *kind, &t, span);
                Ty::array(dim, t)
            }
            ExprKind::Project(x, field) => {
                let record = self.expr(x);
                let t = self.fresh(span);
                self.push(
                    Kind::Field { record, field: field.clone(), ty: t.clone() },
                    span,
                    Reason::None,
                );
                t
            }
            ExprKind::Index(x, dims) => {
                let arr = self.expr(x);
                let dims = self.index_dims(dims);
                let result = self.fresh(span);
                self.push(Kind::Index { arr, dims, result: result.clone() }, span, Reason::None);
                result
            }
            ExprKind::Apply(..) => self.apply_spine(e),
            ExprKind::BinOp { op, op_span, lhs, rhs } => self.binop(e, op, *op_span, lhs, rhs),
            ExprKind::Neg(x) => {
                let t = self.expr(x);
                self.push(
                    Kind::Prim { ty: t.clone(), set: PrimSet::numeric() },
                    x.span,
                    Reason::Operator { op: "-".into() },
                );
                t
            }
            ExprKind::Not(x) => {
                let t = self.expr(x);
                self.push(
                    Kind::Prim { ty: t.clone(), set: PrimSet::ints_and_bool() },
                    x.span,
                    Reason::Operator { op: "!".into() },
                );
                t
            }
            ExprKind::OpSection(op) => {
                let (l, r, res) = self.op_sig(op, span);
                Ty::arrow(l, Ty::arrow(r, res))
            }
            ExprKind::LeftSection(op, x) => {
                let (l, r, res) = self.op_sig(op, span);
                let t = self.expr(x);
                self.eq(l, t, x.span, Reason::Operator { op: op.clone() });
                Ty::arrow(r, res)
            }
            ExprKind::RightSection(op, x) => {
                let (l, r, res) = self.op_sig(op, span);
                let t = self.expr(x);
                self.eq(r, t, x.span, Reason::Operator { op: op.clone() });
                Ty::arrow(l, res)
            }
            ExprKind::ProjectSection(fields) => {
                let arg = self.fresh(span);
                let mut cur = arg.clone();
                for f in fields {
                    let t = self.fresh(span);
                    self.push(
                        Kind::Field { record: cur, field: f.clone(), ty: t.clone() },
                        span,
                        Reason::None,
                    );
                    cur = t;
                }
                Ty::arrow(arg, cur)
            }
            ExprKind::Lambda { params, ret, body } => {
                let mark = self.locals.len();
                let (tys, names, hidden) = self.params(params, AnySize::Infer);
                let ret = ret.as_ref().map(|te| self.ret_type(te));
                let tb = self.expr(body);
                let rt = self.check_ret(ret, tb, body.span, hidden);
                self.locals.truncate(mark);
                arrows(&tys, &names, rt)
            }
            ExprKind::If(c, a, b) => {
                let tc = self.expr(c);
                self.eq(Ty::bool(), tc, c.span, Reason::Cond);
                let ta = self.expr(a);
                let tb = self.expr(b);
                let result = self.fresh(span);
                self.push(
                    Kind::Join {
                        branches: vec![(ta, a.span), (tb, b.span)],
                        result: result.clone(),
                    },
                    b.span,
                    Reason::Branch { first: a.span, what: "`then` branch" },
                );
                result
            }
            ExprKind::Let { sizes, pat, rhs, body } => {
                let trhs = self.expr(rhs);
                let mark = self.locals.len();
                let mut names: Vec<Name> = Vec::new();
                for (n, nspan) in sizes {
                    if !pat.mentions_size(n) {
                        // Futhark's rule: a size binder names a size of the pattern's type.
                        self.errors.push(
                            Diagnostic::ty(*nspan, format!("size [{n}] unused in pattern"))
                                .with_hint(format!("give the pattern a type that uses it: `let [{n}] (x: [{n}]t) = ...`")),
                        );
                    }
                    self.push_local(Local {
                        id: 0,
                        name: n.clone(),
                        ty: Ty::i64(),
                        kind: LocalKind::Size,
                    });
                    names.push(n.clone());
                }
                let mut bound = Vec::new();
                let tp = self.pat(pat, AnySize::Infer, &mut bound);
                if sizes.is_empty() {
                    self.eq(tp, trhs, rhs.span, pat_reason(pat));
                } else {
                    let binders = sizes.iter().map(|(n, _)| n.clone()).collect();
                    self.push(
                        Kind::BindSizes { pat: tp, rhs: trhs, names: binders },
                        rhs.span,
                        pat_reason(pat),
                    );
                }
                names.extend(bound.iter().map(|(n, _, _)| n.clone()));
                self.bind(bound);
                let tb = self.expr(body);
                self.locals.truncate(mark);
                self.escape(tb, names, span)
            }
            ExprKind::LetFun { name, name_span: _, type_params, params, ret, rhs, body } => {
                let mark = self.locals.len();
                let tmark = self.tparams.len();
                let mut sizes = Vec::new();
                let mut tvars = Vec::new();
                for tp in type_params {
                    match tp {
                        TypeParam::Size { name, .. } => {
                            self.push_local(Local {
                                id: 0,
                                name: name.clone(),
                                ty: Ty::i64(),
                                kind: LocalKind::Size,
                            });
                            sizes.push(name.clone());
                        }
                        TypeParam::Type { name: tname, liftedness, span } => {
                            // Explicit type parameters make a local function polymorphic.
                            let outer = self.store.tvars.len() as TVar;
                            let t = self.store.fresh_rigid(tname, *liftedness, *span);
                            if let Ty::Var(v) = t {
                                tvars.push(v);
                                self.local_rigid.push(LocalTypeParam {
                                    var: v,
                                    outer,
                                    fun: name.clone(),
                                });
                            }
                            self.tparams.push((tname.clone(), t));
                        }
                    }
                }
                self.defining.push(name.clone());
                let (tys, names, hidden) = self.params(params, AnySize::Infer);
                let ret = ret.as_ref().map(|te| self.ret_type(te));
                let tr = self.expr(rhs);
                let rt = self.check_ret(ret, tr, rhs.span, hidden);
                self.defining.pop();
                self.locals.truncate(mark);
                self.tparams.truncate(tmark);
                let ft = arrows(&tys, &names, rt);
                let kind = if sizes.is_empty() && tvars.is_empty() {
                    LocalKind::Value
                } else {
                    LocalKind::Fun(sizes, tvars)
                };
                self.push_local(Local { id: 0, name: name.clone(), ty: ft, kind });
                let tb = self.expr(body);
                self.locals.truncate(mark);
                tb
            }
            ExprKind::LetWith { name, name_span, indices, value, body } => {
                let arr = match self.lookup_local(name) {
                    Some(l) => l.ty.clone(),
                    None => {
                        self.unknown_var(name, *name_span);
                        Ty::Err
                    }
                };
                let dims = self.index_dims(indices);
                let elem = self.fresh(*name_span);
                self.push(
                    Kind::Index { arr: arr.clone(), dims, result: elem.clone() },
                    *name_span,
                    Reason::None,
                );
                let tv = self.expr(value);
                self.update_value(elem, tv, value.span);
                let mark = self.locals.len();
                self.push_local(Local {
                    id: 0,
                    name: name.clone(),
                    ty: arr,
                    kind: LocalKind::Value,
                });
                let tb = self.expr(body);
                self.locals.truncate(mark);
                tb
            }
            ExprKind::Update(x, indices, v) => {
                let arr = self.expr(x);
                let dims = self.index_dims(indices);
                let elem = self.fresh(span);
                self.push(
                    Kind::Index { arr: arr.clone(), dims, result: elem.clone() },
                    x.span,
                    Reason::None,
                );
                let tv = self.expr(v);
                self.update_value(elem, tv, v.span);
                arr
            }
            ExprKind::RecordUpdate(x, fields, v) => {
                let record = self.expr(x);
                let mut cur = record.clone();
                for f in fields {
                    let t = self.fresh(span);
                    self.push(
                        Kind::Field { record: cur, field: f.clone(), ty: t.clone() },
                        x.span,
                        Reason::None,
                    );
                    cur = t;
                }
                let tv = self.expr(v);
                self.eq(cur, tv, v.span, Reason::UpdateValue);
                record
            }
            ExprKind::Loop { pat, init, form, body } => {
                self.loop_expr(span, pat, init.as_deref(), form, body)
            }
            ExprKind::Match(x, cases) => {
                let ts = self.expr(x);
                let mut branches = Vec::new();
                for (p, body) in cases {
                    let mark = self.locals.len();
                    let mut bound = Vec::new();
                    let tp = self.pat(p, AnySize::Infer, &mut bound);
                    self.eq(
                        ts.clone(),
                        tp,
                        p.span,
                        Reason::Branch { first: x.span, what: "matched value" },
                    );
                    let names = bound.iter().map(|(n, _, _)| n.clone()).collect();
                    self.bind(bound);
                    let tb = self.expr(body);
                    self.locals.truncate(mark);
                    let tb = self.escape(tb, names, body.span);
                    branches.push((tb, body.span));
                }
                let result = self.fresh(span);
                let first = cases.first().map_or(span, |(_, b)| b.span);
                self.push(
                    Kind::Join { branches, result: result.clone() },
                    span,
                    Reason::Branch { first, what: "first case" },
                );
                result
            }
            ExprKind::Ascript(x, te) => {
                let t = self.conv_type(te, AnySize::Infer);
                let tx = self.expr(x);
                self.eq(t.clone(), tx, x.span, Reason::Ascription(te.span));
                t
            }
            ExprKind::Coerce(x, te) => {
                let t = self.conv_type(te, AnySize::Existential);
                let inner = self.store.dvars.len() as u32;
                let tx = self.expr(x);
                self.push(
                    Kind::EqShape { expected: t.clone(), found: tx, inner },
                    x.span,
                    Reason::Ascription(te.span),
                );
                t
            }
            ExprKind::Assert(c, x) => {
                let tc = self.expr(c);
                self.eq(Ty::bool(), tc, c.span, Reason::Assert);
                self.expr(x)
            }
            ExprKind::Constr(name, es) => {
                let args = es.iter().map(|x| self.expr(x)).collect();
                let t = self.fresh(span);
                self.push(
                    Kind::Constr { ty: t.clone(), name: name.clone(), args },
                    span,
                    Reason::None,
                );
                t
            }
        }
    }

    fn var(&mut self, name: &str, span: Span) -> Ty {
        if let Some(l) = self.lookup_local(name).cloned() {
            return match l.kind {
                LocalKind::Value | LocalKind::Size => l.ty,
                LocalKind::Fun(sizes, tvars) => {
                    let result = self.fresh(span);
                    self.push(
                        Kind::InstSizes { ty: l.ty, sizes, tvars, result: result.clone() },
                        span,
                        Reason::None,
                    );
                    result
                }
            };
        }
        match self.globals.lookup(name) {
            Some(s) => {
                let t = self.globals.instantiate(&mut self.store, &s, name, span);
                let k = match name {
                    "unflatten" => 2,
                    "unflatten_3d" => 3,
                    "unflatten_4d" => 4,
                    _ => 0,
                };
                if k > 0 && self.globals.is_intrinsic(name) {
                    self.push(Kind::FactorSizes { ty: t.clone(), k }, span, Reason::None);
                }
                t
            }
            None => {
                self.unknown_var(name, span);
                Ty::Err
            }
        }
    }

    fn unknown_var(&mut self, name: &str, span: Span) {
        let mut d = Diagnostic::ty(span, format!("unknown variable `{name}`"));
        if self.defining.iter().any(|n| n == name) {
            d = d.with_label("a function cannot refer to itself").with_hint(
                "recursive functions are not supported in Futhark; use a `loop` instead",
            );
        } else {
            let locals: Vec<&str> = self.locals.iter().map(|l| l.name.as_str()).collect();
            let names = self.globals.names();
            let cands = locals.into_iter().chain(names.iter().map(String::as_str));
            if let Some(h) = did_you_mean(name, cands) {
                d = d.with_hint(h);
            }
        }
        self.errors.push(d);
    }
}

/// `p1 -> p2 -> ... -> ret`, naming the parameters that are plain variables.
pub(crate) fn arrows(params: &[Ty], names: &[Option<Name>], ret: Ty) -> Ty {
    params.iter().zip(names).rev().fold(ret, |to, (from, name)| Ty::Arrow {
        param: name.clone(),
        from: Box::new(from.clone()),
        to: Box::new(to),
    })
}

/// The variable a parameter pattern binds when it is just a variable (possibly annotated).
pub(crate) fn simple_name(p: &Pat) -> Option<Name> {
    match &p.kind {
        PatKind::Var(n) => Some(n.clone()),
        PatKind::Ascribed(q, _) => simple_name(q),
        _ => None,
    }
}

fn pat_reason(p: &Pat) -> Reason {
    match &p.kind {
        PatKind::Ascribed(_, te) => Reason::Ascription(te.span),
        _ => Reason::Pattern,
    }
}

fn var_name(e: &Expr) -> Option<Name> {
    match &e.kind {
        ExprKind::Var(n) => Some(n.clone()),
        _ => None,
    }
}

fn int_literal(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Literal(Literal::Int(v, _)) => Some(*v),
        ExprKind::Neg(x) => int_literal(x).map(|v| -v),
        _ => None,
    }
}
