//! A sum over a `map` of histograms made into one histogram of all of the map's pairs:
//!
//! ```text
//! let H = map (\i -> ... let h = hist op (replicate b ne) ne is vs in h) xs
//! let r = reduce (map2 op) (replicate b ne) H
//! ```
//!
//! becomes the map returning `is` and `vs` for every element, and `r = hist op ne (flatten IS)
//! (flatten VS)` into fresh bins. Reverse mode gives this shape to the adjoint of an array read
//! at computed indices in a doubly nested map: n-body's positions, read at `ps[i]` and `ps[j]`
//! for every pair, have per `i` a histogram of the pairs' contributions, summed over `i`. Per bin,
//! the flat histogram folds the same values in the same (row-major) order, so only the
//! grouping of `op` changes, which `reduce` already leaves open.
//!
//! The GPU backend runs it (`backend::wgsl`): its histogram adds each pair atomically where the
//! map computes it, so neither the `[n][b]` bins nor the pairs are stored. The wasm backend does
//! not: its threads each sum whole rows of `H`, and the histograms inside, on one thread, add
//! the pairs as they are made; one histogram of all pairs would race between threads.
//!
//! The map's result `h` (or a `reshape` of it) must be used only as that result and by that one
//! `reduce`, the histogram's operator a single binary operator (the reduction's, lifted to the
//! rows), both starting from the same constant neutral element, and `is` and `vs` (or the arrays
//! they `reshape`) of a shape that names only sizes known outside the map.

use std::collections::HashSet;

use crate::ad::walk;
use crate::diag::Span;
use crate::ir::lower::builder::atom_dim;
use crate::ir::operators::{elementwise, single_operator};
use crate::ir::*;
use crate::prim::{IntType, PrimType};

/// Rewrite every sum of histograms in `prog` (see the module's comment); whether any was.
pub fn summed_histograms_as_one(prog: &mut Program) -> bool {
    every_body(prog, &mut |b, names| find(b).map(|m| apply(b, m, names)).is_some())
}

/// Apply `once` to every body of `prog`, innermost first, until it rewrites nothing more there
/// (it returns whether it rewrote something); then remove what the rewrites left dead (the
/// histograms, bins and reshapes inside the maps). Whether anything changed.
pub(super) fn every_body(
    prog: &mut Program,
    once: &mut impl FnMut(&mut Body, &mut Vec<String>) -> bool,
) -> bool {
    fn body(
        b: &mut Body,
        names: &mut Vec<String>,
        once: &mut impl FnMut(&mut Body, &mut Vec<String>) -> bool,
    ) -> bool {
        let mut changed = false;
        for s in &mut b.stms {
            crate::ir::lower::rewrite::for_each_body_mut(&mut s.exp, &mut |b| {
                changed |= body(b, names, once);
            });
        }
        while once(b, names) {
            changed = true;
        }
        changed
    }
    let mut names = std::mem::take(&mut prog.names);
    let mut changed = false;
    for f in &mut prog.funs {
        if body(&mut f.body, &mut names, once) {
            crate::ir::lower::dce(&mut f.body);
            changed = true;
        }
    }
    prog.names = names;
    changed
}

/// A sum of histograms found in a body.
struct Match {
    /// The map's statement and the result that holds the histograms.
    map: usize,
    res: usize,
    /// The reduction's statement.
    reduce: usize,
    /// In the map's function: the histogram's statement, and the reshape of its result that the
    /// function returns, if any.
    hist: usize,
    reshape: Option<usize>,
    /// What the function returns instead: the indices' and values' arrays (or those they are
    /// reshaped from), of one shape.
    is: Param,
    vs: Param,
    neutral: Atom,
}

fn find(b: &Body) -> Option<Match> {
    in_maps(b, |k, w, lam, r, p| matched(b, k, w, lam, r, p.var))
}

/// The first match `f` finds at a map's result in `b`: `f` gets the map's statement, width and
/// function, and the result's index and parameter.
pub(super) fn in_maps<M>(
    b: &Body,
    f: impl Fn(usize, Atom, &Lambda, usize, &Param) -> Option<M>,
) -> Option<M> {
    b.stms.iter().enumerate().find_map(|(k, s)| match &s.exp {
        Exp::Map { w, lam, .. } => s.pat.iter().enumerate().find_map(|(r, p)| f(k, *w, lam, r, p)),
        _ => None,
    })
}

