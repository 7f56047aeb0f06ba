//! Sums of outer products as matrix products. Reverse mode gives the adjoint of a weight matrix
//! `w` read by every sample of a batch (`map (\x -> ... matvec w x ...) xs`) as one outer
//! product per sample, summed over the samples:
//!
//! ```text
//! let (.., g: [n][a][b], ..) = map(n, \(.., x: [b], ..) -> .. let u: [a] = .. in
//!                                  .. map(a, \(.., s) -> map(b, \(.., y) -> y * s) .. x) .. u ..)
//! let gw = reduce(n, map2 (map2 (+)), zeros, g)
//! ```
//!
//! that is `gw[j][c] = sum_i u_i[j] * x_i[c]`, the product `transpose U · X` of the per-sample
//! vectors stacked as matrices. Here the map returns `u` instead of its outer product (the
//! per-sample matrices are never made) and `gw` becomes that product, written as the nest the
//! backends compile as matrix products (register-blocked on wasm, tiled on GPUs):
//!
//! ```text
//! map(a, \(ur: [n]) -> map(b, \(xr: [n]) -> reduce(n, +, 0, map(n, *, ur, xr)), transpose X),
//!     transpose U)
//! ```
//!
//! The sum is over the same terms, in another order (as a parallel sum is): floating-point
//! reassociation only. Nothing here can fail, so the program fails exactly when it did.

use std::collections::{HashMap, HashSet};

use super::new_var as fresh;
use crate::ad::walk;
use crate::ir::lower::builder::dim_atom;
use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

/// Rewrite every sum of outer products in `prog` (see the module's comment); whether any was.
pub fn outer_products_as_matrix_products(prog: &mut Program) -> bool {
    let mut names = std::mem::take(&mut prog.names);
    let mut changed = false;
    for f in &mut prog.funs {
        let mut types: HashMap<Var, Type> =
            f.params.iter().map(|p| (p.var, p.ty.clone())).collect();
        walk::body_types(&f.body, &mut types);
        changed |= in_body(&mut f.body, None, &types, &mut names);
    }
    prog.names = names;
    changed
}

/// `types`: the type of every variable of the function. `map_params`: when `b` is the body of a
/// map's function, its parameters (what is bound outside `b` is then the same for every element).
fn in_body(
    b: &mut Body,
    map_params: Option<&[Param]>,
    types: &HashMap<Var, Type>,
    names: &mut Vec<String>,
) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        if let Exp::Map { lam, .. } = &mut s.exp {
            changed |= in_body(&mut lam.body, Some(&lam.params), types, names);
        } else {
            crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |inner| {
                changed |= in_body(inner, None, types, names)
            });
        }
    }
    let mut r = 0;
    while r < b.stms.len() {
        let found = find(b, r, types).filter(|f| match f {
            Found::Outer { .. } => true,
            // Transposing `w` costs as much as the sum did, unless it is done once for many
            // sums: `w` the same for every element of an enclosing map, where the transpose
            // is hoisted (`hoist_map_invariants`).
            Found::VecMat { w, .. } => map_params.is_some_and(|ps| {
                !ps.iter().any(|p| p.var == *w)
                    && !b.stms.iter().any(|s| s.pat.iter().any(|p| p.var == *w))
            }),
        });
        if let Some(found) = found {
            rewrite(b, r, found, names);
            changed = true;
        }
        r += 1;
    }
    changed
}

/// A sum at `b.stms[r]` that `rewrite` makes a product of matrices (or of a matrix and a
/// vector).
enum Found {
    /// The sum over a map's results of outer products `u ⊗ x`: the map's index in the body, the
    /// result's index, the per-sample vectors `u` ([a]) and `x` ([b]) (a parameter of the map's
    /// function or a variable its body binds), the dims `[n][a][b]` and the element type.
    Outer { m: usize, k: usize, u: Var, x: Var, shape: [Dim; 3], elem: PrimType },
    /// The sum of the rows of `map (\row s -> map (\e -> e * s) row) w us`: `transpose w · us`.
    /// The map's index and result index, `w` ([m][b]), `us` ([m]), the dims and element type.
    VecMat { t: usize, q: usize, w: Var, us: Var, shape: [Dim; 2], elem: PrimType },
}

