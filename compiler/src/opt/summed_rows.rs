//! A sum over a `map` of arrays that are each a neutral array with one row set, made into a
//! histogram of the rows:
//!
//! ```text
//! let H = map (\p -> ... let a = if c then (replicate k (replicate d ne)) with [e] = v
//!                                else replicate k (replicate d ne)
//!                        in a) ps
//! let r = reduce (map2 (map2 op)) (replicate k (replicate d ne)) H
//! ```
//!
//! becomes the map returning the row's index (-1 where none is set) and the row, and
//! `r = hist op ne` of the rows' elements at `e·d + t`. Reverse mode gives this shape to the
//! adjoint of an array of which each element of a map reads one row picked at run time, after
//! reading them all (k-means' centers: every point's distances to all of them, then its
//! nearest one's adjoint), where the per-element adjoint is one-hot. Summed as arrays, every
//! element adds `k·d` values, almost all of them neutral; as a histogram, `d`.
//!
//! The GPU backend runs it (`backend::wgsl`), where the histogram adds the rows' elements
//! atomically; the wasm backend sums the arrays as the map makes them, in registers per
//! thread. An index out of bounds still fails, at the update's check, which stays.

use std::collections::HashMap;

use super::summed_hists::{
    dim_atom, every_body, flattened, fresh, histogram_of, in_maps, product, replicated, shape,
    summed, uses, Pairs,
};
use crate::ir::operators::elementwise;
use crate::ir::*;
use crate::prim::{IntType, PrimType, PrimValue};

/// Rewrite every sum of one-row arrays in `prog` (see the module's comment); whether any was.
pub fn summed_rows_as_histograms(prog: &mut Program) -> bool {
    every_body(prog, &mut |b, names| find(b).is_some_and(|m| apply(b, m, names)))
}

/// Where the one row is set: an update of the neutral array, as the function's result or as
/// one branch's result of an `if` that the function returns.
enum Set {
    /// Statement `at` of the function's body.
    Direct { at: usize },
    /// Statement `at` of the function's body is an `if` whose result `j` is returned; per
    /// branch, the statement updating the neutral array (`None`: the branch returns it).
    Branches { at: usize, j: usize, upd: [Option<usize>; 2] },
}

struct Match {
    map: usize,
    res: usize,
    reduce: usize,
    /// The neutral array in the function, and its element.
    zeros: Var,
    neutral: Atom,
    set: Set,
}

fn find(b: &Body) -> Option<Match> {
    in_maps(b, |k, w, lam, r, p| (p.ty.rank() == 3).then(|| matched(b, k, w, lam, r, p.var))?)
}

/// The statement of `b` binding `v`.
fn def(b: &Body, v: Var) -> Option<usize> {
    b.stms.iter().position(|t| t.pat.iter().any(|p| p.var == v))
}

/// Whether statement `at` of `b` sets one row of `zeros`: `zeros with [e] = v`.
fn one_row(b: &Body, at: usize, zeros: Var) -> bool {
    matches!(&b.stms[at].exp, Exp::Update { arr, idx, value: Atom::Var(_) }
        if *arr == zeros && matches!(idx.as_slice(), [DimIndex::Fix(_)]))
}

