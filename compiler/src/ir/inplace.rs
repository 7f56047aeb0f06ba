//! Which `Update`, `Scatter` and `Hist` statements may write into their destination array
//! instead of a copy of it: those whose destination is owned (its memory belongs to no other
//! live value) and dead after the statement. Backends that store arrays in mutable memory use
//! this; without it, every such statement copies its destination first.
//!
//! The analysis is local and conservative rather than relying on the checker's uniqueness types
//! (AD and the optimiser rewrite the IR after checking). A destination `d` at statement `S` of a
//! body `B` qualifies when
//! * `d` is bound in `B` by an expression that builds a fresh array (`map`, `scan`, `replicate`,
//!   `iota`, `copy`, `concat`, an array literal, or another `Update`/`Scatter`/`Hist`), or `d` is
//!   a parameter of the loop whose body `B` is, and that loop's initial value qualifies in the
//!   enclosing body and every iteration's new value is a fresh array returned once;
//! * nothing that may share `d`'s memory (`d`, and whatever was derived from it by a statement
//!   that can alias, such as slicing, reshaping, `if`, a loop or a call) is mentioned after `S`
//!   in `B` or returned by `B`, and `S` mentions `d` only as its destination.

use std::collections::{HashMap, HashSet};

use super::lower::rewrite::walk_vars_exp;
use super::{Atom, Body, Dim, DimIndex, Exp, Program, Stm, Type, Var};
use crate::prim::PrimValue;

/// The first pattern variable of every statement that may update its destination in place.
pub fn in_place(prog: &Program) -> HashSet<Var> {
    let mut out = HashSet::new();
    for f in &prog.funs {
        let top = Scope { body: &f.body, parent: None, loop_at: None, branch_at: None };
        walk(&top, &mut out);
    }
    out
}

/// A body and where it sits: the enclosing body and the index of the loop statement whose body
/// it is (when it is a loop body), or of the `if` whose branch it is.
struct Scope<'a> {
    body: &'a Body,
    parent: Option<&'a Scope<'a>>,
    loop_at: Option<usize>,
    branch_at: Option<usize>,
}

fn walk(sc: &Scope, out: &mut HashSet<Var>) {
    for (i, s) in sc.body.stms.iter().enumerate() {
        match &s.exp {
            Exp::If { then_body, else_body, .. } => {
                for b in [then_body, else_body] {
                    walk(
                        &Scope { body: b, parent: Some(sc), loop_at: None, branch_at: Some(i) },
                        out,
                    );
                }
            }
            Exp::Loop { body, .. } => {
                walk(&Scope { body, parent: Some(sc), loop_at: Some(i), branch_at: None }, out);
            }
            Exp::Map { lam, .. } | Exp::Reduce { lam, .. } | Exp::Scan { lam, .. } => {
                walk(
                    &Scope { body: &lam.body, parent: Some(sc), loop_at: None, branch_at: None },
                    out,
                );
            }
            Exp::Hist { lam, .. } => {
                walk(
                    &Scope { body: &lam.body, parent: Some(sc), loop_at: None, branch_at: None },
                    out,
                );
            }
            _ => {}
        }
        let dests: Vec<Var> = match &s.exp {
            Exp::Update { arr, .. } => vec![*arr],
            Exp::Scatter { dest, .. } => vec![*dest],
            Exp::Hist { dest, .. } => dest.clone(),
            _ => continue,
        };
        let Some(first) = s.pat.first() else { continue };
        if dests.iter().all(|d| owned(sc, i, *d) && dead_after(sc.body, i, *d)) {
            out.insert(first.var);
        }
    }
}

/// Where a map's array result may be computed: straight into the slot `arr[idx]` that a later
/// in-place update stores it in, so the update need not copy it.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub arr: Var,
    pub idx: Vec<Atom>,
}

/// The array results of `map`s that may be computed in their slot: a result `v` of a `map` at
/// statement `m` of a body, stored by a later statement `u` of the same body, `x with [i, ...] =
/// v`, that updates `x` in place ([`in_place`]), when
/// * `v` is mentioned nowhere else (it dies at `u`), and has the slot's type;
/// * `x` and the indices exist when the map runs (bound before `m`, or outside the body), and
///   the indices are single positions, so the slot is one contiguous block;
/// * nothing from the map to the update (the map's function included) mentions `x` or
///   anything sharing its memory, so writing the slot early changes nothing another statement
///   reads.
///
/// A backend must still check the indices when the map runs (out of bounds, the update fails
/// later with its own message) and skip the update's copy only when the two are one block.
pub fn slot_results(prog: &Program, in_place: &HashSet<Var>) -> HashMap<Var, Slot> {
    let mut out = HashMap::new();
    for f in &prog.funs {
        slots_in(&f.body, in_place, &mut out);
    }
    out
}