/// Statement `k` of `b`, a map with function `lam`, whose result `r`, `h`, is summed (see the
/// module's comment).
fn matched(b: &Body, k: usize, w: Atom, lam: &Lambda, r: usize, h: Var) -> Option<Match> {
    let (red, neutral, op) = summed(b, k, w, h)?;
    let fb = &lam.body;
    let bound = binders(lam);
    let def = |v: Var| fb.stms.iter().position(|t| t.pat.iter().any(|p| p.var == v));
    let Some(Atom::Var(mut res)) = fb.result.get(r).copied() else { return None };
    if uses(fb, res) != 1 {
        return None;
    }
    let mut reshape = None;
    let mut at = def(res)?;
    if let Exp::Reshape { arr, .. } = &fb.stms[at].exp {
        reshape = Some(at);
        res = *arr;
        if uses(fb, res) != 1 {
            return None;
        }
        at = def(res)?;
    }
    let Exp::Hist { dest, lam: hop, neutral: hne, is, vs, .. } = &fb.stms[at].exp else {
        return None;
    };
    let ([d], [hne], [v]) = (dest.as_slice(), hne.as_slice(), vs.as_slice()) else { return None };
    let (hop, hop_t, _) = single_operator(hop)?;
    let bins_neutral = def(*d).and_then(|j| match &fb.stms[j].exp {
        Exp::Replicate { value, .. } => Some(*value),
        _ => None,
    });
    let same = matches!(neutral, Atom::Const(_))
        && *hne == neutral
        && bins_neutral == Some(neutral)
        && (hop, hop_t) == (op.0, op.1);
    if !same {
        return None;
    }
    // The arrays the function can return: their shapes name only sizes bound outside it.
    let outer = |a: Var| -> Option<Param> {
        let ty = type_in(lam, a)?;
        let known = shape(&ty).iter().all(|d| !matches!(d, Dim::Var(x) if bound.contains(x)));
        known.then_some(Param { var: a, ty })
    };
    let unflattened = |a: Var| match def(a).map(|j| &fb.stms[j].exp) {
        Some(Exp::Reshape { arr, .. }) => outer(*arr),
        _ => None,
    };
    // Both flattened from arrays of one shape (the contributions' literals of reverse mode),
    // or else both as they are: the pairs must stay in step.
    let (is, vs) = match (unflattened(*is), unflattened(*v)) {
        (Some(i), Some(x)) if shape(&i.ty) == shape(&x.ty) => (i, x),
        _ => (outer(*is)?, outer(*v)?),
    };
    Some(Match { map: k, res: r, reduce: red, hist: at, reshape, is, vs, neutral })
}

/// The `reduce` after statement `k` of `b` (a map of width `w`) that is the only use of its
/// result `h`, with an operator lifted from a single binary one and a neutral element that is
/// a `replicate` of a scalar: the reduction's statement, that scalar and the operator.
pub(super) fn summed(
    b: &Body,
    k: usize,
    w: Atom,
    h: Var,
) -> Option<(usize, Atom, (BinOp, PrimType))> {
    let found = b.stms.iter().enumerate().skip(k + 1).find_map(|(j, t)| match &t.exp {
        Exp::Reduce { w: w2, lam: op, neutral, arrs, .. }
            if *w2 == w && arrs.as_slice() == [h] && t.pat.len() == 1 =>
        {
            let [Atom::Var(z)] = neutral.as_slice() else { return None };
            let (op, t, _) = single_operator(elementwise(op)?)?;
            Some((j, replicated(b, *z)?, (op, t)))
        }
        _ => None,
    })?;
    (uses(b, h) == 1).then_some(found)
}

/// A fresh variable named as `like`.
pub(super) fn fresh(names: &mut Vec<String>, like: Var) -> Var {
    let name = names.get(like.0 as usize).cloned().unwrap_or_default();
    names.push(name);
    Var(names.len() as u32 - 1)
}

/// The product of `dims`, with the statements computing it (at `span`) pushed to `stms`.
pub(super) fn product(
    dims: &[Dim],
    like: Var,
    span: crate::diag::Span,
    names: &mut Vec<String>,
    stms: &mut Vec<Stm>,
) -> Dim {
    let mut acc = Dim::Const(1);
    for d in dims {
        acc = match (acc, *d) {
            (Dim::Const(x), Dim::Const(y)) => Dim::Const(x * y),
            (Dim::Const(1), d) => d,
            (a, d) => {
                let v = fresh(names, like);
                let i64t = PrimType::Int(IntType::I64);
                stms.push(Stm {
                    pat: vec![Param { var: v, ty: Type::Prim(i64t) }],
                    exp: Exp::BinOp(BinOp::Mul, i64t, dim_atom(a), dim_atom(d)),
                    span,
                });
                Dim::Var(v)
            }
        };
    }
    acc
}