fn matched(b: &Body, k: usize, w: Atom, lam: &Lambda, r: usize, h: Var) -> Option<Match> {
    let (reduce, neutral, _) = summed(b, k, w, h)?;
    if !matches!(neutral, Atom::Const(_)) {
        return None;
    }
    let fb = &lam.body;
    let Some(Atom::Var(x)) = fb.result.get(r).copied() else { return None };
    if uses(fb, x) != 1 {
        return None;
    }
    let at = def(fb, x)?;
    // The neutral array: bound in the function by a `replicate` of the neutral element.
    let is_zeros = |z: Var| replicated(fb, z) == Some(neutral);
    let set = match &fb.stms[at].exp {
        Exp::Update { arr, .. } if is_zeros(*arr) && one_row(fb, at, *arr) => {
            let zeros = *arr;
            return Some(Match { map: k, res: r, reduce, zeros, neutral, set: Set::Direct { at } });
        }
        Exp::If { then_body, else_body, .. } => {
            let j = fb.stms[at].pat.iter().position(|p| p.var == x)?;
            let mut zeros = None;
            let mut upd = [None, None];
            for (u, br) in upd.iter_mut().zip([then_body, else_body]) {
                let Some(Atom::Var(y)) = br.result.get(j).copied() else { return None };
                let z = match def(br, y) {
                    None => y,
                    Some(t) => {
                        let Exp::Update { arr, .. } = &br.stms[t].exp else { return None };
                        if !one_row(br, t, *arr) || uses(br, y) != 1 {
                            return None;
                        }
                        *u = Some(t);
                        *arr
                    }
                };
                if !is_zeros(z) || zeros.is_some_and(|q| q != z) {
                    return None;
                }
                zeros = Some(z);
            }
            upd.iter().any(Option::is_some).then_some(())?;
            (Set::Branches { at, j, upd }, zeros?)
        }
        _ => return None,
    };
    let (set, zeros) = set;
    Some(Match { map: k, res: r, reduce, zeros, neutral, set })
}

/// The bounds check of an update, and its index and row; the update itself goes.
fn take_update(
    b: &mut Body,
    at: usize,
    types: &HashMap<Var, Type>,
    names: &mut Vec<String>,
) -> Option<(Atom, Atom)> {
    let s = b.stms[at].clone();
    let Exp::Update { idx, value, .. } = &s.exp else { return None };
    let [DimIndex::Fix(e)] = idx.as_slice() else { return None };
    let checks = super::checks::bounds_check(&s, types, &HashMap::new(), names)?;
    b.stms.splice(at..=at, checks);
    Some((*e, *value))
}