fn slots_in(b: &Body, in_place: &HashSet<Var>, out: &mut HashMap<Var, Slot>) {
    for s in &b.stms {
        super::lower::rewrite::for_each_body(&s.exp, &mut |inner| slots_in(inner, in_place, out));
    }
    for (u, s) in b.stms.iter().enumerate() {
        let Exp::Update { arr, idx, value: Atom::Var(v) } = &s.exp else { continue };
        if !s.pat.first().is_some_and(|p| in_place.contains(&p.var)) {
            continue;
        }
        let Some(m) = b.stms[..u].iter().position(|t| t.pat.iter().any(|p| p.var == *v)) else {
            continue;
        };
        let Exp::Map { .. } = b.stms[m].exp else { continue };
        let Some(idx) = idx
            .iter()
            .map(|d| match d {
                DimIndex::Fix(a) => Some(*a),
                DimIndex::Slice { .. } => None,
            })
            .collect::<Option<Vec<Atom>>>()
        else {
            continue;
        };
        let bound_between: HashSet<Var> =
            b.stms[m..u].iter().flat_map(|t| t.pat.iter().map(|p| p.var)).collect();
        let late = |a: &Atom| matches!(a, Atom::Var(x) if bound_between.contains(x));
        if bound_between.contains(arr) || idx.iter().any(late) {
            continue;
        }
        let vty = b.stms[m].pat.iter().find(|p| p.var == *v).map(|p| &p.ty);
        let slot_ty = match b.stms[u].pat.first().map(|p| &p.ty) {
            Some(Type::Array { elem, shape }) if shape.len() > idx.len() => {
                Some(Type::Array { elem: *elem, shape: shape[idx.len()..].to_vec() })
            }
            _ => None,
        };
        if slot_ty.is_none() || vty != slot_ty.as_ref() {
            continue;
        }
        let dies = mentions_any(s, &HashSet::from([*v])) == 1
            && b.stms[m + 1..u]
                .iter()
                .chain(&b.stms[u + 1..])
                .all(|t| mentions_any(t, &HashSet::from([*v])) == 0)
            && !b.result.contains(&Atom::Var(*v));
        let shared = aliases(b, 0, *arr, m);
        if dies && b.stms[m..u].iter().all(|t| mentions_any(t, &shared) == 0) {
            out.insert(*v, Slot { arr: *arr, idx });
        }
    }
}

/// The `replicate`s whose every row is overwritten before anything reads it: `z = replicate
/// [d]... v` (`d` a constant) followed by a chain of in-place updates `z1 = z with [c0] = ..`,
/// `z2 = z1 with [c1] = ..`, ... at constant indices that together cover `0..d`, each array of
/// the chain read only by the next update ([`in_place`] guarantees it dies there). A backend
/// may leave such an array unfilled (reverse mode's adjoint of an array read row by row, every
/// row of which gets an adjoint).
pub fn overwritten_replicates(prog: &Program, in_place: &HashSet<Var>) -> HashSet<Var> {
    let mut out = HashSet::new();
    for f in &prog.funs {
        overwritten_in(&f.body, in_place, &mut out);
    }
    out
}

fn overwritten_in(b: &Body, in_place: &HashSet<Var>, out: &mut HashSet<Var>) {
    for s in &b.stms {
        super::lower::rewrite::for_each_body(&s.exp, &mut |inner| {
            overwritten_in(inner, in_place, out)
        });
    }
    for (r, s) in b.stms.iter().enumerate() {
        let ([z], Exp::Replicate { shape, .. }) = (s.pat.as_slice(), &s.exp) else { continue };
        let Some(&Dim::Const(d)) = shape.first() else { continue };
        let mut covered = vec![false; usize::try_from(d).unwrap_or(0)];
        let mut cur = z.var;
        for t in &b.stms[r + 1..] {
            if mentions_any(t, &HashSet::from([cur])) == 0 {
                continue;
            }
            let Exp::Update { arr, idx, .. } = &t.exp else { break };
            let [DimIndex::Fix(Atom::Const(PrimValue::I64(c)))] = idx.as_slice() else { break };
            let Some(next) = t.pat.first().filter(|p| in_place.contains(&p.var)) else { break };
            if *arr != cur || mentions_any(t, &HashSet::from([cur])) != 1 {
                break;
            }
            if let Some(row) = usize::try_from(*c).ok().and_then(|c| covered.get_mut(c)) {
                *row = true;
            }
            cur = next.var;
        }
        if !covered.is_empty() && covered.iter().all(|c| *c) {
            out.insert(z.var);
        }
    }
}