/// Result `q` of `map(a, \(.., s, ..) -> map(b, \(.., e, ..) -> e * s, .. v ..), .. us ..)`
/// (the scalar `s` an element of `us`, `e` one of `v`): `(v, us)`, the arrays the factors come
/// from as the outer function names them (`v` may be one of its parameters).
fn scaled(t: &Stm, q: usize, elem: PrimType) -> Option<(Var, Var)> {
    let Exp::Map { lam: l2, arrs: a2, .. } = &t.exp else { return None };
    let Atom::Var(row) = l2.body.result[q] else { return None };
    let (t2, q2) = binding(&l2.body, row)?;
    let Exp::Map { lam: l3, arrs: a3, .. } = &t2.exp else { return None };
    if uses(&l2.body, row) != 1 {
        return None;
    }
    let Atom::Var(p) = l3.body.result[q2] else { return None };
    let (t3, _) = binding(&l3.body, p)?;
    let Exp::BinOp(BinOp::Mul, pt, Atom::Var(f1), Atom::Var(f2)) = &t3.exp else { return None };
    if *pt != elem {
        return None;
    }
    let inner = bound_in(l2);
    // `e`: bound to a vector the outer function has (free in it, or its parameter's row).
    let elem_of = |f: &Var| {
        let i = l3.params.iter().position(|p| p.var == *f)?;
        let v = a3[i];
        let param = l2.params.iter().any(|p| p.var == v);
        (param || !inner.contains(&v)).then_some(v)
    };
    let scalar_of = |f: &Var| {
        let i = l2.params.iter().position(|p| p.var == *f && p.ty == Type::Prim(elem))?;
        Some(a2[i])
    };
    match (scalar_of(f1), elem_of(f2), scalar_of(f2), elem_of(f1)) {
        (Some(u), Some(v), ..) | (.., Some(u), Some(v)) => Some((v, u)),
        _ => None,
    }
}

fn find(b: &Body, r: usize, types: &HashMap<Var, Type>) -> Option<Found> {
    let s = &b.stms[r];
    let Exp::Reduce { w, lam: op, neutral, arrs, .. } = &s.exp else { return None };
    let ([g], [Atom::Var(z)], [_]) = (arrs.as_slice(), neutral.as_slice(), s.pat.as_slice()) else {
        return None;
    };
    let bound_at = |v: &Var| b.stms.iter().position(|t| t.pat.iter().any(|p| p.var == *v));
    if !zeros(b, *z) {
        return None;
    }
    let m = bound_at(g)?;
    let Exp::Map { w: wm, lam, arrs: marrs } = &b.stms[m].exp else { return None };
    let k = b.stms[m].pat.iter().position(|p| p.var == *g)?;
    let Type::Array { elem, shape } = &b.stms[m].pat[k].ty else { return None };
    if wm != w || m > r || uses(b, *g) != 1 || !matches!(elem, PrimType::Float(_)) {
        return None;
    }
    let elem = *elem;
    if let &[n, db] = shape.as_slice() {
        // The rows of `w` scaled by `us` and summed.
        if !adds_rows(op, 1) {
            return None;
        }
        let (v, us) = scaled(&b.stms[m], k, elem)?;
        let i = lam.params.iter().position(|p| p.var == v)?;
        // The transpose's type is written from `g`'s dims: they must be `w`'s.
        let w = marrs[i];
        if types.get(&w) != Some(&Type::Array { elem, shape: vec![n, db] }) {
            return None;
        }
        return Some(Found::VecMat { t: m, q: k, w, us, shape: [n, db], elem });
    }
    let &[n, da, db] = shape.as_slice() else { return None };
    if !adds_rows(op, 2) {
        return None;
    }
    // g's row: `map(a, \(.., s) -> map(b, \(.., y) -> y * s, .. x ..), .. u ..)`, with `x` free
    // in that map.
    let Atom::Var(gr) = lam.body.result[k] else { return None };
    let (t, q) = binding(&lam.body, gr)?;
    if uses(&lam.body, gr) != 1 {
        return None;
    }
    let (x, u) = scaled(t, q, elem)?;
    let Exp::Map { lam: l2, .. } = &t.exp else { return None };
    if l2.params.iter().any(|p| p.var == x) {
        return None;
    }
    // Both are vectors of the map's function, of the row's dims.
    let mut tys: HashMap<Var, Type> = lam.params.iter().map(|p| (p.var, p.ty.clone())).collect();
    walk::body_types(&lam.body, &mut tys);
    let vec_of = |d: Dim| Some(Type::Array { elem, shape: vec![d] });
    if tys.get(&u).cloned() != vec_of(da) || tys.get(&x).cloned() != vec_of(db) {
        return None;
    }
    // They must be in scope at the function's result (bound in its body, not deeper).
    let top: HashSet<Var> = lam
        .params
        .iter()
        .map(|p| p.var)
        .chain(lam.body.stms.iter().flat_map(|t| t.pat.iter().map(|p| p.var)))
        .collect();
    if !top.contains(&u) || !top.contains(&x) {
        return None;
    }
    // A vector that is a row of the map's array is stacked as that array, whose type the
    // transpose's is written from.
    for (v, d) in [(u, da), (x, db)] {
        if let Some(i) = lam.params.iter().position(|p| p.var == v) {
            if types.get(&marrs[i]) != Some(&Type::Array { elem, shape: vec![n, d] }) {
                return None;
            }
        }
    }
    Some(Found::Outer { m, k, u, x, shape: [n, da, db], elem })
}

