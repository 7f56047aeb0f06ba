//! IR rewriting that lowering needs after the fact: substituting variables (loop sizes that
//! turn out invariant), hoisting the statements that compute a lambda's result sizes out of
//! the lambda (so `map (\x -> replicate (n+1) x) xs` has the regular type `[w][n+1]`), and
//! removing the dead scalar code that size and bounds computations leave behind.

use std::collections::{HashMap, HashSet};

use crate::ir::*;
use crate::prim::PrimValue;

/// A substitution of variables by atoms, applied to every use (atoms, dims, array operands).
pub struct Subst<'s>(pub &'s HashMap<Var, Atom>);

impl Subst<'_> {
    fn atom(&self, a: &mut Atom) {
        if let Atom::Var(v) = a {
            if let Some(x) = self.0.get(v) {
                *a = *x;
            }
        }
    }

    fn var(&self, v: &mut Var) {
        if let Some(Atom::Var(w)) = self.0.get(v) {
            *v = *w;
        }
    }

    fn dim(&self, d: &mut Dim) {
        if let Dim::Var(v) = d {
            match self.0.get(v) {
                Some(Atom::Var(w)) => *d = Dim::Var(*w),
                Some(Atom::Const(PrimValue::I64(c))) => *d = Dim::Const(*c),
                _ => {}
            }
        }
    }

    pub fn ty(&self, t: &mut Type) {
        if let Type::Array { shape, .. } = t {
            shape.iter_mut().for_each(|d| self.dim(d));
        }
    }

    fn param(&self, p: &mut Param) {
        self.ty(&mut p.ty);
    }

    pub fn body(&self, b: &mut Body) {
        for s in &mut b.stms {
            s.pat.iter_mut().for_each(|p| self.param(p));
            self.exp(&mut s.exp);
        }
        b.result.iter_mut().for_each(|a| self.atom(a));
    }

    fn lambda(&self, l: &mut Lambda) {
        l.params.iter_mut().for_each(|p| self.param(p));
        self.body(&mut l.body);
        l.ret.iter_mut().for_each(|t| self.ty(t));
    }

    fn idx(&self, i: &mut DimIndex) {
        match i {
            DimIndex::Fix(a) => self.atom(a),
            DimIndex::Slice { start, len, stride } => {
                self.atom(start);
                self.atom(len);
                self.atom(stride);
            }
        }
    }

    fn exp(&self, e: &mut Exp) {
        match e {
            Exp::Atom(a) | Exp::UnOp(_, _, a) => self.atom(a),
            Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => {
                self.atom(a);
                self.atom(b);
            }
            Exp::Convert { arg, .. } => self.atom(arg),
            Exp::Math(_, _, args) => args.iter_mut().for_each(|a| self.atom(a)),
            Exp::Select(c, a, b) => {
                self.atom(c);
                self.atom(a);
                self.atom(b);
            }
            Exp::Index { arr, idx } => {
                self.var(arr);
                idx.iter_mut().for_each(|i| self.idx(i));
            }
            Exp::Update { arr, idx, value } => {
                self.var(arr);
                idx.iter_mut().for_each(|i| self.idx(i));
                self.atom(value);
            }
            Exp::Iota { n, start, step, .. } => {
                self.atom(n);
                self.atom(start);
                self.atom(step);
            }
            Exp::Replicate { shape, value } => {
                shape.iter_mut().for_each(|d| self.dim(d));
                self.atom(value);
            }
            Exp::Rearrange { arr, .. } => self.var(arr),
            Exp::Reshape { arr, shape } => {
                self.var(arr);
                shape.iter_mut().for_each(|d| self.dim(d));
            }
            Exp::Concat { arrs, len, .. } => {
                arrs.iter_mut().for_each(|v| self.var(v));
                self.dim(len);
            }
            Exp::ArrayLit { elems, elem_ty } => {
                elems.iter_mut().for_each(|a| self.atom(a));
                self.ty(elem_ty);
            }
            Exp::Copy(v) => self.var(v),
            Exp::Apply { args, .. } => args.iter_mut().for_each(|a| self.atom(a)),
            Exp::If { cond, then_body, else_body, ret } => {
                self.atom(cond);
                self.body(then_body);
                self.body(else_body);
                ret.iter_mut().for_each(|t| self.ty(t));
            }
            Exp::Loop { params, form, body } => {
                for (p, a) in params.iter_mut() {
                    self.param(p);
                    self.atom(a);
                }
                if let LoopForm::For { bound, .. } = form {
                    self.atom(bound);
                }
                self.body(body);
            }
            Exp::Map { w, lam, arrs } => {
                self.atom(w);
                self.lambda(lam);
                arrs.iter_mut().for_each(|v| self.var(v));
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
                self.atom(w);
                self.lambda(lam);
                neutral.iter_mut().for_each(|a| self.atom(a));
                arrs.iter_mut().for_each(|v| self.var(v));
            }
            Exp::Scatter { dest, idx, vals, w } => {
                self.var(dest);
                idx.iter_mut().for_each(|v| self.var(v));
                self.var(vals);
                self.atom(w);
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                dest.iter_mut().for_each(|v| self.var(v));
                self.lambda(lam);
                neutral.iter_mut().for_each(|a| self.atom(a));
                self.var(is);
                vs.iter_mut().for_each(|v| self.var(v));
                self.atom(w);
            }
            Exp::Assert { cond, vals, .. } => {
                self.atom(cond);
                vals.iter_mut().for_each(|a| self.atom(a));
            }
            Exp::Ad { lam, args, seeds, .. } => {
                self.lambda(lam);
                args.iter_mut().chain(seeds.iter_mut()).for_each(|a| self.atom(a));
            }
        }
    }
}