/// Whether `e` writes its array results into fresh memory (or, for the updating statements,
/// into memory that this analysis found owned).
fn fresh(e: &Exp) -> bool {
    matches!(
        e,
        Exp::Map { .. }
            | Exp::Scan { .. }
            | Exp::Replicate { .. }
            | Exp::Iota { .. }
            | Exp::Copy(_)
            | Exp::Concat { .. }
            | Exp::ArrayLit { .. }
            | Exp::Update { .. }
            | Exp::Scatter { .. }
            | Exp::Hist { .. }
    )
}

/// Whether a statement that mentions an array can give a result sharing its memory.
fn may_alias(s: &Stm) -> bool {
    let scalar_results = s.pat.iter().all(|p| p.ty.rank() == 0);
    let copies = matches!(
        s.exp,
        Exp::Map { .. }
            | Exp::Scan { .. }
            | Exp::Replicate { .. }
            | Exp::Copy(_)
            | Exp::Concat { .. }
            | Exp::ArrayLit { .. }
    );
    !(scalar_results || copies)
}

/// Whether `d`, used at statement `at` of `sc`, owns its memory there.
fn owned(sc: &Scope, at: usize, d: Var) -> bool {
    owned_assuming(sc, at, d, &mut Vec::new())
}

/// `owned`, taking the loop parameters in `assumed` as owned: whether a loop parameter is
/// owned can depend on itself, through an inner loop that carries it on (`loop a = ... do
/// (loop b = a ... do b with [j] = x)`), and holds if it does assuming it.
fn owned_assuming(sc: &Scope, at: usize, d: Var, assumed: &mut Vec<Var>) -> bool {
    let b = sc.body;
    let bound_fresh =
        b.stms[..at].iter().any(|s| fresh(&s.exp) && s.pat.iter().any(|p| p.var == d));
    if bound_fresh || assumed.contains(&d) {
        return true;
    }
    // In a branch, an array from outside the `if`: owned there, and the `if` its last use.
    if let (Some(parent), Some(bi)) = (sc.parent, sc.branch_at) {
        if binder(b, d).is_none() {
            return owned_assuming(parent, bi, d, assumed) && last_use(parent.body, bi, d);
        }
    }
    // A loop parameter: its first value comes from the initial value, the others from the body.
    let (Some(parent), Some(li)) = (sc.parent, sc.loop_at) else { return false };
    let Some(Stm { exp: Exp::Loop { params, .. }, .. }) = parent.body.stms.get(li) else {
        return false;
    };
    let Some(k) = params.iter().position(|(p, _)| p.var == d) else { return false };
    let Atom::Var(init) = params[k].1 else { return false };
    if !(owned_assuming(parent, li, init, assumed) && dead_after(parent.body, li, init)) {
        return false;
    }
    if b.result.len() != params.len() {
        return false;
    }
    let Atom::Var(next) = b.result[k] else { return false };
    let Some(def) = binder(b, next) else { return false };
    assumed.push(d);
    let new = bound_owned(sc, def, next, assumed);
    assumed.pop();
    new && returned_alone(b, def, k, next)
}

/// The statement of `b` that binds `v`.
fn binder(b: &Body, v: Var) -> Option<usize> {
    b.stms.iter().position(|s| s.pat.iter().any(|p| p.var == v))
}

/// Whether `v`, bound by statement `def` of `sc`, owns its memory: a fresh array, or the result
/// of a loop or `if` that owns it.
fn bound_owned(sc: &Scope, def: usize, v: Var, assumed: &mut Vec<Var>) -> bool {
    fresh(&sc.body.stms[def].exp)
        || loop_result_owned(sc, def, v, assumed)
        || branch_result_owned(sc, def, v, assumed)
}

/// Whether no result of `b` but the `k`th shares the memory of `v` (bound at statement `from`).
fn returned_alone(b: &Body, from: usize, k: usize, v: Var) -> bool {
    let shared = aliases(b, from, v, b.stms.len());
    b.result
        .iter()
        .enumerate()
        .all(|(j, a)| j == k || !matches!(a, Atom::Var(x) if shared.contains(x)))
}

/// Whether `v`, bound by the loop at statement `def` of `sc`, owns its memory: the loop's
/// parameter for it does at the loop's end.
fn loop_result_owned(sc: &Scope, def: usize, v: Var, assumed: &mut Vec<Var>) -> bool {
    let Some(Stm { pat, exp: Exp::Loop { params, body, .. }, .. }) = sc.body.stms.get(def) else {
        return false;
    };
    let Some(k) = pat.iter().position(|p| p.var == v) else { return false };
    let Some((param, _)) = params.get(k) else { return false };
    let inner = Scope { body, parent: Some(sc), loop_at: Some(def), branch_at: None };
    owned_assuming(&inner, body.stms.len(), param.var, assumed)
}

