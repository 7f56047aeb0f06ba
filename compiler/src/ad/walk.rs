//! Visiting every variable occurrence of IR (binders, uses and dims), for renaming copies of
//! bodies (inlining, re-execution in reverse mode) and for collecting types and free variables.

use std::collections::{HashMap, HashSet};

use crate::ir::*;

/// Calls `f(var, is_binder)` on every variable occurrence of `b`, in order.
pub fn body_vars(b: &mut Body, f: &mut impl FnMut(&mut Var, bool)) {
    for s in &mut b.stms {
        exp_vars(&mut s.exp, f);
        for p in &mut s.pat {
            param(p, f);
        }
    }
    b.result.iter_mut().for_each(|a| atom(a, f));
}

fn atom(a: &mut Atom, f: &mut impl FnMut(&mut Var, bool)) {
    if let Atom::Var(v) = a {
        f(v, false);
    }
}

fn ty(t: &mut Type, f: &mut impl FnMut(&mut Var, bool)) {
    if let Type::Array { shape, .. } = t {
        for d in shape {
            if let Dim::Var(v) = d {
                f(v, false);
            }
        }
    }
}

fn dims(ds: &mut [Dim], f: &mut impl FnMut(&mut Var, bool)) {
    for d in ds {
        if let Dim::Var(v) = d {
            f(v, false);
        }
    }
}

fn param(p: &mut Param, f: &mut impl FnMut(&mut Var, bool)) {
    f(&mut p.var, true);
    ty(&mut p.ty, f);
}

pub fn lambda_vars(l: &mut Lambda, f: &mut impl FnMut(&mut Var, bool)) {
    for p in &mut l.params {
        param(p, f);
    }
    body_vars(&mut l.body, f);
    for t in &mut l.ret {
        ty(t, f);
    }
}

fn idx(is: &mut [DimIndex], f: &mut impl FnMut(&mut Var, bool)) {
    for i in is {
        match i {
            DimIndex::Fix(a) => atom(a, f),
            DimIndex::Slice { start, len, stride } => {
                atom(start, f);
                atom(len, f);
                atom(stride, f);
            }
        }
    }
}

pub fn exp_vars(e: &mut Exp, f: &mut impl FnMut(&mut Var, bool)) {
    match e {
        Exp::Atom(a) | Exp::UnOp(_, _, a) | Exp::Convert { arg: a, .. } => atom(a, f),
        Exp::BinOp(_, _, a, b) | Exp::Cmp(_, _, a, b) => {
            atom(a, f);
            atom(b, f);
        }
        Exp::Math(_, _, args) => args.iter_mut().for_each(|a| atom(a, f)),
        Exp::Select(c, a, b) => {
            atom(c, f);
            atom(a, f);
            atom(b, f);
        }
        Exp::Index { arr, idx: is } => {
            f(arr, false);
            idx(is, f);
        }
        Exp::Update { arr, idx: is, value } => {
            f(arr, false);
            idx(is, f);
            atom(value, f);
        }
        Exp::Iota { n, start, step, .. } => {
            atom(n, f);
            atom(start, f);
            atom(step, f);
        }
        Exp::Replicate { shape, value } => {
            dims(shape, f);
            atom(value, f);
        }
        Exp::Rearrange { arr, .. } | Exp::Copy(arr) => f(arr, false),
        Exp::Reshape { arr, shape } => {
            f(arr, false);
            dims(shape, f);
        }
        Exp::Concat { arrs, len, .. } => {
            arrs.iter_mut().for_each(|v| f(v, false));
            dims(std::slice::from_mut(len), f);
        }
        Exp::ArrayLit { elems, elem_ty } => {
            elems.iter_mut().for_each(|a| atom(a, f));
            ty(elem_ty, f);
        }
        Exp::Apply { args, .. } => args.iter_mut().for_each(|a| atom(a, f)),
        Exp::If { cond, then_body, else_body, ret } => {
            atom(cond, f);
            body_vars(then_body, f);
            body_vars(else_body, f);
            ret.iter_mut().for_each(|t| ty(t, f));
        }
        Exp::Loop { params, form, body } => {
            for (_, a) in params.iter_mut() {
                atom(a, f);
            }
            if let LoopForm::For { bound, .. } = form {
                atom(bound, f);
            }
            for (p, _) in params.iter_mut() {
                param(p, f);
            }
            match form {
                LoopForm::For { i, .. } => f(i, true),
                LoopForm::While(c) => f(c, false),
            }
            body_vars(body, f);
        }
        Exp::Map { w, lam, arrs } => {
            atom(w, f);
            arrs.iter_mut().for_each(|v| f(v, false));
            lambda_vars(lam, f);
        }
        Exp::Reduce { w, lam, neutral, arrs, .. } | Exp::Scan { w, lam, neutral, arrs } => {
            atom(w, f);
            neutral.iter_mut().for_each(|a| atom(a, f));
            arrs.iter_mut().for_each(|v| f(v, false));
            lambda_vars(lam, f);
        }
        Exp::Scatter { dest, idx: is, vals, w } => {
            f(dest, false);
            is.iter_mut().for_each(|v| f(v, false));
            f(vals, false);
            atom(w, f);
        }
        Exp::Hist { dest, lam, neutral, is, vs, w } => {
            dest.iter_mut().for_each(|v| f(v, false));
            neutral.iter_mut().for_each(|a| atom(a, f));
            f(is, false);
            vs.iter_mut().for_each(|v| f(v, false));
            atom(w, f);
            lambda_vars(lam, f);
        }
        Exp::Assert { cond, vals, .. } => {
            atom(cond, f);
            vals.iter_mut().for_each(|a| atom(a, f));
        }
        Exp::Ad { lam, args, seeds, .. } => {
            args.iter_mut().chain(seeds.iter_mut()).for_each(|a| atom(a, f));
            lambda_vars(lam, f);
        }
    }
}

/// The variables used in `b` but bound outside it.
pub fn free_in_body(b: &Body) -> Vec<Var> {
    let mut b = b.clone();
    let mut bound = HashSet::new();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // Binders are visited before the uses they scope over except for a statement's own
    // pattern, which nothing inside the statement can use: collect binders first.
    body_vars(&mut b, &mut |v, binder| {
        if binder {
            bound.insert(*v);
        }
    });
    body_vars(&mut b, &mut |v, binder| {
        if !binder && !bound.contains(v) && seen.insert(*v) {
            out.push(*v);
        }
    });
    out
}

/// Every variable bound in `b` with its type.
pub fn binder_types(e: &Exp, out: &mut HashMap<Var, Type>) {
    match e {
        Exp::If { then_body, else_body, .. } => {
            body_types(then_body, out);
            body_types(else_body, out);
        }
        Exp::Loop { params, form, body } => {
            for (p, _) in params {
                out.insert(p.var, p.ty.clone());
            }
            if let LoopForm::For { i, it, .. } = form {
                out.insert(*i, Type::Prim(crate::prim::PrimType::Int(*it)));
            }
            body_types(body, out);
        }
        Exp::Map { lam, .. }
        | Exp::Reduce { lam, .. }
        | Exp::Scan { lam, .. }
        | Exp::Hist { lam, .. }
        | Exp::Ad { lam, .. } => {
            for p in &lam.params {
                out.insert(p.var, p.ty.clone());
            }
            body_types(&lam.body, out);
        }
        _ => {}
    }
}

pub fn body_types(b: &Body, out: &mut HashMap<Var, Type>) {
    for s in &b.stms {
        for p in &s.pat {
            out.insert(p.var, p.ty.clone());
        }
        binder_types(&s.exp, out);
    }
}