/// `t` with its dims' variables replaced.
pub fn subst_type_dims(t: &Type, s: &HashMap<Var, Dim>) -> Type {
    match t {
        Type::Prim(p) => Type::Prim(*p),
        Type::Array { elem, shape } => Type::Array {
            elem: *elem,
            shape: shape
                .iter()
                .map(|d| match d {
                    Dim::Var(v) => s.get(v).copied().unwrap_or(*d),
                    Dim::Const(_) => *d,
                })
                .collect(),
        },
    }
}

/// Every variable a statement mentions (uses, dims, and variables bound inside its bodies).
pub fn mentioned(s: &Stm) -> HashSet<Var> {
    let mut out = HashSet::new();
    walk_vars_exp(&s.exp, &mut |v| {
        out.insert(v);
    });
    for p in &s.pat {
        if let Type::Array { shape, .. } = &p.ty {
            for d in shape {
                if let Dim::Var(v) = d {
                    out.insert(*v);
                }
            }
        }
    }
    out
}

/// Calls `f` on each body directly inside `e`.
pub fn for_each_body(e: &Exp, f: &mut impl FnMut(&Body)) {
    match e {
        Exp::If { then_body, else_body, .. } => {
            f(then_body);
            f(else_body);
        }
        Exp::Loop { body, .. } => f(body),
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. }
        | Exp::Ad { lam, .. } => f(&lam.body),
        _ => {}
    }
}

/// `for_each_body`, for rewriting the bodies in place.
pub fn for_each_body_mut(e: &mut Exp, f: &mut impl FnMut(&mut Body)) {
    match e {
        Exp::If { then_body, else_body, .. } => {
            f(then_body);
            f(else_body);
        }
        Exp::Loop { body, .. } => f(body),
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. }
        | Exp::Ad { lam, .. } => f(&mut lam.body),
        _ => {}
    }
}