/// Whether `v`, bound by the `if` at statement `def` of `sc`, owns its memory: each branch
/// returns for it an array it owns and no other result shares.
fn branch_result_owned(sc: &Scope, def: usize, v: Var, assumed: &mut Vec<Var>) -> bool {
    let Some(Stm { pat, exp: Exp::If { then_body, else_body, .. }, .. }) = sc.body.stms.get(def)
    else {
        return false;
    };
    let Some(k) = pat.iter().position(|p| p.var == v) else { return false };
    [then_body, else_body].into_iter().all(|br| {
        let Some(Atom::Var(r)) = br.result.get(k).copied() else { return false };
        let inner = Scope { body: br, parent: Some(sc), loop_at: None, branch_at: Some(def) };
        let owned = match binder(br, r) {
            Some(j) => bound_owned(&inner, j, r, assumed),
            None => owned_assuming(&inner, br.stms.len(), r, assumed),
        };
        owned && returned_alone(br, 0, k, r)
    })
}

/// Whether the `if` at statement `at` of `b` is the last use of `d`, which it may use in its
/// branches, and no other variable sharing `d`'s memory is used there or after.
fn last_use(b: &Body, at: usize, d: Var) -> bool {
    let Some(s) = b.stms.get(at) else { return false };
    let set = aliases(b, 0, d, at);
    let others: HashSet<Var> = set.iter().copied().filter(|v| *v != d).collect();
    mentions_any(s, &others) == 0
        && b.stms[at + 1..].iter().all(|s| mentions_any(s, &set) == 0)
        && !b.result.iter().any(|a| matches!(a, Atom::Var(v) if set.contains(v)))
}

/// `d` and every variable bound by `b.stms[from..to]` that may share its memory.
fn aliases(b: &Body, from: usize, d: Var, to: usize) -> HashSet<Var> {
    let mut set = HashSet::from([d]);
    for s in b.stms.iter().take(to).skip(from) {
        if may_alias(s) && mentions_any(s, &set) > 0 {
            set.extend(s.pat.iter().map(|p| p.var));
        }
    }
    set
}

/// How many times `s` mentions a variable of `set` (uses, dims and nested bodies).
fn mentions_any(s: &Stm, set: &HashSet<Var>) -> usize {
    let mut n = 0;
    walk_vars_exp(&s.exp, &mut |v| {
        if set.contains(&v) {
            n += 1;
        }
    });
    n
}

