//! Automatic differentiation on the core IR: removes every [`Exp::Ad`] (what lowering emits for
//! `jvp`, `vjp`, `jvp2`, `vjp2`) by derivative code made of ordinary IR.
//!
//! * Calls inside a differentiated lambda are inlined first (there is no recursion), so the
//!   rules only see SOACs, loops, `if` and scalar/array primitives.
//! * Nested uses are expanded innermost first: the lambda of an outer `jvp`/`vjp` is already
//!   plain IR when the outer transformation runs (no perturbation confusion: lambdas are not
//!   values).
//! * Forward mode (`fwd`) pairs every float variable with a tangent (dual numbers); reverse mode
//!   (`rev`) follows Futhark's redundant-execution strategy (see docs/ARCHITECTURE.md).
//! * Integer and boolean values have no tangents or adjoints: their derivatives are zero.
//!
//! Afterwards `crate::opt::simplify` removes dead code, so the result is ordinary core IR.

mod build;
mod deriv;
mod fwd;
pub mod gradcheck;
mod hist_general;
mod rev;
mod soac_rev;
pub mod walk;
pub mod wrap;

use std::collections::HashMap;

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::*;

pub use build::Ad;

/// Replace every `jvp`/`vjp` of `prog` by derivative code and simplify the result. A program
/// without any is returned unchanged.
pub fn differentiate(prog: &Program) -> Result<Program, Diagnostic> {
    if !prog.funs.iter().any(|f| body_has_ad(&f.body)) {
        return Ok(prog.clone());
    }
    let mut out = prog.clone();
    let mut types = HashMap::new();
    for f in &prog.funs {
        for p in &f.params {
            types.insert(p.var, p.ty.clone());
        }
        walk::body_types(&f.body, &mut types);
    }
    let mut ad = Ad::new(std::mem::take(&mut out.names), types);
    let mut done = vec![false; out.funs.len()];
    for i in 0..out.funs.len() {
        process_fun(&mut ad, &mut out.funs, &mut done, i, 0)?;
    }
    out.names = ad.names;
    crate::opt::simplify(&mut out);
    Ok(out)
}

fn process_fun(
    ad: &mut Ad,
    funs: &mut [FunDef],
    done: &mut [bool],
    i: usize,
    depth: usize,
) -> Result<(), Diagnostic> {
    if done.get(i).copied().unwrap_or(true) {
        return Ok(());
    }
    if depth > 500 {
        return Err(Diagnostic::new(
            Phase::Lower,
            Span::DUMMY,
            "unsupported: calls nested too deep",
        ));
    }
    let mut callees = Vec::new();
    collect_calls(&funs[i].body, &mut callees);
    for c in callees {
        process_fun(ad, funs, done, c, depth + 1)?;
    }
    if body_has_ad(&funs[i].body) {
        let body = std::mem::take(&mut funs[i].body);
        funs[i].body = ad.expand_body(body, funs)?;
    }
    done[i] = true;
    Ok(())
}

fn collect_calls(b: &Body, out: &mut Vec<usize>) {
    for s in &b.stms {
        if let Exp::Apply { fun, .. } = &s.exp {
            out.push(*fun);
        }
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| collect_calls(b, out));
    }
}

fn body_has_ad(b: &Body) -> bool {
    b.stms.iter().any(|s| {
        let mut found = matches!(s.exp, Exp::Ad { .. });
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| found |= body_has_ad(b));
        found
    })
}

pub(crate) fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("unsupported: {what}"))
}

pub(crate) fn internal(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("internal error in differentiation: {what}"))
}

pub(crate) type R<T> = Result<T, Diagnostic>;

#[cfg(test)]
mod tests;

/// `prog` with only the entry point `entry` and the functions it calls (for `show ad -e`).
pub fn restrict_to_entry(prog: &Program, entry: &str) -> Option<Program> {
    let e = prog.entry(entry)?;
    let mut keep = vec![false; prog.funs.len()];
    let mut todo = vec![e.fun];
    while let Some(f) = todo.pop() {
        if keep.get(f).copied().unwrap_or(true) {
            continue;
        }
        keep[f] = true;
        let mut calls = Vec::new();
        collect_calls(&prog.funs[f].body, &mut calls);
        todo.extend(calls);
    }
    let mut new_index = vec![usize::MAX; prog.funs.len()];
    let mut funs = Vec::new();
    for (i, f) in prog.funs.iter().enumerate() {
        if keep[i] {
            new_index[i] = funs.len();
            funs.push(f.clone());
        }
    }
    for f in &mut funs {
        renumber_calls(&mut f.body, &new_index);
    }
    let mut ep = e.clone();
    ep.fun = new_index[e.fun];
    Some(Program { funs, entries: vec![ep], names: prog.names.clone() })
}

fn renumber_calls(b: &mut Body, new_index: &[usize]) {
    for s in &mut b.stms {
        if let Exp::Apply { fun, .. } = &mut s.exp {
            *fun = new_index.get(*fun).copied().unwrap_or(*fun);
        }
        let _ = build::map_bodies(&mut s.exp, &mut |mut b| {
            renumber_calls(&mut b, new_index);
            Ok(b)
        });
    }
}