/// Rewrite the match; false (and nothing changed) where an update's check cannot be made.
fn apply(b: &mut Body, m: Match, names: &mut Vec<String>) -> bool {
    let span = b.stms[m.map].span;
    let Exp::Map { w, lam, .. } = &b.stms[m.map].exp else { return false };
    let (w, mut lam) = (*w, lam.clone());
    let Some(wd) = crate::ir::lower::builder::atom_dim(w) else { return false };
    let Some(zty) = lam.body.stms.iter().flat_map(|s| &s.pat).find(|p| p.var == m.zeros) else {
        return false;
    };
    let zty = zty.ty.clone();
    let Ok([kd, dd]) = <[Dim; 2]>::try_from(shape(&zty)) else { return false };
    let elem = zty.elem();
    let row_ty = Type::Array { elem, shape: vec![dd] };
    let i64t = Type::Prim(PrimType::Int(IntType::I64));
    let mut types: HashMap<Var, Type> = HashMap::new();
    types.insert(m.zeros, zty.clone());
    let note = |b: &Body, types: &mut HashMap<Var, Type>| {
        for p in b.stms.iter().flat_map(|s| &s.pat) {
            types.insert(p.var, p.ty.clone());
        }
    };
    note(&lam.body, &mut types);
    for p in &lam.params {
        types.insert(p.var, p.ty.clone());
    }
    let (idx, row) = match m.set {
        Set::Direct { at } => match take_update(&mut lam.body, at, &types, names) {
            Some(r) => r,
            None => return false,
        },
        Set::Branches { at, j, upd } => {
            let Exp::If { then_body, else_body, ret, .. } = &mut lam.body.stms[at].exp else {
                return false;
            };
            for (u, br) in upd.iter().zip([&mut *then_body, &mut *else_body]) {
                let mut types = types.clone();
                note(br, &mut types);
                let (e, v) = match u {
                    Some(t) => match take_update(br, *t, &types, names) {
                        Some(r) => r,
                        None => return false,
                    },
                    None => {
                        // No row set: index -1, which the histogram skips, and a neutral row.
                        let v = fresh(names, m.zeros);
                        br.stms.push(Stm {
                            pat: vec![Param { var: v, ty: row_ty.clone() }],
                            exp: Exp::Replicate { shape: vec![dd], value: m.neutral },
                            span,
                        });
                        (Atom::Const(PrimValue::I64(-1)), Atom::Var(v))
                    }
                };
                br.result[j] = e;
                br.result.push(v);
            }
            ret[j] = i64t.clone();
            ret.push(row_ty.clone());
            let ie = fresh(names, m.zeros);
            let rv = fresh(names, m.zeros);
            let pat = &mut lam.body.stms[at].pat;
            pat[j] = Param { var: ie, ty: i64t.clone() };
            pat.push(Param { var: rv, ty: row_ty.clone() });
            (Atom::Var(ie), Atom::Var(rv))
        }
    };
    lam.body.result[m.res] = idx;
    lam.body.result.push(row);
    lam.ret[m.res] = i64t.clone();
    lam.ret.push(row_ty.clone());
    let h = b.stms[m.map].pat[m.res].var;
    let is_ty = Type::Array { elem: PrimType::Int(IntType::I64), shape: vec![wd] };
    let is_all = Param { var: fresh(names, h), ty: is_ty };
    let rows_all = Param { var: fresh(names, h), ty: Type::Array { elem, shape: vec![wd, dd] } };
    {
        let s = &mut b.stms[m.map];
        let Exp::Map { lam: l, .. } = &mut s.exp else { return false };
        *l = lam;
        s.pat[m.res] = is_all.clone();
        s.pat.push(rows_all.clone());
    }

    // The flat index of each row element, `e·d + t` (negative when `e` is), then one
    // histogram of the rows' elements.
    let red = b.stms[m.reduce].clone();
    let Exp::Reduce { lam: rop, .. } = &red.exp else { return false };
    let Some(op) = elementwise(rop).cloned() else { return false };
    let i64p = PrimType::Int(IntType::I64);
    let mut stms = Vec::new();
    let iota = fresh(names, h);
    stms.push(Stm {
        pat: vec![Param { var: iota, ty: Type::Array { elem: i64p, shape: vec![dd] } }],
        exp: Exp::Iota {
            n: dim_atom(dd),
            start: Atom::Const(PrimValue::I64(0)),
            step: Atom::Const(PrimValue::I64(1)),
            it: IntType::I64,
        },
        span,
    });
    let (e, t, base, at) = (fresh(names, h), fresh(names, h), fresh(names, h), fresh(names, h));
    let scalar = |v: Var| Param { var: v, ty: Type::Prim(i64p) };
    let inner = Lambda {
        params: vec![scalar(t)],
        body: Body {
            stms: vec![Stm {
                pat: vec![scalar(at)],
                exp: Exp::BinOp(BinOp::Add, i64p, Atom::Var(base), Atom::Var(t)),
                span,
            }],
            result: vec![Atom::Var(at)],
        },
        ret: vec![Type::Prim(i64p)],
    };
    let row_idx = fresh(names, h);
    let row_idx_ty = Type::Array { elem: i64p, shape: vec![dd] };
    let outer = Lambda {
        params: vec![scalar(e)],
        body: Body {
            stms: vec![
                Stm {
                    pat: vec![scalar(base)],
                    exp: Exp::BinOp(BinOp::Mul, i64p, Atom::Var(e), dim_atom(dd)),
                    span,
                },
                Stm {
                    pat: vec![Param { var: row_idx, ty: row_idx_ty.clone() }],
                    exp: Exp::Map { w: dim_atom(dd), lam: inner, arrs: vec![iota] },
                    span,
                },
            ],
            result: vec![Atom::Var(row_idx)],
        },
        ret: vec![row_idx_ty],
    };
    let flat_is = fresh(names, h);
    stms.push(Stm {
        pat: vec![Param { var: flat_is, ty: Type::Array { elem: i64p, shape: vec![wd, dd] } }],
        exp: Exp::Map { w, lam: outer, arrs: vec![is_all.var] },
        span,
    });
    let n = product(&[wd, dd], h, span, names, &mut stms);
    let fis = flattened(flat_is, i64p, n, span, names, &mut stms);
    let fvs = flattened(rows_all.var, elem, n, span, names, &mut stms);
    let res = red.pat[0].clone();
    let nb = product(&[kd, dd], res.var, span, names, &mut stms);
    let pairs = Pairs { is: fis, vs: fvs, n };
    histogram_of(res, nb, m.neutral, op, pairs, red.span, names, &mut stms);
    b.stms.splice(m.reduce..=m.reduce, stms);
    true
}