/// Whether `op` adds its two arguments, arrays of rank `depth`, element by element.
fn adds_rows(op: &Lambda, depth: usize) -> bool {
    let [p, q] = op.params.as_slice() else { return false };
    let [s] = op.body.stms.as_slice() else { return false };
    if !matches!(op.body.result.as_slice(), [Atom::Var(r)] if s.pat.len() == 1 && *r == s.pat[0].var)
    {
        return false;
    }
    match (&s.exp, depth) {
        (Exp::BinOp(BinOp::Add, PrimType::Float(_), Atom::Var(a), Atom::Var(b)), 0) => {
            (*a, *b) == (p.var, q.var) || (*a, *b) == (q.var, p.var)
        }
        (Exp::Map { lam, arrs, .. }, d) if d > 0 => {
            arrs.as_slice() == [p.var, q.var] && adds_rows(lam, d - 1)
        }
        _ => false,
    }
}

/// Whether `b` binds `v` to an array of float zeros (`replicate`s of `0`).
fn zeros(b: &Body, v: Var) -> bool {
    match binding(b, v).map(|(s, _)| &s.exp) {
        Some(Exp::Replicate { value: Atom::Const(PrimValue::F32(x)), .. }) => *x == 0.0,
        Some(Exp::Replicate { value: Atom::Const(PrimValue::F64(x)), .. }) => *x == 0.0,
        Some(Exp::Replicate { value: Atom::Var(w), .. }) => zeros(b, *w),
        _ => false,
    }
}

/// The statement of `b` binding `v`, and `v`'s index in its pattern.
fn binding(b: &Body, v: Var) -> Option<(&Stm, usize)> {
    b.stms.iter().find_map(|s| s.pat.iter().position(|p| p.var == v).map(|i| (s, i)))
}

/// The variables a function binds: its parameters and every pattern inside it.
fn bound_in(lam: &Lambda) -> HashSet<Var> {
    let mut out: HashSet<Var> = lam.params.iter().map(|p| p.var).collect();
    let mut body = lam.body.clone();
    walk::body_vars(&mut body, &mut |v, binder| {
        if binder {
            out.insert(*v);
        }
    });
    out
}

/// How often `b` reads `v` (its statements and its result).
fn uses(b: &Body, v: Var) -> usize {
    let mut body = b.clone();
    let mut n = 0;
    walk::body_vars(&mut body, &mut |x, binder| n += usize::from(!binder && *x == v));
    n
}

fn rewrite(b: &mut Body, r: usize, f: Found, names: &mut Vec<String>) {
    let span = b.stms[r].span;
    let sum = b.stms[r].pat[0].clone();
    let stm = |pat: Vec<Param>, exp: Exp| Stm { pat, exp, span };
    let transposed = |names: &mut Vec<String>, arr: Var, ty: Type| {
        let v = fresh(names, &format!("{}_t", names[arr.0 as usize]));
        (v, stm(vec![Param { var: v, ty }], Exp::Rearrange { arr, perm: vec![1, 0] }))
    };
    let new = match f {
        Found::Outer { m, k, u, x, shape: [n, da, db], elem } => {
            let arr = |shape: Vec<Dim>| Type::Array { elem, shape };
            // The stacked vectors: the map's own array where the vector is a row of it, else a
            // new result of the map.
            let mut stacked = |v: Var, d: Dim, name: &str| {
                let s = &mut b.stms[m];
                let Exp::Map { lam, arrs, .. } = &mut s.exp else { unreachable!("a map") };
                if let Some(i) = lam.params.iter().position(|p| p.var == v) {
                    return arrs[i];
                }
                let out = fresh(names, name);
                lam.body.result.push(Atom::Var(v));
                lam.ret.push(arr(vec![d]));
                s.pat.push(Param { var: out, ty: arr(vec![n, d]) });
                out
            };
            let us = stacked(u, da, "rows");
            let xs = stacked(x, db, "cols");
            drop_result(&mut b.stms[m], k);
            let (ut, ut_stm) = transposed(names, us, arr(vec![da, n]));
            let (xt, xt_stm) = transposed(names, xs, arr(vec![db, n]));
            let (ur, row) = (fresh(names, "r"), fresh(names, "row"));
            let row = Param { var: row, ty: arr(vec![db]) };
            let dots = dots(names, elem, span, [n, db], ur, xt, row.clone());
            let lam = Lambda {
                params: vec![Param { var: ur, ty: arr(vec![n]) }],
                body: Body { stms: vec![dots], result: vec![Atom::Var(row.var)] },
                ret: vec![row.ty],
            };
            vec![ut_stm, xt_stm, stm(vec![sum], Exp::Map { w: dim_atom(da), lam, arrs: vec![ut] })]
        }
        Found::VecMat { t, q, w, us, shape: [m, db], elem } => {
            drop_result(&mut b.stms[t], q);
            let (wt, wt_stm) = transposed(names, w, Type::Array { elem, shape: vec![db, m] });
            vec![wt_stm, dots(names, elem, span, [m, db], us, wt, sum)]
        }
    };
    b.stms.splice(r..=r, new);
}

