//! Arrays of a few elements kept in scalars. A `map` or `reduce` of a constant width of at most
//! [`MAX_WIDTH`] with a function of scalars is unrolled: its elements are read one by one and a
//! `map`'s results become array literals. A read at a constant index of an array literal is the
//! element itself, and of a row read at fixed indices a read of the array it came from (an
//! element of a `replicate` becomes its value in `simplify`, `checks.rs`). An `if` whose result
//! is such an array, read only at constant indices, returns its elements instead.
//!
//! Points in space (`[3]f64`) are the usual case: `map2 (-) ps[i] ps[j]` and its derivative
//! would otherwise allocate, fill and loop over three-element arrays once per pair of points;
//! unrolled, they are a few scalar operations, and the arrays die. The interpreter folds a
//! `reduce` from its neutral element in index order, as the unrolled code does, so results
//! agree exactly.

use std::collections::{HashMap, HashSet};

use crate::ad::walk;
use crate::ir::lower::rewrite::for_each_body_mut;
use crate::ir::*;
use crate::prim::PrimValue;

/// The widest `map` or `reduce` that is unrolled.
const MAX_WIDTH: i64 = 4;
/// The most statements an unrolled `map` or `reduce` may take (its body's, times its width), so
/// code stays small.
const MAX_STMS: usize = 96;

/// Rewrite every function of `prog` (see the module's comment); whether anything changed.
pub fn small_arrays_in_scalars(prog: &mut Program) -> bool {
    let mut names = std::mem::take(&mut prog.names);
    let mut changed = false;
    for f in &mut prog.funs {
        // Unrolling one `map` can leave the next one, or an `if`'s result, read only at
        // constant indices; a few rounds settle it.
        for _ in 0..4 {
            let read_only = read_only_at_constants(&mut f.body);
            let mut returned = HashSet::new();
            returned_whole(&f.body, &read_only, &mut returned);
            let mut cx =
                Cx { names: &mut names, defs: HashMap::new(), read_only, returned, changed: false };
            cx.body(&mut f.body);
            if !cx.changed {
                break;
            }
            changed = true;
        }
    }
    prog.names = names;
    changed
}

/// The arrays that every use of, anywhere in `b`, reads one element at a constant index.
fn read_only_at_constants(b: &mut Body) -> HashSet<Var> {
    fn reads(b: &Body, out: &mut HashMap<Var, usize>) {
        for s in &b.stms {
            if let Exp::Index { arr, idx } = &s.exp {
                if matches!(idx.as_slice(), [i] if constant_index(i).is_some()) {
                    *out.entry(*arr).or_default() += 1;
                }
            }
            crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| reads(b, out));
        }
    }
    let mut at_constants = HashMap::new();
    reads(b, &mut at_constants);
    let mut uses: HashMap<Var, usize> = HashMap::new();
    walk::body_vars(b, &mut |v, binder| {
        if !binder {
            *uses.entry(*v).or_default() += 1;
        }
    });
    at_constants.into_iter().filter(|(v, n)| uses.get(v) == Some(n)).map(|(v, _)| v).collect()
}

/// The arrays that a body returns as they are (a function's, a loop's, a SOAC's function's, or
/// an `if` branch's whose result is not split): a `map` writes its elements into the rows of
/// its result, which a literal would only be copied into.
fn returned_whole(b: &Body, read_only: &HashSet<Var>, out: &mut HashSet<Var>) {
    out.extend(b.result.iter().filter_map(Atom::as_var));
    branches_returned_whole(b, read_only, out);
}

/// `returned_whole` for the bodies inside `b`'s statements.
fn branches_returned_whole(b: &Body, read_only: &HashSet<Var>, out: &mut HashSet<Var>) {
    for s in &b.stms {
        match &s.exp {
            Exp::If { then_body, else_body, .. } => {
                for b in [then_body, else_body] {
                    let kept =
                        b.result.iter().zip(&s.pat).filter(|(_, p)| !read_only.contains(&p.var));
                    out.extend(kept.filter_map(|(r, _)| r.as_var()));
                    branches_returned_whole(b, read_only, out);
                }
            }
            e => crate::ir::lower::rewrite::for_each_body(e, &mut |b| {
                returned_whole(b, read_only, out)
            }),
        }
    }
}

