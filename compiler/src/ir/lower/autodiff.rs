//! `jvp`, `vjp`, `jvp2`, `vjp2`: the function argument becomes a lambda inside an [`Exp::Ad`],
//! which `crate::ad::differentiate` later replaces by derivative code.

use super::sval::SVal;
use super::{internal, LResult, Lowerer};
use crate::diag::Span;
use crate::ir::{AdMode, Atom, Exp, Type};

impl<'a> Lowerer<'a> {
    pub(crate) fn autodiff(
        &mut self,
        name: &str,
        f: &SVal<'a>,
        x: &SVal<'a>,
        seed: &SVal<'a>,
        span: Span,
    ) -> LResult<SVal<'a>> {
        let mode = if name.starts_with("jvp") { AdMode::Jvp } else { AdMode::Vjp };
        let (lam, r) = self.make_lambda(std::slice::from_ref(x), None, span, |l, args| {
            l.apply_args(f, args, span)
        })?;
        let args: Vec<Atom> = x.leaves().into_iter().map(|(a, _)| a).collect();
        let seeds: Vec<Atom> = seed.leaves().into_iter().map(|(a, _)| a).collect();
        let tangent_tys: Vec<Type> = match mode {
            AdMode::Jvp => lam.ret.clone(),
            AdMode::Vjp => x.leaves().into_iter().map(|(_, t)| t).collect(),
        };
        let mut pat = Vec::new();
        let mut primal = Vec::new();
        for t in &lam.ret {
            let p = self.b.param("y", t.clone());
            primal.push((Atom::Var(p.var), t.clone()));
            pat.push(p);
        }
        let mut deriv = Vec::new();
        let dname = if mode == AdMode::Jvp { "y_tan" } else { "x_adj" };
        for t in &tangent_tys {
            let p = self.b.param(dname, t.clone());
            deriv.push((Atom::Var(p.var), t.clone()));
            pat.push(p);
        }
        self.b.push(pat, Exp::Ad { mode, lam, args, seeds });
        let primal = r.rebuild(&mut primal.into_iter());
        let deriv = match mode {
            AdMode::Jvp => r.rebuild(&mut deriv.into_iter()),
            AdMode::Vjp => x.rebuild(&mut deriv.into_iter()),
        };
        let (Some(primal), Some(deriv)) = (primal, deriv) else {
            return Err(internal(span, "`jvp`/`vjp` result"));
        };
        Ok(if name.ends_with('2') { SVal::Tuple(vec![primal, deriv]) } else { deriv })
    }
}
