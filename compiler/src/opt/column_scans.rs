//! A `scan` over the rows of an array whose operator combines rows elementwise, `scan (map2 op)
//! ne xss`, is a scan of each column: `transpose (map2 (\col e -> scan op e col) (transpose
//! xss) ne)`. The GPU backend scans scalars only; there a map of scans is a segmented scan, one
//! invocation per column reading the rows where they are (the transpositions stay virtual).
//! Rows of more than one dimension are flattened first, so each element is a column. Reverse
//! mode makes such scans for the adjoint of a histogram of rows (`hist (map2 op)`).

use std::collections::HashSet;

use super::summed_hists::{dim_atom, every_body, fresh, product};
use crate::ad::walk;
use crate::ir::operators::elementwise;
use crate::ir::*;

/// Rewrite every scan over rows combined elementwise in `prog`; whether any was.
pub fn scans_of_rows_by_columns(prog: &mut Program) -> bool {
    every_body(prog, &mut |b, names| once(b, names))
}

/// Rewrite the first such scan of `b`; whether there was one.
fn once(b: &mut Body, names: &mut Vec<String>) -> bool {
    for k in 0..b.stms.len() {
        let s = &b.stms[k];
        let Exp::Scan { w, lam, neutral, arrs } = &s.exp else { continue };
        let ([p], [Atom::Var(ne)], [xss]) = (s.pat.as_slice(), neutral.as_slice(), arrs.as_slice())
        else {
            continue;
        };
        let Type::Array { elem, shape } = &p.ty else { continue };
        if shape.len() < 2 {
            continue;
        }
        let Some(op) = elementwise(lam).filter(|op| closed_in(op, lam)).cloned() else {
            continue;
        };
        let (w, elem, shape, ne, xss, span, res) =
            (*w, *elem, shape.clone(), *ne, *xss, s.span, p.clone());
        let mut stms = Vec::new();
        let n = shape[0];
        let cols = product(&shape[1..], res.var, span, names, &mut stms);
        let (col, e, scanned) =
            (fresh(names, res.var), fresh(names, res.var), fresh(names, res.var));
        let arr = |shape: Vec<Dim>| Type::Array { elem, shape };
        let mut bind = |stms: &mut Vec<Stm>, ty: Type, exp: Exp| {
            let v = fresh(names, res.var);
            stms.push(Stm { pat: vec![Param { var: v, ty }], exp, span });
            v
        };
        let (rows, nes) = if shape.len() > 2 {
            let rows = bind(
                &mut stms,
                arr(vec![n, cols]),
                Exp::Reshape { arr: xss, shape: vec![n, cols] },
            );
            let nes = bind(&mut stms, arr(vec![cols]), Exp::Reshape { arr: ne, shape: vec![cols] });
            (rows, nes)
        } else {
            (xss, ne)
        };
        let columns =
            bind(&mut stms, arr(vec![cols, n]), Exp::Rearrange { arr: rows, perm: vec![1, 0] });
        let per_column = Lambda {
            params: vec![
                Param { var: col, ty: arr(vec![n]) },
                Param { var: e, ty: Type::Prim(elem) },
            ],
            body: Body {
                stms: vec![Stm {
                    pat: vec![Param { var: scanned, ty: arr(vec![n]) }],
                    exp: Exp::Scan { w, lam: op, neutral: vec![Atom::Var(e)], arrs: vec![col] },
                    span,
                }],
                result: vec![Atom::Var(scanned)],
            },
            ret: vec![arr(vec![n])],
        };
        let map = Exp::Map { w: dim_atom(cols), lam: per_column, arrs: vec![columns, nes] };
        let scans = bind(&mut stms, arr(vec![cols, n]), map);
        let back = Exp::Rearrange { arr: scans, perm: vec![1, 0] };
        if shape.len() > 2 {
            let flat = bind(&mut stms, arr(vec![n, cols]), back);
            stms.push(Stm { pat: vec![res], exp: Exp::Reshape { arr: flat, shape }, span });
        } else {
            stms.push(Stm { pat: vec![res], exp: back, span });
        }
        b.stms.splice(k..=k, stms);
        return true;
    }
    false
}