/// `k` for the constant index `k`.
fn constant_index(i: &DimIndex) -> Option<i64> {
    match i {
        DimIndex::Fix(Atom::Const(PrimValue::I64(k))) => Some(*k),
        _ => None,
    }
}

fn constant(k: i64) -> Atom {
    Atom::Const(PrimValue::I64(k))
}

fn small(k: &i64) -> bool {
    (1..=MAX_WIDTH).contains(k)
}

/// A constant width in `1..=MAX_WIDTH`.
fn small_width(w: &Atom) -> Option<i64> {
    match w {
        Atom::Const(PrimValue::I64(k)) if small(k) => Some(*k),
        _ => None,
    }
}

/// A one-dimensional array type of a small constant length, with its element type.
fn small_array(t: &Type) -> Option<(i64, Type)> {
    match t {
        Type::Array { elem, shape } => match shape.as_slice() {
            [Dim::Const(k)] if small(k) => Some((*k, Type::Prim(*elem))),
            _ => None,
        },
        Type::Prim(_) => None,
    }
}

/// A function of scalars to scalars whose body computes only scalars, without loops, SOACs or
/// calls; and the number of statements in it.
fn scalar_lambda(lam: &Lambda) -> Option<usize> {
    let scalar = |t: &Type| matches!(t, Type::Prim(_));
    if !lam.params.iter().all(|p| scalar(&p.ty)) || !lam.ret.iter().all(scalar) {
        return None;
    }
    scalar_body(&lam.body)
}

fn scalar_body(b: &Body) -> Option<usize> {
    let mut n = 0;
    for s in &b.stms {
        if !s.pat.iter().all(|p| matches!(p.ty, Type::Prim(_))) {
            return None;
        }
        n += 1 + match &s.exp {
            Exp::Atom(_)
            | Exp::UnOp(..)
            | Exp::BinOp(..)
            | Exp::Cmp(..)
            | Exp::Convert { .. }
            | Exp::Math(..)
            | Exp::Select(..)
            | Exp::Index { .. }
            | Exp::Assert { .. } => 0,
            Exp::If { then_body, else_body, .. } => {
                scalar_body(then_body)? + scalar_body(else_body)?
            }
            _ => return None,
        };
    }
    Some(n)
}

struct Cx<'a> {
    names: &'a mut Vec<String>,
    /// Arrays whose elements can be had without them: literals and rows read at fixed indices,
    /// by their definitions.
    defs: HashMap<Var, Exp>,
    /// Arrays read only at constant indices (`read_only_at_constants`).
    read_only: HashSet<Var>,
    /// Arrays returned whole (`returned_whole`).
    returned: HashSet<Var>,
    changed: bool,
}