#[cfg(test)]
mod tests {
    use crate::ir::print::print_program;
    use crate::opt::testing::{compile, run};

    fn rewritten(src: &str, entry: &str, args: &str) -> (String, String, Result<String, String>) {
        crate::opt::testing::rewritten_by(src, entry, args, super::summed_rows_as_histograms)
    }

    /// k-means' cost: each point's adjoint of the centers is one-hot, its nearest center's row.
    const KMEANS: &str = "
        def cost [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) : f64 =
          let dist p c = f64.sum (map2 (\\a b -> (a - b) * (a - b)) p c)
          in f64.sum (map (\\p -> f64.minimum (map (dist p) centers)) points)
        entry main [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
          vjp (cost points) centers 1";

    /// The centers' adjoint is a histogram of the points' rows at their nearest centers, with
    /// the same results; no array of all centers is made per point.
    #[test]
    fn one_hot_adjoints_are_a_histogram_of_rows() {
        let args = "[[0.0, 0.0], [1.0, 0.0], [10.0, 10.0], [11.0, 10.0], [0.0, 2.0]] \
                    [[1.0, 1.0], [9.0, 9.0], [50.0, 50.0]]";
        let (after, expected, got) = rewritten(KMEANS, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        let one_line = expected.replace("\n ", " ");
        assert_eq!(one_line, "[[4.0f64, 2.0f64], [-6.0f64, -4.0f64], [0.0f64, 0.0f64]]");
        let main = &after[after.find("fun main").expect("main")..];
        assert!(!main.contains("reduce_comm(n_") && main.contains("hist("), "{after}");
        assert!(!main.contains(" with ["), "{after}");
    }

    /// An update out of bounds still fails, with the update's message.
    #[test]
    fn rows_out_of_bounds_still_fail() {
        let src = "entry main [n][d] (k: i64) (es: [n]i64) (rows: [n][d]f32) : [k][d]f32 =
                     let hs = map2 (\\e r -> replicate k (replicate d 0) with [e] = r) es rows
                     in reduce (map2 (map2 (+))) (replicate k (replicate d 0)) hs";
        let ok = "2i64 [1i64, 0i64, 1i64] [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32]]";
        let (after, expected, got) = rewritten(src, "main", ok);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(expected.replace("\n ", " "), "[[3.0f32, 4.0f32], [6.0f32, 8.0f32]]");
        let (c, _) = compile(src);
        let mut c2 = c.clone();
        c2.ir = crate::opt::for_backends(&c2.ir);
        assert!(super::summed_rows_as_histograms(&mut c2.ir));
        let bad = "2i64 [1i64, 2i64] [[1f32, 2f32], [3f32, 4f32]]";
        let (before, after) = (run(&c, "main", bad), run(&c2, "main", bad));
        assert!(before.as_ref().is_err_and(|e| e.contains("out of bounds")), "{before:?}");
        assert_eq!(before, after);
    }

    /// A sum whose arrays are not neutral but for one row stays as it is.
    #[test]
    fn other_sums_of_updates_stay() {
        let (mut c, _) = compile(
            "entry main [n][d] (k: i64) (es: [n]i64) (rows: [n][d]f32) : [k][d]f32 =
               let hs = map2 (\\e r -> replicate k (replicate d 1) with [e] = r) es rows
               in reduce (map2 (map2 (+))) (replicate k (replicate d 0)) hs",
        );
        c.ir = crate::opt::for_backends(&c.ir);
        assert!(!super::summed_rows_as_histograms(&mut c.ir), "{}", print_program(&c.ir));
    }
}