/// Whether the scalar operator `op` found inside the row operator `lam` reads nothing that `lam`
/// binds (its rows, say): it then means the same outside `lam`.
fn closed_in(op: &Lambda, lam: &Lambda) -> bool {
    let mut bound = HashSet::new();
    walk::lambda_vars(&mut lam.clone(), &mut |v, binder| {
        if binder {
            bound.insert(*v);
        }
    });
    let mut own = HashSet::new();
    walk::lambda_vars(&mut op.clone(), &mut |v, binder| {
        if binder {
            own.insert(*v);
        }
    });
    walk::free_in_body(&op.body).iter().all(|v| own.contains(v) || !bound.contains(v))
}

#[cfg(test)]
mod tests {
    use crate::opt::testing::rewritten_by;

    fn rewritten(src: &str, entry: &str, args: &str) -> (String, String, Result<String, String>) {
        rewritten_by(src, entry, args, super::scans_of_rows_by_columns)
    }

    fn one_line(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The ranks of what the scans of `src`, rewritten, give.
    fn scan_ranks(src: &str) -> Vec<usize> {
        fn body(b: &crate::ir::Body, out: &mut Vec<usize>) {
            for s in &b.stms {
                if let crate::ir::Exp::Scan { .. } = &s.exp {
                    out.extend(s.pat.iter().map(|p| p.ty.rank()));
                }
                crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| body(b, out));
            }
        }
        let (mut c, _) = crate::opt::testing::compile(src);
        c.ir = crate::opt::for_backends(&c.ir);
        super::scans_of_rows_by_columns(&mut c.ir);
        let mut out = Vec::new();
        for f in &c.ir.funs {
            body(&f.body, &mut out);
        }
        out
    }

    #[test]
    fn a_scan_of_rows_is_a_scan_per_column() {
        let src = "entry main [n][m] (xss: [n][m]f32) : [n][m]f32 =
                     scan (map2 (\\a b -> a * b + 1)) (replicate m 1) xss";
        let args = "[[1f32, 2f32], [3f32, 4f32], [0.5f32, -1f32]]";
        let (after, expected, got) = rewritten(src, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(
            one_line(&expected),
            "[[2.0f32, 3.0f32], [7.0f32, 13.0f32], [4.5f32, -12.0f32]]"
        );
        assert_eq!(scan_ranks(src), [1]);
    }

    #[test]
    fn rows_of_more_dimensions_are_flattened_and_empty_arrays_scan() {
        let src = "entry main [n][m][p] (xsss: [n][m][p]i32) (ne: [m][p]i32) : [n][m][p]i32 =
                     scan (map2 (map2 (+))) ne xsss";
        let args = "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]] [[0, 0], [0, 0]]";
        let (after, expected, got) = rewritten(src, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(
            one_line(&expected),
            "[[[1i32, 2i32], [3i32, 4i32]], [[6i32, 8i32], [10i32, 12i32]]]"
        );
        assert_eq!(scan_ranks(src), [1]);
        let (_, expected, got) =
            rewritten(src, "main", "empty([0][2][3]i32) [[0, 0, 0], [0, 0, 0]]");
        assert_eq!(got, Ok(expected));
    }

    /// An operator that reads its rows other than elementwise is no scan of columns.
    #[test]
    fn other_operators_on_rows_stay() {
        let src = "entry main [n] (xss: [n][2]f32) : [n][2]f32 =
                     scan (\\a b -> [a[0] * b[0], a[1] * b[0] + b[1]]) [1, 0] xss";
        let (mut c, _) = crate::opt::testing::compile(src);
        c.ir = crate::opt::for_backends(&c.ir);
        assert!(!super::scans_of_rows_by_columns(&mut c.ir));
    }
}