/// Visit every variable occurrence of an expression (uses, bindings in nested bodies, dims).
pub fn walk_vars_exp(e: &Exp, f: &mut impl FnMut(Var)) {
    let atom = |a: &Atom, f: &mut dyn FnMut(Var)| {
        if let Atom::Var(v) = a {
            f(*v);
        }
    };
    let ty = |t: &Type, f: &mut dyn FnMut(Var)| {
        if let Type::Array { shape, .. } = t {
            for d in shape {
                if let Dim::Var(v) = d {
                    f(*v);
                }
            }
        }
    };
    fn body(b: &Body, f: &mut dyn FnMut(Var)) {
        for s in &b.stms {
            for p in &s.pat {
                f(p.var);
                if let Type::Array { shape, .. } = &p.ty {
                    for d in shape {
                        if let Dim::Var(v) = d {
                            f(*v);
                        }
                    }
                }
            }
            walk_vars_exp(&s.exp, &mut |v| f(v));
        }
        for a in &b.result {
            if let Atom::Var(v) = a {
                f(*v);
            }
        }
    }
    fn lambda(l: &Lambda, f: &mut dyn FnMut(Var)) {
        for p in &l.params {
            f(p.var);
        }
        body(&l.body, f);
        for t in &l.ret {
            if let Type::Array { shape, .. } = t {
                for d in shape {
                    if let Dim::Var(v) = d {
                        f(*v);
                    }
                }
            }
        }
    }
    let idx = |i: &DimIndex, f: &mut dyn FnMut(Var)| match i {
        DimIndex::Fix(a) => atom(a, f),
        DimIndex::Slice { start, len, stride } => {
            atom(start, f);
            atom(len, f);
            atom(stride, f);
        }
    };
    let dim = |d: &Dim, f: &mut dyn FnMut(Var)| {
        if let Dim::Var(v) = d {
            f(*v);
        }
    };
    match e {
        Exp::Atom(a) | Exp::UnOp(_, _, a) => atom(a, f),
        Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => {
            atom(a, f);
            atom(b, f);
        }
        Exp::Convert { arg, .. } => atom(arg, f),
        Exp::Math(_, _, args) => args.iter().for_each(|a| atom(a, f)),
        Exp::Select(c, a, b) => {
            atom(c, f);
            atom(a, f);
            atom(b, f);
        }
        Exp::Index { arr, idx: is } => {
            f(*arr);
            is.iter().for_each(|i| idx(i, f));
        }
        Exp::Update { arr, idx: is, value } => {
            f(*arr);
            is.iter().for_each(|i| idx(i, f));
            atom(value, f);
        }
        Exp::Iota { n, start, step, .. } => {
            atom(n, f);
            atom(start, f);
            atom(step, f);
        }
        Exp::Replicate { shape, value } => {
            shape.iter().for_each(|d| dim(d, f));
            atom(value, f);
        }
        Exp::Rearrange { arr, .. } | Exp::Copy(arr) => f(*arr),
        Exp::Reshape { arr, shape } => {
            f(*arr);
            shape.iter().for_each(|d| dim(d, f));
        }
        Exp::Concat { arrs, len, .. } => {
            arrs.iter().for_each(|v| f(*v));
            dim(len, f);
        }
        Exp::ArrayLit { elems, elem_ty } => {
            elems.iter().for_each(|a| atom(a, f));
            ty(elem_ty, f);
        }
        Exp::Apply { args, .. } => args.iter().for_each(|a| atom(a, f)),
        Exp::If { cond, then_body, else_body, ret } => {
            atom(cond, f);
            body(then_body, f);
            body(else_body, f);
            ret.iter().for_each(|t| ty(t, f));
        }
        Exp::Loop { params, form, body: b } => {
            for (p, a) in params {
                f(p.var);
                ty(&p.ty, f);
                atom(a, f);
            }
            match form {
                LoopForm::For { i, bound, .. } => {
                    f(*i);
                    atom(bound, f);
                }
                LoopForm::While(c) => f(*c),
            }
            body(b, f);
        }
        Exp::Map { w, lam, arrs } => {
            atom(w, f);
            lambda(lam, f);
            arrs.iter().for_each(|v| f(*v));
        }
        Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
            atom(w, f);
            lambda(lam, f);
            neutral.iter().for_each(|a| atom(a, f));
            arrs.iter().for_each(|v| f(*v));
        }
        Exp::Scatter { dest, idx: is, vals, w } => {
            f(*dest);
            is.iter().for_each(|v| f(*v));
            f(*vals);
            atom(w, f);
        }
        Exp::Hist { dest, lam, neutral, is, vs, w } => {
            dest.iter().for_each(|v| f(*v));
            lambda(lam, f);
            neutral.iter().for_each(|a| atom(a, f));
            f(*is);
            vs.iter().for_each(|v| f(*v));
            atom(w, f);
        }
        Exp::Assert { cond, vals, .. } => {
            atom(cond, f);
            vals.iter().for_each(|a| atom(a, f));
        }
        Exp::Ad { lam, args, seeds, .. } => {
            lambda(lam, f);
            args.iter().chain(seeds).for_each(|a| atom(a, f));
        }
    }
}

/// Move out of `body` (a lambda body with parameters `params`) the statements that compute the
/// variables `needed`, and those they depend on. Fails with the first needed variable that
/// depends on the parameters (or on a statement that cannot move).
pub fn hoist(body: &mut Body, params: &[Param], needed: &[Var]) -> Result<Vec<Stm>, Var> {
    let param_vars: HashSet<Var> = params.iter().map(|p| p.var).collect();
    // Which top-level statement binds each variable.
    let mut binder: HashMap<Var, usize> = HashMap::new();
    for (i, s) in body.stms.iter().enumerate() {
        for p in &s.pat {
            binder.insert(p.var, i);
        }
    }
    let mut take: HashSet<usize> = HashSet::new();
    let mut todo: Vec<Var> = needed.to_vec();
    while let Some(v) = todo.pop() {
        if param_vars.contains(&v) {
            return Err(v);
        }
        let Some(&i) = binder.get(&v) else { continue };
        if !take.insert(i) {
            continue;
        }
        let s = &body.stms[i];
        if matches!(s.exp, Exp::Update { .. } | Exp::Scatter { .. } | Exp::Hist { .. }) {
            return Err(v);
        }
        for u in mentioned(s) {
            if param_vars.contains(&u) {
                return Err(v);
            }
            if binder.contains_key(&u) && !s.pat.iter().any(|p| p.var == u) {
                todo.push(u);
            }
        }
    }
    let mut out = Vec::new();
    let mut keep = Vec::new();
    for (i, s) in std::mem::take(&mut body.stms).into_iter().enumerate() {
        if take.contains(&i) {
            out.push(s);
        } else {
            keep.push(s);
        }
    }
    body.stms = keep;
    Ok(out)
}

