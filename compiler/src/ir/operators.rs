//! Operators of `reduce`, `scan` and `hist` recognised by their lambdas: the backends and the
//! interpreter take fast paths for a single binary operator, and for one lifted to arrays.

use crate::ir::*;
use crate::prim::PrimType;

/// `\a b -> a op b` (or `b op a`): the operator, its type and whether the accumulator (the
/// first parameter) is the left operand.
pub fn single_operator(lam: &Lambda) -> Option<(BinOp, PrimType, bool)> {
    let ([p, q], [stm], [r]) = (&lam.params[..], &lam.body.stms[..], &lam.body.result[..]) else {
        return None;
    };
    pair_operator(stm, p, q, r)
}

/// `stm` as `r = acc op x` (or `x op acc`) on scalars of the parameters' type: the operator, its
/// type and whether the accumulator `acc` is the left operand.
pub fn pair_operator(
    stm: &Stm,
    acc: &Param,
    x: &Param,
    r: &Atom,
) -> Option<(BinOp, PrimType, bool)> {
    let Exp::BinOp(op, t, Atom::Var(a), Atom::Var(b)) = &stm.exp else { return None };
    if stm.pat.len() != 1
        || *r != Atom::Var(stm.pat[0].var)
        || acc.ty != Type::Prim(*t)
        || x.ty != Type::Prim(*t)
    {
        return None;
    }
    match (*a == acc.var && *b == x.var, *a == x.var && *b == acc.var) {
        (true, _) => Some((*op, *t, true)),
        (_, true) => Some((*op, *t, false)),
        _ => None,
    }
}

/// The scalar function `f` of an operator `\a b -> map2 (... (map2 f)) a b` on arrays of
/// scalars: applied to the elements of two arrays of the same shape, in place of the nest.
pub fn elementwise(lam: &Lambda) -> Option<&Lambda> {
    let [p, q] = lam.params.as_slice() else { return None };
    if let (Type::Prim(_), Type::Prim(_)) = (&p.ty, &q.ty) {
        let scalar =
            lam.body.stms.iter().all(|s| s.pat.iter().all(|x| matches!(x.ty, Type::Prim(_))))
                && lam.body.stms.iter().all(|s| {
                    !matches!(s.exp, Exp::Loop { .. } | Exp::Apply { .. } | Exp::If { .. })
                })
                && matches!(lam.body.result.as_slice(), [Atom::Var(_)]);
        return scalar.then_some(lam);
    }
    let [stm] = lam.body.stms.as_slice() else { return None };
    let Exp::Map { lam: inner, arrs, .. } = &stm.exp else { return None };
    let ok = arrs.as_slice() == [p.var, q.var]
        && matches!(lam.body.result.as_slice(), [Atom::Var(r)] if stm.pat.len() == 1 && *r == stm.pat[0].var);
    if ok {
        elementwise(inner)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn single_operator_recognises_both_operand_orders() {
        use crate::ir::{Body, Param, Stm};
        let (a, b, r) = (Var(0), Var(1), Var(2));
        let lam = |x, y| Lambda {
            params: vec![
                Param { var: a, ty: Type::Prim(PrimType::I32) },
                Param { var: b, ty: Type::Prim(PrimType::I32) },
            ],
            body: Body {
                stms: vec![Stm {
                    pat: vec![Param { var: r, ty: Type::Prim(PrimType::I32) }],
                    exp: Exp::BinOp(BinOp::Sub, PrimType::I32, Atom::Var(x), Atom::Var(y)),
                    span: Span::DUMMY,
                }],
                result: vec![Atom::Var(r)],
            },
            ret: vec![Type::Prim(PrimType::I32)],
        };
        assert_eq!(single_operator(&lam(a, b)), Some((BinOp::Sub, PrimType::I32, true)));
        assert_eq!(single_operator(&lam(b, a)), Some((BinOp::Sub, PrimType::I32, false)));
        assert_eq!(single_operator(&lam(a, a)), None);
    }
}