fn apply(b: &mut Body, m: Match, names: &mut Vec<String>) {
    let span = b.stms[m.map].span;
    let Exp::Map { w, lam, .. } = &mut b.stms[m.map].exp else { return };
    let w = *w;
    let Some(wd) = atom_dim(w) else { return };
    // The function returns the pairs instead of their histogram; the histogram statement
    // leaves it, with its operator (a lambda without free variables), for the flat one.
    let hist = lam.body.stms[m.hist].clone();
    let mut dead = vec![m.hist];
    dead.extend(m.reshape);
    dead.sort_unstable();
    for j in dead.into_iter().rev() {
        lam.body.stms.remove(j);
    }
    lam.body.result[m.res] = Atom::Var(m.is.var);
    lam.body.result.push(Atom::Var(m.vs.var));
    lam.ret[m.res] = m.is.ty.clone();
    lam.ret.push(m.vs.ty.clone());
    let outer = |p: &Param, var: Var| {
        let mut sh = vec![wd];
        sh.extend(shape(&p.ty));
        Param { var, ty: Type::Array { elem: p.ty.elem(), shape: sh } }
    };
    let is_all = outer(&m.is, fresh(names, m.is.var));
    let vs_all = outer(&m.vs, fresh(names, m.vs.var));
    b.stms[m.map].pat[m.res] = is_all.clone();
    b.stms[m.map].pat.push(vs_all.clone());

    let red = b.stms[m.reduce].clone();
    let mut stms = Vec::new();
    let n = product(&shape(&is_all.ty), m.is.var, span, names, &mut stms);
    let res = red.pat[0].clone();
    let nb = product(&shape(&res.ty), res.var, span, names, &mut stms);
    let fis = flattened(is_all.var, is_all.ty.elem(), n, span, names, &mut stms);
    let fvs = flattened(vs_all.var, vs_all.ty.elem(), n, span, names, &mut stms);
    let Exp::Hist { lam: hop, .. } = hist.exp else { return };
    let pairs = Pairs { is: fis, vs: fvs, n };
    histogram_of(res, nb, m.neutral, hop, pairs, red.span, names, &mut stms);
    b.stms.splice(m.reduce..=m.reduce, stms);
}

/// `v` reshaped to `[n]` (binding a fresh variable in `stms`).
pub(super) fn flattened(
    v: Var,
    elem: PrimType,
    n: Dim,
    span: Span,
    names: &mut Vec<String>,
    stms: &mut Vec<Stm>,
) -> Var {
    let f = fresh(names, v);
    stms.push(Stm {
        pat: vec![Param { var: f, ty: Type::Array { elem, shape: vec![n] } }],
        exp: Exp::Reshape { arr: v, shape: vec![n] },
        span,
    });
    f
}

/// `n` (index, value) pairs in two flat arrays.
pub(super) struct Pairs {
    pub is: Var,
    pub vs: Var,
    pub n: Dim,
}

/// `res` as the histogram by `op` of `pairs` into `nb` bins that start at `neutral`, reshaped to
/// `res`'s shape when it has more than one dimension: the statements, pushed to `stms`.
#[allow(clippy::too_many_arguments)]
pub(super) fn histogram_of(
    res: Param,
    nb: Dim,
    neutral: Atom,
    op: Lambda,
    pairs: Pairs,
    span: Span,
    names: &mut Vec<String>,
    stms: &mut Vec<Stm>,
) {
    let bins_ty = Type::Array { elem: res.ty.elem(), shape: vec![nb] };
    let bins = fresh(names, res.var);
    stms.push(Stm {
        pat: vec![Param { var: bins, ty: bins_ty.clone() }],
        exp: Exp::Replicate { shape: vec![nb], value: neutral },
        span,
    });
    let hist = Exp::Hist {
        dest: vec![bins],
        lam: op,
        neutral: vec![neutral],
        is: pairs.is,
        vs: vec![pairs.vs],
        w: dim_atom(pairs.n),
    };
    if res.ty.rank() == 1 {
        stms.push(Stm { pat: vec![res], exp: hist, span });
        return;
    }
    let h = fresh(names, res.var);
    stms.push(Stm { pat: vec![Param { var: h, ty: bins_ty }], exp: hist, span });
    let sh = shape(&res.ty);
    stms.push(Stm { pat: vec![res], exp: Exp::Reshape { arr: h, shape: sh }, span });
}

pub(super) fn dim_atom(d: Dim) -> Atom {
    crate::ir::lower::builder::dim_atom(d)
}

pub(super) fn shape(t: &Type) -> Vec<Dim> {
    match t {
        Type::Array { shape, .. } => shape.clone(),
        Type::Prim(_) => Vec::new(),
    }
}

/// The scalar that `v`, bound in `b` by a `replicate` (of a scalar, or of such a replicate),
/// repeats.
pub(super) fn replicated(b: &Body, v: Var) -> Option<Atom> {
    let value = b.stms.iter().find_map(|s| match &s.exp {
        Exp::Replicate { value, .. } if s.pat.iter().any(|p| p.var == v) => Some(*value),
        _ => None,
    })?;
    match value {
        Atom::Var(u) => replicated(b, u).or(Some(value)),
        Atom::Const(_) => Some(value),
    }
}

