//! Last uses of variables, computed once before a run, so the evaluator can *move* a value that
//! dies at a statement into an update, a call or a loop (making in-place updates possible: the
//! buffer is not shared any more) and free temporaries as soon as they are dead.
//!
//! A body is analysed backwards from the variables live after it. A variable may be moved or
//! dropped only inside the *region* that binds it: the function, loop body or lambda, including
//! the branches of `if`s, but not loops or lambdas nested inside, which may run it again.

use std::collections::HashSet;

use crate::diag::{Diagnostic, Span};
use crate::ir::{self, Atom, Body, Dim, DimIndex, Exp, Lambda, LoopForm, Type, Var};

/// What the evaluator needs to know about one statement.
#[derive(Debug, Default)]
pub(crate) struct StmAnn {
    /// Operands that die here and occur once in the statement: a consuming position (an updated
    /// array, a call argument, a loop initialiser, a scatter destination) may take them.
    pub moves: Vec<Var>,
    /// Variables dead after the statement (operands used for the last time, unused results).
    pub drops: Vec<Var>,
    /// The annotations of the nested bodies, in order: `then`/`else`, a loop body, a lambda.
    pub subs: Vec<BodyAnn>,
}

#[derive(Debug, Default)]
pub(crate) struct BodyAnn {
    pub stms: Vec<StmAnn>,
    /// Per result: a variable of this region that is dead afterwards, so it can be moved out.
    pub owned: Vec<bool>,
}

pub(crate) struct Analysis {
    /// One per function of the program.
    pub funs: Vec<BodyAnn>,
    /// The largest variable number that occurs (the environment's size).
    pub max_var: usize,
}

type Set = HashSet<Var>;

/// Analyse every function. Fails only when bodies nest deeper than `max_depth`.
pub(crate) fn analyse(prog: &ir::Program, max_depth: usize) -> Result<Analysis, Diagnostic> {
    let mut cx = Cx { max_var: prog.names.len(), max_depth };
    let mut funs = Vec::with_capacity(prog.funs.len());
    for f in &prog.funs {
        let mut region: Set = f.params.iter().map(|p| p.var).collect();
        let mut live_out = Set::new();
        for p in &f.params {
            cx.note(p.var);
        }
        for t in &f.ret {
            type_vars(t, &mut |v| {
                live_out.insert(v);
            });
        }
        let (ann, _) = cx.body(&f.body, &live_out, &mut region, 0, f.span)?;
        funs.push(ann);
    }
    Ok(Analysis { funs, max_var: cx.max_var })
}

fn type_vars(t: &Type, f: &mut impl FnMut(Var)) {
    if let Type::Array { shape, .. } = t {
        for d in shape {
            if let Dim::Var(v) = d {
                f(*v);
            }
        }
    }
}

struct Cx {
    max_var: usize,
    max_depth: usize,
}

impl Cx {
    fn note(&mut self, v: Var) {
        self.max_var = self.max_var.max(v.0 as usize + 1);
    }