/// Whether evaluating `e` may fail (or not terminate), so that it must stay even when its
/// results are unused.
fn may_fail(e: &Exp) -> bool {
    let body = |b: &Body| b.stms.iter().any(|s| may_fail(&s.exp));
    match e {
        Exp::Assert { .. }
        | Exp::Apply { .. }
        | Exp::Index { .. }
        | Exp::Update { .. }
        | Exp::Ad { .. } => true,
        Exp::Reshape { .. } => true,
        Exp::BinOp(op, t, _, _) => {
            matches!(t, crate::prim::PrimType::Int(_))
                && matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem | BinOp::Pow)
        }
        Exp::Loop { form: LoopForm::While(_), .. } => true,
        Exp::Loop { body: b, .. } => body(b),
        Exp::If { then_body, else_body, .. } => body(then_body) || body(else_body),
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. } => body(&lam.body),
        _ => false,
    }
}

/// Remove statements whose results are unused and that cannot fail, in `body` and every body
/// nested in it.
pub fn dce(body: &mut Body) {
    let mut used: HashSet<Var> = HashSet::new();
    for a in &body.result {
        if let Atom::Var(v) = a {
            used.insert(*v);
        }
    }
    let mut kept = Vec::new();
    for mut s in std::mem::take(&mut body.stms).into_iter().rev() {
        // A statement without results lives only for what may fail in it: the `map`s and
        // `if`s whose failing parts have moved out leave nothing to run.
        let live = s.pat.iter().any(|p| used.contains(&p.var));
        if !live && !may_fail(&s.exp) {
            continue;
        }
        if live {
            prune_results(&mut s, &used);
        } else {
            forget_results(&mut s);
        }
        dce_exp(&mut s.exp);
        used.extend(mentioned(&s));
        kept.push(s);
    }
    kept.reverse();
    body.stms = kept;
}

/// The results of a live `if` or `map` that nothing reads are not computed (reverse mode
/// re-executes branches and maps for some of their values). A result that sizes another of the
/// statement's results stays.
fn prune_results(s: &mut Stm, used: &HashSet<Var>) {
    if !matches!(s.exp, Exp::If { .. } | Exp::Map { .. }) {
        return;
    }
    let mut sizes = HashSet::new();
    for p in &s.pat {
        if let Type::Array { shape, .. } = &p.ty {
            sizes.extend(shape.iter().filter_map(|d| match d {
                Dim::Var(v) => Some(*v),
                Dim::Const(_) => None,
            }));
        }
    }
    let keep: Vec<bool> =
        s.pat.iter().map(|p| used.contains(&p.var) || sizes.contains(&p.var)).collect();
    if keep.iter().all(|k| *k) {
        return;
    }
    fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
        let mut k = keep.iter();
        v.retain(|_| k.next().copied().unwrap_or(true));
    }
    match &mut s.exp {
        Exp::If { then_body, else_body, ret, .. } => {
            if ret.len() != keep.len() {
                return;
            }
            retain(ret, &keep);
            retain(&mut then_body.result, &keep);
            retain(&mut else_body.result, &keep);
        }
        Exp::Map { lam, .. } => {
            if lam.ret.len() != keep.len() {
                return;
            }
            retain(&mut lam.ret, &keep);
            retain(&mut lam.body.result, &keep);
        }
        _ => return,
    }
    retain(&mut s.pat, &keep);
}

/// A dead `if` or `map` kept for what may fail inside it returns nothing, so that only what
/// may fail stays in its body (reverse mode re-executes whole branches whose values go unused).
fn forget_results(s: &mut Stm) {
    match &mut s.exp {
        Exp::If { then_body, else_body, ret, .. } => {
            s.pat.clear();
            ret.clear();
            then_body.result.clear();
            else_body.result.clear();
        }
        // Likewise a dead map (reverse mode re-runs the primal's): no array is built.
        Exp::Map { lam, .. } => {
            s.pat.clear();
            lam.ret.clear();
            lam.body.result.clear();
        }
        _ => {}
    }
}

fn dce_exp(e: &mut Exp) {
    match e {
        Exp::If { then_body, else_body, .. } => {
            dce(then_body);
            dce(else_body);
        }
        Exp::Loop { body, .. } => dce(body),
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. } => dce(&mut lam.body),
        _ => {}
    }
}