/// Whether statement `at` of `b` is the last mention of `d` and of everything sharing its
/// memory, and mentions it once (as the destination).
fn dead_after(b: &Body, at: usize, d: Var) -> bool {
    let Some(s) = b.stms.get(at) else { return false };
    let set = aliases(b, 0, d, at);
    mentions_any(s, &set) == 1
        && b.stms[at + 1..].iter().all(|s| mentions_any(s, &set) == 0)
        && !b.result.iter().any(|a| matches!(a, Atom::Var(v) if set.contains(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(src: &str) -> usize {
        let c = crate::driver::compile(src).unwrap_or_else(|d| panic!("{d:?}"));
        in_place(&c.ir).len()
    }

    #[test]
    fn a_fresh_array_updated_once_is_updated_in_place() {
        assert_eq!(
            count("entry main (n: i64) : []i32 = let xs = replicate n 0i32 in xs with [0] = 1"),
            1
        );
    }

    #[test]
    fn a_loop_accumulator_is_updated_in_place() {
        let src = "entry main (n: i64) : []i64 =
                     loop acc = replicate n 0i64 for i < n do acc with [i] = i * i";
        assert_eq!(count(src), 1);
    }

    #[test]
    fn hist_and_scatter_into_fresh_destinations_work_in_place() {
        let src = "entry h [n] (k: i64) (is: [n]i64) : []i32 = hist (+) 0 k is (replicate n 1)
                   entry s [n] (is: [n]i64) (vs: [n]f32) : []f32 = scatter (replicate 10 0f32) is vs";
        assert_eq!(count(src), 2);
    }

    fn overwritten(src: &str) -> usize {
        let c = crate::driver::compile(src).unwrap_or_else(|d| panic!("{d:?}"));
        let prog = crate::opt::for_backends(&c.ir);
        overwritten_replicates(&prog, &in_place(&prog)).len()
    }

    #[test]
    fn zeros_whose_rows_are_all_overwritten_need_no_filling() {
        // Every row of the gate weights' adjoint is one gate's adjoint.
        let gates = "entry g [h] (w: [3][h][h]f32) (x: [h]f32) =
                       vjp (\\w -> f32.sum (map (\\g -> f32.sum (map (\\r -> f32.sum (map2 (*) r x)) w[g]))
                                                 [0, 1, 2])) w 1";
        assert_eq!(overwritten(gates), 0, "rows read at computed indices");
        let rows = "entry g [h] (w: [3][h]f32) =
                      vjp (\\w -> f32.sum w[0] * f32.sum w[1] + f32.sum w[2]) w 1";
        assert_eq!(overwritten(rows), 1);
        let two_of_three =
            "entry g [h] (w: [3][h]f32) = vjp (\\w -> f32.sum w[0] * f32.sum w[2]) w 1";
        assert_eq!(overwritten(two_of_three), 0);
        let read_between = "entry g (n: i64) =
                              let z = replicate 2 (replicate n 0f32)
                              let z = z with [0] = replicate n 1
                              let s = f32.sum z[1]
                              in (z with [1] = replicate n s)";
        assert_eq!(overwritten(read_between), 0);
    }

    fn slots(src: &str) -> usize {
        let c = crate::driver::compile(src).unwrap_or_else(|d| panic!("{d:?}"));
        slot_results(&c.ir, &in_place(&c.ir)).len()
    }

    #[test]
    fn a_map_stored_by_an_in_place_update_is_computed_in_its_slot() {
        let src = "entry main (k: i64) : [4][3]i64 =
                     let z = replicate 4 (replicate 3 0i64)
                     in z with [k] = map (+ 1) (iota 3)";
        assert_eq!(slots(src), 1);
        // The map reads the array it is stored into: computing it in place would change what
        // it reads.
        let reads = "entry main (k: i64) : [4][3]i64 =
                       let z = map (\\i -> replicate 3 i) (iota 4)
                       in z with [k] = map (\\j -> z[0][j] + 1) (iota 3)";
        assert_eq!(slots(reads), 0);
        // The map's result is used again.
        let again = "entry main (k: i64) : ([4][3]i64, [3]i64) =
                       let z = replicate 4 (replicate 3 0i64)
                       let v = map (+ 1) (iota 3)
                       in (z with [k] = copy v, v)";
        assert_eq!(slots(again), 0);
    }

    #[test]
    fn a_parameter_is_copied() {
        // An entry's arguments are not known to be unshared, so the update copies.
        assert_eq!(count("entry main (xs: *[]i32) : []i32 = xs with [0] = 1"), 0);
    }

    #[test]
    fn a_loop_that_may_return_an_outer_array_is_not_updated_in_place() {
        // The second iteration's accumulator would be `ys`, which is still live.
        let src = "entry main (n: i64) (ys: []i64) : ([]i64, []i64) =
                     let r = loop acc = replicate (length ys) 0i64 for i < n do
                               if i == 1 then ys else acc with [0] = i
                     in (r, ys)";
        assert_eq!(count(src), 0);
        // A copy of it is the loop's own.
        let copied = "entry main (n: i64) (ys: []i64) : ([]i64, []i64) =
                        let r = loop acc = replicate (length ys) 0i64 for i < n do
                                  if i == 1 then copy ys else acc with [0] = i
                        in (r, ys)";
        assert_eq!(count(copied), 1);
    }

    #[test]
    fn an_array_carried_through_branches_and_inner_loops_is_updated_in_place() {
        // A sieve: one branch keeps the array, the other updates it in an inner loop.
        let src = "entry main (n: i64) : []bool =
                     let (a, _) = loop (a, p) = (replicate n false, 2) while p < n do
                       if a[p] then (a, p + 1)
                       else let (a, _) = loop (a, m) = (a, p * p) while m < n do
                                           (a with [m] = true, m + p)
                            in (a, p + 1)
                     in a";
        assert_eq!(count(src), 1);
    }

    #[test]
    fn a_branch_owns_an_outer_array_only_where_nothing_else_shares_it() {
        let alone = "entry main (n: i64) (c: bool) : []i64 =
                       let xs = iota n in if c then xs with [0] = 5 else xs";
        assert_eq!(count(alone), 1);
        // A branch returns the same array for both loop parameters: neither owns it.
        let shared = "entry main (n: i64) : ([]i64, []i64) =
                        loop (a, b) = (iota n, iota n) for i < 3 do
                          if i == 1 then (let t = map (+ 1) a in (t, t))
                          else (a with [0] = i, b with [1] = i)";
        assert_eq!(count(shared), 0);
    }
}
