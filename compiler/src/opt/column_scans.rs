//! A `scan` over the rows of an array whose operator combines rows elementwise, `scan (map2 op)
//! ne xss`, is a scan of each column: `transpose (map2 (\col e -> scan op e col) (transpose
//! xss) ne)`. The GPU backend scans scalars only; there a map of scans is a segmented scan, one
//! invocation per column reading the rows where they are (the transpositions stay virtual).
//! Rows of more than one dimension are flattened first, so each element is a column. A scan
//! that also carries scalars, which the rows' elements may read ([`with_scalars`]), scans the
//! scalars on their own and each column with them. Reverse mode makes such scans for the
//! adjoint of a histogram of rows (`hist (map2 op)`: segmented scans of flags and rows).

use std::collections::{HashMap, HashSet};

use super::summed_hists::{dim_atom, every_body, fresh, product, shape};
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
        if let Some(stms) = with_scalars(&b.stms[k], names) {
            b.stms.splice(k..=k, stms);
            return true;
        }
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

/// A scan of scalars and of rows (of one dimension, all of one width) whose operator computes
/// the scalars from scalars alone and each row element from the scalars and the rows' elements
/// at the same column (reverse mode's segmented scans of rows: a flag and a row, `(f1, x) ⊕
/// (f2, y) = (f1 || f2, if f2 then y else map2 op x y)`): the scalars scanned on their own, and
/// per column a scan of the scalars with that column's elements; the statements replacing `s`.
fn with_scalars(s: &Stm, names: &mut Vec<String>) -> Option<Vec<Stm>> {
    let Exp::Scan { w, lam, neutral, arrs } = &s.exp else { return None };
    let row = |t: &Type| matches!(t, Type::Array { shape, .. } if shape.len() == 2);
    let rows: Vec<usize> = (0..s.pat.len()).filter(|&i| row(&s.pat[i].ty)).collect();
    if rows.is_empty() || rows.len() == s.pat.len() && s.pat.len() == 1 {
        return None;
    }
    if !s.pat.iter().all(|p| p.ty.rank() == 1 || row(&p.ty)) {
        return None;
    }
    let m = shape(&s.pat[rows[0]].ty)[1];
    if rows.iter().any(|&i| shape(&s.pat[i].ty)[1] != m) {
        return None;
    }
    let n = shape(&s.pat[0].ty)[0];
    let span = s.span;
    let like = s.pat[rows[0]].var;
    // The operator per column, from a renamed copy (the scalars' scan keeps the original).
    let op = slice(&rename(lam, names), names)?;
    // The scalars' scan: the statements of the operator that compute scalars, which read no row.
    let k = s.pat.len();
    let scalar_at: Vec<usize> = (0..k).filter(|i| !rows.contains(i)).collect();
    let mut stms = Vec::new();
    if !scalar_at.is_empty() {
        let sides = scalar_at.iter().copied().chain(scalar_at.iter().map(|i| i + k));
        let params: Vec<Param> = sides.map(|i| lam.params[i].clone()).collect();
        let mut body = Body {
            stms: lam
                .body
                .stms
                .iter()
                .filter(|x| x.pat.iter().all(|p| p.ty.rank() == 0))
                .cloned()
                .collect(),
            result: scalar_at.iter().map(|&i| lam.body.result[i]).collect(),
        };
        crate::ir::lower::dce(&mut body);
        let ret = scalar_at.iter().map(|&i| lam.ret[i].clone()).collect();
        stms.push(Stm {
            pat: scalar_at.iter().map(|&i| s.pat[i].clone()).collect(),
            exp: Exp::Scan {
                w: *w,
                lam: Lambda { params, body, ret },
                neutral: scalar_at.iter().map(|&i| neutral[i]).collect(),
                arrs: scalar_at.iter().map(|&i| arrs[i]).collect(),
            },
            span,
        });
    }
    // Per column: the scalars' arrays whole, the rows' columns and neutral elements.
    let mut params = Vec::new();
    let mut columns = Vec::new();
    let mut col_of = Vec::new();
    let mut ne_of = Vec::new();
    for &i in &rows {
        let elem = s.pat[i].ty.elem();
        let Atom::Var(ne) = neutral[i] else { return None };
        let t = fresh(names, like);
        stms.push(Stm {
            pat: vec![Param { var: t, ty: Type::Array { elem, shape: vec![m, n] } }],
            exp: Exp::Rearrange { arr: arrs[i], perm: vec![1, 0] },
            span,
        });
        columns.push(t);
        let (c, e) = (fresh(names, like), fresh(names, like));
        params.push(Param { var: c, ty: Type::Array { elem, shape: vec![n] } });
        col_of.push(c);
        ne_of.push((e, elem, ne));
    }
    for &(e, elem, _) in &ne_of {
        params.push(Param { var: e, ty: Type::Prim(elem) });
    }
    let mut map_arrs = columns;
    map_arrs.extend(ne_of.iter().map(|x| x.2));
    let (mut sneutral, mut sarrs, mut spat) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..k {
        let elem = s.pat[i].ty.elem();
        match rows.iter().position(|&r| r == i) {
            Some(j) => {
                sneutral.push(Atom::Var(ne_of[j].0));
                sarrs.push(col_of[j]);
            }
            None => {
                sneutral.push(neutral[i]);
                sarrs.push(arrs[i]);
            }
        }
        spat.push(Param { var: fresh(names, like), ty: Type::Array { elem, shape: vec![n] } });
    }
    let per_column = Lambda {
        params,
        body: Body {
            stms: vec![Stm {
                pat: spat.clone(),
                exp: Exp::Scan { w: *w, lam: op, neutral: sneutral, arrs: sarrs },
                span,
            }],
            result: spat.iter().map(|p| Atom::Var(p.var)).collect(),
        },
        ret: spat.iter().map(|p| p.ty.clone()).collect(),
    };
    // Every component comes back per column (a segmented scan returns its scan's results); the
    // scalars' copies are unused.
    let outs: Vec<Param> = (0..k)
        .map(|i| Param {
            var: fresh(names, like),
            ty: Type::Array { elem: s.pat[i].ty.elem(), shape: vec![m, n] },
        })
        .collect();
    stms.push(Stm {
        pat: outs.clone(),
        exp: Exp::Map { w: dim_atom(m), lam: per_column, arrs: map_arrs },
        span,
    });
    for &i in &rows {
        stms.push(Stm {
            pat: vec![s.pat[i].clone()],
            exp: Exp::Rearrange { arr: outs[i].var, perm: vec![1, 0] },
            span,
        });
    }
    Some(stms)
}

