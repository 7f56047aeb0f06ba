//! Simplification after differentiation: copy propagation of variable-to-variable bindings and
//! removal of dead code (including the forward statements that reverse mode re-executes but
//! whose values end up unused), so the derivative program is ordinary, lean core IR.

use std::collections::HashSet;

use crate::ir::*;

/// Simplify every function of `prog` in place.
pub fn simplify(prog: &mut Program) {
    for f in &mut prog.funs {
        dce(&mut f.body);
    }
}

/// Whether `e` may fail at run time, so it must stay even if unused. Indexing counts as pure
/// here only inside derivative code would be unsound in general, so it is kept.
fn may_fail(e: &Exp) -> bool {
    let body = |b: &Body| b.stms.iter().any(|s| may_fail(&s.exp));
    match e {
        Exp::Assert { .. } | Exp::Apply { .. } | Exp::Index { .. } | Exp::Update { .. } => true,
        Exp::Reshape { .. } | Exp::Ad { .. } => true,
        Exp::BinOp(op, crate::prim::PrimType::Int(_), _, _) => {
            matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem | BinOp::Pow)
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

fn uses(s: &Stm, out: &mut HashSet<Var>) {
    let mut e = s.exp.clone();
    crate::ad::walk::exp_vars(&mut e, &mut |v, _| {
        out.insert(*v);
    });
    let mut pat = s.pat.clone();
    for p in &mut pat {
        if let Type::Array { shape, .. } = &p.ty {
            for d in shape {
                if let Dim::Var(v) = d {
                    out.insert(*v);
                }
            }
        }
    }
}

/// Remove unused statements that cannot fail, in `b` and every nested body.
pub fn dce(b: &mut Body) {
    let mut used: HashSet<Var> = HashSet::new();
    for a in &b.result {
        if let Atom::Var(v) = a {
            used.insert(*v);
        }
    }
    let mut kept = Vec::new();
    for mut s in std::mem::take(&mut b.stms).into_iter().rev() {
        let live = s.pat.is_empty() || s.pat.iter().any(|p| used.contains(&p.var));
        if !live && !may_fail(&s.exp) {
            continue;
        }
        match &mut s.exp {
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
        uses(&s, &mut used);
        kept.push(s);
    }
    kept.reverse();
    b.stms = kept;
}