/// How often `v` is read in `b` (its statements and its result).
pub(super) fn uses(b: &Body, v: Var) -> usize {
    let mut n = 0;
    walk::body_vars(&mut b.clone(), &mut |x, binder| n += usize::from(!binder && *x == v));
    n
}

/// Every variable `lam` binds: its parameters and everything its body binds, at any depth.
fn binders(lam: &Lambda) -> HashSet<Var> {
    let mut out: HashSet<Var> = lam.params.iter().map(|p| p.var).collect();
    walk::body_vars(&mut lam.body.clone(), &mut |v, binder| {
        if binder {
            out.insert(*v);
        }
    });
    out
}

/// The type of `v`, a parameter of `lam` or bound at the top of its body.
fn type_in(lam: &Lambda, v: Var) -> Option<Type> {
    lam.params
        .iter()
        .chain(lam.body.stms.iter().flat_map(|s| &s.pat))
        .find(|p| p.var == v)
        .map(|p| p.ty.clone())
}

#[cfg(test)]
mod tests {
    use crate::ir::print::print_program;
    use crate::opt::testing::compile;

    fn rewritten(src: &str, entry: &str, args: &str) -> (String, String, Result<String, String>) {
        crate::opt::testing::rewritten_by(src, entry, args, super::summed_histograms_as_one)
    }

    /// n-body's potential: `ms` and `ps` are read at `i` and `j` for every pair.
    const PAIRS: &str = "
        def energy [n] (ms: [n]f64) (ps: [n][3]f64) : f64 =
          f64.sum (map (\\i -> f64.sum (map (\\j ->
            if i >= j then 0
            else let d = map2 (-) ps[i] ps[j]
                 in -(ms[i] * ms[j]) / f64.sqrt (f64.sum (map (\\x -> x * x) d) + 0.01))
            (iota n))) (iota n))
        entry main [n] (ms: [n]f64) (ps: [n][3]f64) =
          vjp (\\(m, p) -> energy m p) (ms, ps) 1";

    /// The adjoints of the masses and of the positions are each one histogram of every pair's
    /// contributions, with the same results: no `[n][n]` bins are summed.
    #[test]
    fn adjoints_gathered_in_pairs_are_one_histogram_each() {
        let args = "[1.0, 2.0, 0.5, 1.5] [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0], \
                    [1.0, -1.0, 0.5]]";
        let (after, expected, got) = rewritten(PAIRS, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        let main = &after[after.find("fun main").expect("main")..];
        assert!(!main.contains("reduce"), "{after}");
        // Both histograms are at the top level, after the map making the pairs.
        let top = main.lines().filter(|l| l.starts_with("    hist("));
        assert_eq!(top.count(), 2, "{after}");
        assert_eq!(main.matches("hist(").count(), 2, "{after}");
        // The map returns each pair's literals of contributions: two for `ms`, six for `ps`.
        assert!(after.contains("][2]i64,") && after.contains("][6]i64,"), "{after}");
    }

    /// A sum of histograms that also has another use, or bins that do not start from the
    /// neutral element, stays as it is.
    #[test]
    fn other_sums_of_histograms_stay() {
        let (mut c, _) = compile(
            "entry twice [n] (is: [n][4]i64) (vs: [n][4]f32) : ([3]f32, [n][3]f32) =
               let hs = map2 (\\i v -> hist (+) 0 3 i v) is vs
               in (reduce (map2 (+)) (replicate 3 0) hs, hs)
             entry ones [n] (is: [n][4]i64) (vs: [n][4]f32) : [3]f32 =
               let hs = map2 (\\i v -> reduce_by_index (replicate 3 1) (+) 0 i v) is vs
               in reduce (map2 (+)) (replicate 3 0) hs",
        );
        c.ir = crate::opt::for_backends(&c.ir);
        assert!(!super::summed_histograms_as_one(&mut c.ir), "{}", print_program(&c.ir));
    }

    /// Out-of-bounds indices (-1, where a branch contributed nothing) still add nothing, and a
    /// sum of one-dimensional histograms needs no reshape.
    #[test]
    fn flat_sums_and_indices_out_of_bounds() {
        let src = "entry main [n] (is: [n][4]i64) (vs: [n][4]f32) : [3]f32 =
                     let hs = map2 (\\i v -> hist (+) 0 3 i v) is vs
                     in reduce (map2 (+)) (replicate 3 0) hs";
        let args = "[[0i64, -1i64, 2i64, 5i64], [2i64, 2i64, 1i64, 3i64]] \
                    [[1f32, 2f32, 3f32, 4f32], [10f32, 20f32, 30f32, 40f32]]";
        let (after, expected, got) = rewritten(src, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(expected, "[1.0f32, 30.0f32, 33.0f32]");
        assert!(!after.contains("reduce"), "{after}");
    }
}