/// `lam` with every variable it binds renamed.
fn rename(lam: &Lambda, names: &mut Vec<String>) -> Lambda {
    let mut l = lam.clone();
    let mut map: HashMap<Var, Var> = HashMap::new();
    walk::lambda_vars(&mut l, &mut |v, binder| {
        if binder && !map.contains_key(v) {
            map.insert(*v, fresh(names, *v));
        }
    });
    walk::lambda_vars(&mut l, &mut |v, _| {
        if let Some(w) = map.get(v) {
            *v = *w;
        }
    });
    l
}

/// The operator `lam` on scalars and rows as an operator on scalars and the rows' elements at
/// one column: each row statement becomes the statement of its element (a copy, a map of
/// scalars inlined, a branch of such, a replicate's value); `None` when a statement computes a
/// scalar from a row, or a row otherwise.
fn slice(lam: &Lambda, names: &mut Vec<String>) -> Option<Lambda> {
    let mut elem: HashMap<Var, Var> = HashMap::new();
    let mut params = Vec::new();
    for p in &lam.params {
        match &p.ty {
            Type::Prim(_) => params.push(p.clone()),
            Type::Array { elem: t, shape } if shape.len() == 1 => {
                let e = fresh(names, p.var);
                elem.insert(p.var, e);
                params.push(Param { var: e, ty: Type::Prim(*t) });
            }
            _ => return None,
        }
    }
    let body = slice_body(&lam.body, &mut elem, names)?;
    let ret = lam.ret.iter().map(|t| Type::Prim(t.elem())).collect();
    Some(Lambda { params, body, ret })
}