impl Cx<'_> {
    fn fresh(&mut self, like: Var) -> Var {
        let name = self.names.get(like.0 as usize).cloned().unwrap_or_default();
        self.names.push(name);
        Var(self.names.len() as u32 - 1)
    }

    fn body(&mut self, b: &mut Body) {
        let mut out = Vec::with_capacity(b.stms.len());
        for mut s in std::mem::take(&mut b.stms) {
            for_each_body_mut(&mut s.exp, &mut |b| self.body(b));
            if let Some(stms) = self.unrolled(&s) {
                self.changed = true;
                for t in stms {
                    self.push(t, &mut out);
                }
                continue;
            }
            let after = self.split_if(&mut s);
            self.push(s, &mut out);
            for t in after {
                self.push(t, &mut out);
            }
        }
        b.stms = out;
    }

    /// Emit `s` with its reads forwarded, and remember what it defines.
    fn push(&mut self, mut s: Stm, out: &mut Vec<Stm>) {
        if let Some(e) = self.forwarded(&s) {
            s.exp = e;
            self.changed = true;
        }
        if let [p] = s.pat.as_slice() {
            let keep = match &s.exp {
                Exp::ArrayLit { .. } => true,
                Exp::Index { idx, .. } => {
                    p.ty.rank() > 0 && idx.iter().all(|i| matches!(i, DimIndex::Fix(_)))
                }
                _ => false,
            };
            if keep {
                self.defs.insert(p.var, s.exp.clone());
            }
        }
        out.push(s);
    }

    /// What a read of `s` is without the array it reads, if anything.
    fn forwarded(&self, s: &Stm) -> Option<Exp> {
        let Exp::Index { arr, idx } = &s.exp else { return None };
        match self.defs.get(arr)? {
            Exp::ArrayLit { elems, .. } => {
                let (first, rest) = idx.split_first()?;
                let k = constant_index(first)?;
                let elem = *elems.get(usize::try_from(k).ok()?)?;
                match (rest, elem) {
                    ([], _) => Some(Exp::Atom(elem)),
                    (_, Atom::Var(row)) => Some(Exp::Index { arr: row, idx: rest.to_vec() }),
                    _ => None,
                }
            }
            // `xs = m[i]` was in scope, so `m` was not consumed before this read of `xs`.
            Exp::Index { arr: m, idx: fixed } => {
                let idx = fixed.iter().chain(idx).cloned().collect();
                Some(Exp::Index { arr: *m, idx })
            }
            _ => None,
        }
    }

    /// `s` unrolled, if it is a small `map` or `reduce` of a scalar function.
    fn unrolled(&mut self, s: &Stm) -> Option<Vec<Stm>> {
        match &s.exp {
            Exp::Map { w, lam, arrs } => {
                let k = small_width(w)?;
                if scalar_lambda(lam)? * k as usize > MAX_STMS
                    || !s.pat.iter().all(|p| {
                        small_array(&p.ty).is_some_and(|(n, _)| n == k)
                            && !self.returned.contains(&p.var)
                    })
                {
                    return None;
                }
                let mut stms = Vec::new();
                let mut elems: Vec<Vec<Atom>> = vec![Vec::new(); s.pat.len()];
                for j in 0..k {
                    let mut subst = HashMap::new();
                    for (p, arr) in lam.params.iter().zip(arrs) {
                        stms.push(self.element(p, *arr, j, s.span, &mut subst));
                    }
                    let body = self.renamed(&lam.body, subst);
                    stms.extend(body.stms);
                    for (e, r) in elems.iter_mut().zip(body.result) {
                        e.push(r);
                    }
                }
                for (p, elems) in s.pat.iter().zip(elems) {
                    let elem_ty = Type::Prim(p.ty.elem());
                    let exp = Exp::ArrayLit { elems, elem_ty };
                    stms.push(Stm { pat: vec![p.clone()], exp, span: s.span });
                }
                Some(stms)
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                let k = small_width(w)?;
                if scalar_lambda(lam)? * k as usize > MAX_STMS {
                    return None;
                }
                let (accs, elems) = lam.params.split_at(neutral.len());
                let mut stms = Vec::new();
                let mut acc = neutral.clone();
                for j in 0..k {
                    let mut subst = HashMap::new();
                    for (p, a) in accs.iter().zip(&acc) {
                        match a {
                            Atom::Var(v) => {
                                subst.insert(p.var, *v);
                            }
                            Atom::Const(_) => {
                                let v = self.fresh(p.var);
                                subst.insert(p.var, v);
                                let pat = vec![Param { var: v, ty: p.ty.clone() }];
                                stms.push(Stm { pat, exp: Exp::Atom(*a), span: s.span });
                            }
                        }
                    }
                    for (p, arr) in elems.iter().zip(arrs) {
                        stms.push(self.element(p, *arr, j, s.span, &mut subst));
                    }
                    let body = self.renamed(&lam.body, subst);
                    stms.extend(body.stms);
                    acc = body.result;
                }
                for (p, a) in s.pat.iter().zip(acc) {
                    stms.push(Stm { pat: vec![p.clone()], exp: Exp::Atom(a), span: s.span });
                }
                Some(stms)
            }
            _ => None,
        }
    }

    /// `let p' = arr[j]`, with `p ↦ p'` recorded in `subst`.
    fn element(
        &mut self,
        p: &Param,
        arr: Var,
        j: i64,
        span: crate::diag::Span,
        subst: &mut HashMap<Var, Var>,
    ) -> Stm {
        let v = self.fresh(p.var);
        subst.insert(p.var, v);
        let exp = Exp::Index { arr, idx: vec![DimIndex::Fix(constant(j))] };
        Stm { pat: vec![Param { var: v, ty: p.ty.clone() }], exp, span }
    }

    /// A copy of `b` with `subst` applied and fresh variables for everything it binds, so every
    /// variable stays bound once in the program.
    fn renamed(&mut self, b: &Body, mut subst: HashMap<Var, Var>) -> Body {
        let mut b = b.clone();
        walk::body_vars(&mut b, &mut |v, binder| {
            if binder {
                let w = self.fresh(*v);
                subst.insert(*v, w);
            }
        });
        walk::body_vars(&mut b, &mut |v, _| {
            if let Some(w) = subst.get(v) {
                *v = *w;
            }
        });
        b
    }

    /// For an `if` with results that are small arrays read only at constant indices: each
    /// branch returns their elements instead, and the statements returned rebuild the arrays
    /// after it (as literals, whose elements later reads then take).
    fn split_if(&mut self, s: &mut Stm) -> Vec<Stm> {
        let Exp::If { then_body, else_body, ret, .. } = &mut s.exp else { return Vec::new() };
        let split: Vec<Option<(i64, Type)>> = s
            .pat
            .iter()
            .zip(ret.iter())
            .map(|(p, t)| {
                let small = small_array(&p.ty).filter(|_| self.read_only.contains(&p.var));
                small.filter(|(k, _)| small_array(t).is_some_and(|(n, _)| n == *k))
            })
            .collect();
        let vars = |b: &Body| {
            b.result.iter().zip(&split).all(|(r, how)| how.is_none() || matches!(r, Atom::Var(_)))
        };
        if split.iter().all(Option::is_none) || !vars(then_body) || !vars(else_body) {
            return Vec::new();
        }
        self.changed = true;
        for b in [&mut *then_body, &mut *else_body] {
            let mut result = Vec::new();
            let mut reads = Vec::new();
            for (r, how) in b.result.iter().zip(&split) {
                match (how, r) {
                    (Some((k, elem)), Atom::Var(arr)) => {
                        for j in 0..*k {
                            let v = self.fresh(*arr);
                            let exp =
                                Exp::Index { arr: *arr, idx: vec![DimIndex::Fix(constant(j))] };
                            reads.push(Stm {
                                pat: vec![Param { var: v, ty: elem.clone() }],
                                exp,
                                span: s.span,
                            });
                            result.push(Atom::Var(v));
                        }
                    }
                    _ => result.push(*r),
                }
            }
            for t in reads {
                self.push(t, &mut b.stms);
            }
            b.result = result;
        }
        let mut pat = Vec::new();
        let mut types = Vec::new();
        let mut after = Vec::new();
        for ((p, t), how) in s.pat.iter().zip(ret.iter()).zip(&split) {
            match how {
                Some((k, elem)) => {
                    let elems: Vec<Atom> = (0..*k)
                        .map(|_| {
                            let v = self.fresh(p.var);
                            pat.push(Param { var: v, ty: elem.clone() });
                            types.push(elem.clone());
                            Atom::Var(v)
                        })
                        .collect();
                    let exp = Exp::ArrayLit { elems, elem_ty: elem.clone() };
                    after.push(Stm { pat: vec![p.clone()], exp, span: s.span });
                }
                None => {
                    pat.push(p.clone());
                    types.push(t.clone());
                }
            }
        }
        s.pat = pat;
        *ret = types;
        after
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::print::print_program;
    use crate::opt::testing::{compile, run};

    /// The program after this pass and `simplify`, validated, as text; and its results on
    /// `args` before and after.
    fn rewritten(src: &str, entry: &str, args: &str) -> (String, String, Result<String, String>) {
        let (mut c, before) = compile(src);
        let expected = run(&c, entry, args).unwrap_or_else(|e| panic!("{e}\n{before}"));
        assert!(super::small_arrays_in_scalars(&mut c.ir), "nothing rewritten:\n{before}");
        crate::opt::simplify(&mut c.ir);
        crate::ir::validate::validate(&c.ir).expect("valid IR");
        let after = print_program(&c.ir);
        (after, expected, run(&c, entry, args))
    }

    const PAIRS: &str = "
        def energy [n] (ps: [n][3]f64) : f64 =
          f64.sum (map (\\i -> f64.sum (map (\\j ->
            if i >= j then 0
            else let d = map2 (-) ps[i] ps[j]
                 in 1 / f64.sqrt (f64.sum (map (\\x -> x * x) d) + 0.01)) (iota n))) (iota n))
        entry main [n] (ps: [n][3]f64) = (energy ps, vjp energy ps 1)";

    /// Differences of points, their squares, the sum, and the derivative's arrays of three
    /// adjoints are all scalars; the results are the same.
    #[test]
    fn points_and_their_adjoints_are_scalars() {
        let args = "[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0], [1.0, -1.0, 0.5]]";
        let (after, expected, got) = rewritten(PAIRS, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        // The one small `map` left adds rows of adjoints, which it returns whole.
        assert_eq!(after.matches("map(3i64").count(), 1, "{after}");
        assert!(after.contains(": [3]f64) : [3]f64 ->"), "{after}");
        assert!(!after.contains("reduce_comm(3i64"), "{after}");
        // Coordinates are read from the points' array, not from rows of it.
        assert!(after.contains(", 2i64]"), "{after}");
        // The three adjoints of `ps[i]` and of `ps[j]` leave the `if` as scalars.
        let ifs = after.lines().filter(|l| l.trim_start().starts_with("if "));
        assert!(ifs.clone().count() >= 2 && ifs.clone().all(|l| !l.contains('[')), "{after}");
        assert!(!after.contains(": [3]f64 = replicate"), "{after}");
    }

    /// A small `map` whose result is returned whole (here, a row of the result) stays a `map`,
    /// which writes the row in place; one read only at constant indices is unrolled.
    #[test]
    fn rows_returned_whole_stay_maps() {
        let src = "entry main [n] (ps: [n][3]f32) : ([n][3]f32, [n]f32) =
          (map (\\p -> map (\\x -> 2 * x) p) ps,
           map (\\p -> let q = map (\\x -> x + 1) p in q[0] * q[2]) ps)";
        let args = "[[1.0f32, 2.0f32, 3.0f32], [-1.0f32, 0.5f32, 4.0f32]]";
        let (after, expected, got) = rewritten(src, "main", args);
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert_eq!(after.matches("map(3i64").count(), 1, "{after}");
        // `q` is gone, and so is its unread element.
        assert_eq!(after.matches(": [3]f32 =").count(), 1, "{after}");
        assert_eq!(after.matches(" + 1.0f32").count(), 2, "{after}");
    }

    /// An `if` whose small array result is read only at constant indices returns the elements;
    /// a read outside a literal stays, and still fails.
    #[test]
    fn split_results_and_failing_reads() {
        let src = "entry main (c: bool) (x: f32) (k: i64) : (f32, f32) =
          let a = if c then [x, 2 * x, 3] else map (\\y -> y - x) [1, 2, 3]
          let b = [x, x + 1]
          in (a[0] + a[2], b[k])";
        let (after, expected, got) = rewritten(src, "main", "true 1.5f32 1i64");
        assert_eq!(got.as_ref(), Ok(&expected), "{after}");
        assert!(!after.contains("[3]f32"), "{after}");
        let (c, _) = compile(src);
        let mut ir = c.ir.clone();
        super::small_arrays_in_scalars(&mut ir);
        let c2 = crate::driver::Compiled { ir, ..c };
        let err = run(&c2, "main", "false 1.5f32 2i64").expect_err("out of bounds");
        assert!(err.contains("out of bounds"), "{err}");
    }
}