    /// Analyse `b`, followed by uses of `live_out`; `region` gets `b`'s bindings. Returns the
    /// annotation and the variables live on entry (free in `b` or live after it).
    fn body(
        &mut self,
        b: &Body,
        live_out: &Set,
        region: &mut Set,
        depth: usize,
        span: Span,
    ) -> Result<(BodyAnn, Set), Diagnostic> {
        if depth > self.max_depth {
            return Err(Diagnostic::runtime(
                span,
                format!("unsupported: code nested more than {} levels deep", self.max_depth),
            ));
        }
        for stm in &b.stms {
            for p in &stm.pat {
                region.insert(p.var);
                self.note(p.var);
            }
        }
        let mut live = live_out.clone();
        let mut owned = vec![false; b.result.len()];
        for (k, a) in b.result.iter().enumerate().rev() {
            if let Atom::Var(v) = a {
                self.note(*v);
                owned[k] = region.contains(v) && !live.contains(v);
                live.insert(*v);
            }
        }
        let mut anns = Vec::with_capacity(b.stms.len());
        for stm in b.stms.iter().rev() {
            let mut uses = Vec::new();
            for p in &stm.pat {
                type_vars(&p.ty, &mut |v| uses.push(v));
            }
            // The pattern is checked after the expression: its sizes outlive any branch.
            let mut after = live.clone();
            after.extend(uses.iter().copied());
            let subs = self.exp(&stm.exp, &after, region, &mut uses, depth, stm.span)?;
            let defs: Set = stm.pat.iter().map(|p| p.var).collect();
            let mut ann = StmAnn { subs, ..StmAnn::default() };
            let mut seen = Set::new();
            for &v in &uses {
                self.note(v);
                if !live.contains(&v) && region.contains(&v) && seen.insert(v) {
                    ann.drops.push(v);
                    if !defs.contains(&v) && uses.iter().filter(|&&u| u == v).count() == 1 {
                        ann.moves.push(v);
                    }
                }
            }
            for &v in &defs {
                if !live.contains(&v) && seen.insert(v) {
                    ann.drops.push(v);
                }
                live.remove(&v);
            }
            live.extend(uses.into_iter().filter(|v| !defs.contains(v)));
            anns.push(ann);
        }
        anns.reverse();
        Ok((BodyAnn { stms: anns, owned }, live))
    }

    /// A nested body in a region of its own (a loop body or a lambda) binding `params`.
    fn region(
        &mut self,
        b: &Body,
        params: &[Var],
        live_out: Set,
        uses: &mut Vec<Var>,
        depth: usize,
        span: Span,
    ) -> Result<BodyAnn, Diagnostic> {
        let mut region: Set = params.iter().copied().collect();
        for &p in params {
            self.note(p);
        }
        let (ann, live_in) = self.body(b, &live_out, &mut region, depth + 1, span)?;
        uses.extend(live_in.into_iter().filter(|v| !params.contains(v)));
        Ok(ann)
    }

    fn lambda(
        &mut self,
        lam: &Lambda,
        uses: &mut Vec<Var>,
        depth: usize,
        span: Span,
    ) -> Result<BodyAnn, Diagnostic> {
        let params: Vec<Var> = lam.params.iter().map(|p| p.var).collect();
        let mut live_out = Set::new();
        for t in lam.ret.iter().chain(lam.params.iter().map(|p| &p.ty)) {
            type_vars(t, &mut |v| {
                live_out.insert(v);
            });
        }
        for p in &lam.params {
            type_vars(&p.ty, &mut |v| {
                if !params.contains(&v) {
                    uses.push(v)
                }
            });
        }
        self.region(&lam.body, &params, live_out, uses, depth, span)
    }