/// `let out: [w] = map(w, \(c: [n]) -> reduce(n, +, 0, map(n, *, fixed, c)), rows)`: the dot
/// products of `fixed` with the rows of `rows`, in the shape the backends block.
fn dots(
    names: &mut Vec<String>,
    elem: PrimType,
    span: crate::diag::Span,
    [n, w]: [Dim; 2],
    fixed: Var,
    rows: Var,
    out: Param,
) -> Stm {
    let scalar = Type::Prim(elem);
    let p = |var: Var, ty: Type| Param { var, ty };
    let stm = |pat: Vec<Param>, exp: Exp| Stm { pat, exp, span };
    let binop = |names: &mut Vec<String>, op: BinOp, name: &str| {
        let (a, b, r) = (fresh(names, "a"), fresh(names, "b"), fresh(names, name));
        Lambda {
            params: vec![p(a, scalar.clone()), p(b, scalar.clone())],
            body: Body {
                stms: vec![stm(
                    vec![p(r, scalar.clone())],
                    Exp::BinOp(op, elem, Atom::Var(a), Atom::Var(b)),
                )],
                result: vec![Atom::Var(r)],
            },
            ret: vec![scalar.clone()],
        }
    };
    let (col, prods, dot) = (fresh(names, "c"), fresh(names, "prods"), fresh(names, "dot"));
    let row_ty = Type::Array { elem, shape: vec![n] };
    let body = Body {
        stms: vec![
            stm(
                vec![p(prods, row_ty.clone())],
                Exp::Map {
                    w: dim_atom(n),
                    lam: binop(names, BinOp::Mul, "prod"),
                    arrs: vec![fixed, col],
                },
            ),
            stm(
                vec![p(dot, scalar.clone())],
                Exp::Reduce {
                    w: dim_atom(n),
                    lam: binop(names, BinOp::Add, "sum"),
                    neutral: vec![Atom::Const(PrimValue::zero(elem))],
                    arrs: vec![prods],
                    commutative: true,
                },
            ),
        ],
        result: vec![Atom::Var(dot)],
    };
    let lam = Lambda { params: vec![p(col, row_ty)], body, ret: vec![scalar] };
    stm(vec![out], Exp::Map { w: dim_atom(w), lam, arrs: vec![rows] })
}

/// Remove result `k` of the map `s`, and whatever in its function only that result needed.
fn drop_result(s: &mut Stm, k: usize) {
    let Exp::Map { lam, .. } = &mut s.exp else { unreachable!("find checked a map") };
    s.pat.remove(k);
    lam.ret.remove(k);
    lam.body.result.remove(k);
    prune_map_results(&mut lam.body);
    crate::ir::lower::dce(&mut lam.body);
}