fn slice_body(b: &Body, elem: &mut HashMap<Var, Var>, names: &mut Vec<String>) -> Option<Body> {
    let reads_row = |x: &Stm, elem: &HashMap<Var, Var>| {
        walk::free_in_body(&Body { stms: vec![x.clone()], result: Vec::new() })
            .iter()
            .any(|v| elem.contains_key(v))
    };
    let mut stms = Vec::new();
    for x in &b.stms {
        if x.pat.iter().all(|p| p.ty.rank() == 0) {
            if reads_row(x, elem) {
                return None;
            }
            stms.push(x.clone());
            continue;
        }
        let [p] = x.pat.as_slice() else { return None };
        let Type::Array { elem: t, shape } = &p.ty else { return None };
        if shape.len() != 1 {
            return None;
        }
        let e = fresh(names, p.var);
        let bind = |exp| Stm { pat: vec![Param { var: e, ty: Type::Prim(*t) }], exp, span: x.span };
        match &x.exp {
            Exp::Atom(Atom::Var(r)) => stms.push(bind(Exp::Atom(Atom::Var(*elem.get(r)?)))),
            Exp::Replicate { shape, value } if shape.len() == 1 => {
                stms.push(bind(Exp::Atom(*value)))
            }
            Exp::Map { lam: f, arrs, .. } => {
                let ([r], scalar) = (f.body.result.as_slice(), f.ret.len() == 1) else {
                    return None;
                };
                if !scalar
                    || f.body
                        .stms
                        .iter()
                        .any(|y| y.pat.iter().any(|q| q.ty.rank() > 0) || reads_row(y, elem))
                {
                    return None;
                }
                for (fp, a) in f.params.iter().zip(arrs) {
                    let ea = *elem.get(a)?;
                    stms.push(Stm {
                        pat: vec![fp.clone()],
                        exp: Exp::Atom(Atom::Var(ea)),
                        span: x.span,
                    });
                }
                stms.extend(f.body.stms.iter().cloned());
                stms.push(bind(Exp::Atom(*r)));
            }
            Exp::If { cond, then_body, else_body, .. } => {
                let then_body = slice_body(then_body, elem, names)?;
                let else_body = slice_body(else_body, elem, names)?;
                stms.push(bind(Exp::If {
                    cond: *cond,
                    then_body,
                    else_body,
                    ret: vec![Type::Prim(*t)],
                }));
            }
            _ => return None,
        }
        elem.insert(p.var, e);
    }
    let result = b
        .result
        .iter()
        .map(|a| match a {
            Atom::Var(v) => match elem.get(v) {
                Some(e) => Atom::Var(*e),
                None => *a,
            },
            c => *c,
        })
        .collect();
    Some(Body { stms, result })
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

    /// A segmented scan of rows (a flag and a row per element): the flags scanned alone, each
    /// column with them.
    #[test]
    fn flags_and_rows_are_scanned_per_column() {
        let src = "entry main [n][m] (fs: [n]bool) (xss: [n][m]f32) =
                     let op (f1: bool, x: [m]f32) (f2: bool, y: [m]f32) =
                       (f1 || f2, if f2 then y else map2 (\\a b -> a * b + a + b) x y)
                     in unzip (scan op (false, replicate m 0) (zip fs xss))";
        let args = "[true, false, false, true, false] \
                    [[1f32, 2f32], [3f32, 4f32], [0.5f32, -1f32], [2f32, 2f32], [1f32, 0f32]]";
        let (after, expected, got) = rewritten(src, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(
            one_line(&expected),
            "[true, true, true, true, true] [[1.0f32, 2.0f32], [7.0f32, 14.0f32], \
             [11.0f32, -1.0f32], [2.0f32, 2.0f32], [5.0f32, 2.0f32]]"
        );
        assert!(scan_ranks(src).iter().all(|&r| r == 1), "{after}");
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