    /// Record the variables `e` uses in `uses` (with repetitions) and analyse its bodies.
    fn exp(
        &mut self,
        e: &Exp,
        live_after: &Set,
        region: &mut Set,
        uses: &mut Vec<Var>,
        depth: usize,
        span: Span,
    ) -> Result<Vec<BodyAnn>, Diagnostic> {
        fn atom(a: &Atom, uses: &mut Vec<Var>) {
            if let Atom::Var(v) = a {
                uses.push(*v);
            }
        }
        fn dim(d: &Dim, uses: &mut Vec<Var>) {
            if let Dim::Var(v) = d {
                uses.push(*v);
            }
        }
        fn index(idx: &[DimIndex], uses: &mut Vec<Var>) {
            for ix in idx {
                match ix {
                    DimIndex::Fix(a) => atom(a, uses),
                    DimIndex::Slice { start, len, stride } => {
                        atom(start, uses);
                        atom(len, uses);
                        atom(stride, uses);
                    }
                }
            }
        }
        let mut subs = Vec::new();
        match e {
            Exp::Atom(a) | Exp::UnOp(_, _, a) | Exp::Convert { arg: a, .. } => atom(a, uses),
            Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => {
                atom(a, uses);
                atom(b, uses);
            }
            Exp::Math(_, _, args) | Exp::Apply { args, .. } => {
                args.iter().for_each(|a| atom(a, uses));
            }
            Exp::Select(c, a, b) => {
                atom(c, uses);
                atom(a, uses);
                atom(b, uses);
            }
            Exp::Index { arr, idx } => {
                uses.push(*arr);
                index(idx, uses);
            }
            Exp::Update { arr, idx, value } => {
                uses.push(*arr);
                index(idx, uses);
                atom(value, uses);
            }
            Exp::Iota { n, start, step, .. } => {
                atom(n, uses);
                atom(start, uses);
                atom(step, uses);
            }
            Exp::Replicate { shape, value } => {
                shape.iter().for_each(|d| dim(d, uses));
                atom(value, uses);
            }
            Exp::Rearrange { arr, .. } | Exp::Copy(arr) => uses.push(*arr),
            Exp::Reshape { arr, shape } => {
                uses.push(*arr);
                shape.iter().for_each(|d| dim(d, uses));
            }
            Exp::Concat { arrs, len, .. } => {
                uses.extend(arrs);
                dim(len, uses);
            }
            Exp::ArrayLit { elems, elem_ty } => {
                elems.iter().for_each(|a| atom(a, uses));
                type_vars(elem_ty, &mut |v| uses.push(v));
            }
            Exp::If { cond, then_body, else_body, ret } => {
                atom(cond, uses);
                let mut out = live_after.clone();
                for t in ret {
                    type_vars(t, &mut |v| {
                        out.insert(v);
                    });
                }
                for b in [then_body, else_body] {
                    let (ann, live_in) = self.body(b, &out, region, depth + 1, span)?;
                    // Variables merely live through the branch are live after the `if` too.
                    uses.extend(live_in.into_iter().filter(|v| !live_after.contains(v)));
                    subs.push(ann);
                }
            }
            Exp::Loop { params, form, body } => {
                let mut vars: Vec<Var> = params.iter().map(|(p, _)| p.var).collect();
                for (p, init) in params {
                    atom(init, uses);
                    type_vars(&p.ty, &mut |v| {
                        if !vars.contains(&v) {
                            uses.push(v)
                        }
                    });
                }
                match form {
                    LoopForm::For { i, bound, .. } => {
                        atom(bound, uses);
                        vars.push(*i);
                    }
                    LoopForm::While(_) => {}
                }
                subs.push(self.region(body, &vars, Set::new(), uses, depth, span)?);
            }
            Exp::Map { w, lam, arrs } => {
                atom(w, uses);
                uses.extend(arrs);
                subs.push(self.lambda(lam, uses, depth, span)?);
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
                atom(w, uses);
                neutral.iter().for_each(|a| atom(a, uses));
                uses.extend(arrs);
                subs.push(self.lambda(lam, uses, depth, span)?);
            }
            Exp::Scatter { dest, idx, vals, w } => {
                uses.push(*dest);
                uses.extend(idx);
                uses.push(*vals);
                atom(w, uses);
            }
            Exp::Hist { dest, lam, neutral, is, vs, w } => {
                uses.extend(dest);
                neutral.iter().for_each(|a| atom(a, uses));
                uses.push(*is);
                uses.extend(vs);
                atom(w, uses);
                subs.push(self.lambda(lam, uses, depth, span)?);
            }
            Exp::Assert { cond, vals, .. } => {
                atom(cond, uses);
                vals.iter().for_each(|a| atom(a, uses));
            }
            Exp::Ad { lam, args, seeds, .. } => {
                args.iter().chain(seeds).for_each(|a| atom(a, uses));
                subs.push(self.lambda(lam, uses, depth, span)?);
            }
        }
        Ok(subs)
    }
}