/// Drop the results of the maps in `b` (and in the bodies inside them) that nothing reads.
fn prune_map_results(b: &mut Body) {
    for i in (0..b.stms.len()).rev() {
        let (s, after) = b.stms[i..].split_first_mut().expect("index in range");
        let later = Body { stms: after.to_vec(), result: b.result.clone() };
        let Exp::Map { lam, .. } = &mut s.exp else { continue };
        let mut k = 0;
        while k < s.pat.len() {
            if uses(&later, s.pat[k].var) == 0 {
                s.pat.remove(k);
                lam.ret.remove(k);
                lam.body.result.remove(k);
            } else {
                k += 1;
            }
        }
        prune_map_results(&mut lam.body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::print::print_program;
    use crate::opt::testing::{compile, run};

    /// A batch of samples through a weight matrix, and the gradient of a loss on the results.
    const BATCH: &str = "
        def matvec [m][n] (w: [m][n]f64) (v: [n]f64) : [m]f64 = map (\\r -> f64.sum (map2 (*) r v)) w
        def loss [n][i][h] (xs: [n][i]f64) (w: [h][i]f64) (v: [h]f64) : f64 =
          f64.sum (map (\\x -> f64.sum (map2 (*) v (map f64.tanh (matvec w x)))) xs)
        entry grad [n][i][h] (xs: [n][i]f64) (w: [h][i]f64) (v: [h]f64) =
          vjp (\\(xs, w) -> loss xs w v) (xs, w) 1";

    const ARGS: &str = "[[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.0, 1.0, 1.0], [3.0, 0.0, -2.0]]
                        [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]] [1.5, -2.5]";

    #[test]
    fn a_sum_of_outer_products_over_a_batch_becomes_a_matrix_product() {
        let (mut c, before) = compile(BATCH);
        let expected = run(&c, "grad", ARGS).expect("runs");
        assert!(!before.contains("rearrange"), "{before}");
        assert!(outer_products_as_matrix_products(&mut c.ir), "{before}");
        crate::ir::validate::validate(&c.ir).expect("valid IR");
        let after = print_program(&c.ir);
        // `w`'s adjoint is the product of the stacked per-sample vectors, transposed, and no
        // array of one matrix per sample is left.
        assert_eq!(after.matches("rearrange((1, 0)").count(), 3, "{after}");
        for f in &c.ir.funs {
            let mut types = HashMap::new();
            walk::body_types(&f.body, &mut types);
            assert!(types.values().all(|t| t.rank() < 3), "{after}");
        }
        let got = run(&c, "grad", ARGS).expect("runs");
        assert_close(&got, &expected);
    }

    /// The numbers of two printed results agree to 1e-12 relative to the largest.
    fn assert_close(got: &str, expected: &str) {
        let nums = |s: &str| -> Vec<f64> {
            s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
                .filter_map(|t| t.parse().ok())
                .collect()
        };
        let (g, e) = (nums(got), nums(expected));
        assert_eq!(g.len(), e.len(), "{got} vs {expected}");
        let scale = e.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (a, b) in g.iter().zip(&e) {
            assert!((a - b).abs() <= 1e-12 * scale, "{got} vs {expected}");
        }
    }

    #[test]
    fn a_vector_times_a_matrix_is_a_product_only_where_the_transpose_is_shared() {
        // One vector-matrix product at the top level: transposing `w` would cost what the sum
        // costs, so it stays a sum of scaled rows.
        let (mut c, before) = compile(
            "entry grad [h][i] (x: [i]f64) (w: [h][i]f64) =
               vjp (\\x -> f64.sum (map (\\r -> f64.tanh (f64.sum (map2 (*) r x))) w)) x 1",
        );
        assert!(!outer_products_as_matrix_products(&mut c.ir), "{before}");
        assert_eq!(before, print_program(&c.ir));
    }

    #[test]
    fn a_sum_that_starts_from_other_than_zero_stays() {
        let (mut c, before) = compile(
            "entry f [n][a][b] (us: [n][a]f64) (xs: [n][b]f64) (z: [a][b]f64) =
               reduce (map2 (map2 (+))) z (map2 (\\u x -> map (\\s -> map (\\y -> y * s) x) u) us xs)",
        );
        assert!(!outer_products_as_matrix_products(&mut c.ir), "{before}");
        let (mut c, before) = compile(
            "entry f [n][a][b] (us: [n][a]f64) (xs: [n][b]f64) =
               reduce (map2 (map2 (+))) (replicate a (replicate b 0))
                      (map2 (\\u x -> map (\\s -> map (\\y -> y * s) x) u) us xs)",
        );
        let args = "[[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]] [[2.0, 0.0, 1.0], [1.0, 1.0, -1.0], [4.0, 2.0, 0.0]]";
        let expected = run(&c, "f", args).expect("runs");
        assert!(outer_products_as_matrix_products(&mut c.ir), "{before}");
        crate::ir::validate::validate(&c.ir).expect("valid IR");
        assert_close(&run(&c, "f", args).expect("runs"), &expected);
    }
}
