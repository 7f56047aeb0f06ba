//! A map whose results are (index, value) pairs read only by histograms after it, fused with
//! them: each pair is added to its bin as the map computes it, so the pairs are never stored.
//! Reverse mode gives this shape to the adjoint of an array that a map reads at computed
//! indices (`ad::rev`, contributions): per element, `k` indices and `k` values as array
//! literals, flattened by `reshape`s into one `hist (+)`. Stored, the pairs took more memory
//! than the arrays they are the adjoint of.
//!
//! Only a map that runs on one thread is fused (its additions would race otherwise), and only
//! with histograms of scalars into one destination each, made after the map (so the map cannot
//! read it). The statements between the map and the
//! histograms must not read the map's results and cannot fail (the destination's `replicate`,
//! the flattened length): they run before the map.

use std::collections::{HashMap, HashSet};

use walrus::ir::BinaryOp as B;
use walrus::{InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use crate::ir::lower::builder::dim_atom;
use crate::ir::lower::rewrite::walk_vars_exp;
use crate::ir::{Atom, BinOp, Body, Dim, Exp, Type, Var};
use crate::prim::{IntType, PrimType};

/// A histogram fused into the map before it.
struct Fused {
    /// The histogram statement's index in the body.
    at: usize,
    /// The map results holding its indices and its values.
    is: usize,
    vs: Vals,
    /// Whether those are rows (`[w][c]`, flattened by a reshape) rather than scalars (`[w]`).
    rows: bool,
}

/// Where a fused histogram's values come from.
#[derive(Clone, Copy, PartialEq)]
enum Vals {
    /// A map result.
    Result(usize),
    /// A `replicate` of a scalar, made between the map and the histogram (a count's ones): its
    /// statement and the scalar.
    Same(usize, Atom),
}

impl Vals {
    fn result(self) -> Option<usize> {
        match self {
            Vals::Result(o) => Some(o),
            Vals::Same(..) => None,
        }
    }
}

/// How statement `k` of a body, a map, is fused with the histograms after it.
pub(super) struct HistFusion {
    hists: Vec<Fused>,
    /// Statements between the map and the last histogram that run before the map.
    before: Vec<usize>,
    /// Statements the fusion does away with: the reshapes of the pairs, and the histograms.
    pub(super) replaced: HashSet<usize>,
}

impl HistFusion {
    /// Every statement index the fused map stands for, besides its own.
    pub(super) fn covered(&self) -> impl Iterator<Item = usize> + '_ {
        self.replaced.iter().copied().chain(self.before.iter().copied())
    }
}

/// Statements that may run before the map: they cannot fail and do not read it.
fn movable(e: &Exp) -> bool {
    match e {
        Exp::Replicate { .. } | Exp::Atom(_) => true,
        Exp::BinOp(op, PrimType::Int(_), ..) => matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul),
        _ => false,
    }
}

fn mentions(e: &Exp, vs: &HashSet<Var>) -> bool {
    let mut found = false;
    walk_vars_exp(e, &mut |v| found |= vs.contains(&v));
    found
}

/// The histograms that statement `k` of `body` (a `map`) can be fused with, if any; `ty` gives
/// the type of any variable in scope.
pub(super) fn hist_fusion(body: &Body, k: usize, ty: &dyn Fn(Var) -> Type) -> Option<HistFusion> {
    let s = &body.stms[k];
    let Exp::Map { w, .. } = &s.exp else { return None };
    let outs: Vec<Var> = s.pat.iter().map(|p| p.var).collect();
    let out_of = |v: &Var| outs.iter().position(|o| o == v);
    // Flattened rows of map results: the reshape's result → (its statement, the map result,
    // the flattened length).
    let mut flat: HashMap<Var, (usize, usize, Var)> = HashMap::new();
    let mut hists = Vec::new();
    let mut moved = Vec::new();
    let mut reads: HashSet<Var> = outs.iter().copied().collect();
    for (h, t) in body.stms.iter().enumerate().skip(k + 1) {
        match &t.exp {
            Exp::Reshape { arr, shape } if shape.len() == 1 && out_of(arr).is_some() => {
                let o = out_of(arr)?;
                let Type::Array { shape: rs, .. } = &s.pat[o].ty else { return None };
                let (Dim::Var(p), [_, c]) = (shape[0], rs.as_slice()) else { return None };
                // `[w][c]` flattened to `[p]` with `p = w * c`: the pairs in order.
                let c = dim_atom(*c);
                let (a, b) = product_of(body, p)?;
                if !((a == *w && b == c) || (a == c && b == *w)) {
                    return None;
                }
                flat.insert(t.pat[0].var, (h, o, p));
                reads.insert(t.pat[0].var);
            }
            Exp::Hist { dest, lam, is, vs, w: hw, .. }
                if dest.len() == 1 && vs.len() == 1 && reads.contains(is) =>
            {
                // A map result, or its flattened rows with their length.
                let src = |v: &Var| match (out_of(v), flat.get(v)) {
                    (Some(o), _) => Some((o, None)),
                    (None, Some(&(_, o, p))) => Some((o, Some(p))),
                    _ => None,
                };
                let (io, ip) = src(is)?;
                // Values that are one scalar replicated (`hist (+) 0 k is (replicate n 1)`).
                let same = moved.iter().find_map(|&m: &usize| match &body.stms[m].exp {
                    Exp::Replicate { shape, value }
                        if body.stms[m].pat[0].var == vs[0]
                            && body.stms[m].pat[0].ty.rank() == 1
                            && shape.len() == 1
                            && Some(dim_atom(shape[0])) == Some(*w)
                            && ip.is_none() =>
                    {
                        Some(Vals::Same(m, *value))
                    }
                    _ => None,
                });
                let (vo, vp) = match same {
                    Some(v) => (v, None),
                    None => {
                        let (o, p) = src(&vs[0])?;
                        (Vals::Result(o), p)
                    }
                };
                let one_dim = matches!(ty(dest[0]), Type::Array { shape, .. } if shape.len() == 1);
                let scalar_op =
                    lam.params.iter().all(|p| p.ty.rank() == 0) && lam.body.result.len() == 1;
                let width = match ip {
                    Some(p) => *hw == Atom::Var(p),
                    None => hw == w,
                };
                let indices = s.pat[io].ty.elem() == PrimType::Int(IntType::I64);
                // The destination is made between the map and the histogram (reverse mode's
                // zeros), so the map cannot read it while the pairs are added to it.
                let fresh = moved
                    .iter()
                    .any(|&m: &usize| body.stms[m].pat.iter().any(|p| p.var == dest[0]));
                if ip != vp || !one_dim || !scalar_op || !width || !indices || !fresh {
                    return None;
                }
                hists.push(Fused { at: h, is: io, vs: vo, rows: ip.is_some() });
            }
            e if movable(e) && !mentions(e, &reads) => moved.push(h),
            _ => break,
        }
    }
    let last = hists.last()?.at;
    let mut replaced: HashSet<usize> = hists.iter().map(|f| f.at).collect();
    // The pairs, each fused once, and their flattened forms: read by their reshape or their
    // histogram only; so are replicated values, which are never made.
    let mut fused = HashSet::new();
    let results = hists.iter().flat_map(|f| [Some(f.is), f.vs.result()]).flatten();
    if !results.clone().all(|o| fused.insert(o)) {
        return None;
    }
    let mut once: HashSet<Var> = fused.iter().map(|&o| outs[o]).collect();
    for f in &hists {
        if let Vals::Same(m, _) = f.vs {
            replaced.insert(m);
            once.insert(body.stms[m].pat[0].var);
        }
    }
    let before: Vec<usize> =
        moved.into_iter().filter(|h| *h < last && !replaced.contains(h)).collect();
    for (v, &(r, o, _)) in &flat {
        if !fused.contains(&o) || r > last {
            return None;
        }
        replaced.insert(r);
        once.insert(*v);
    }
    let mut uses: HashMap<Var, usize> = HashMap::new();
    for t in &body.stms[k + 1..] {
        walk_vars_exp(&t.exp, &mut |v| {
            if once.contains(&v) {
                *uses.entry(v).or_default() += 1;
            }
        });
    }
    let returned = body.result.iter().any(|a| matches!(a, Atom::Var(v) if once.contains(v)));
    if returned || uses.values().any(|&n| n > 1) {
        return None;
    }
    Some(HistFusion { hists, before, replaced })
}

/// `(a, b)` when `p` is bound in `body` by `a * b` on `i64`.
fn product_of(body: &Body, p: Var) -> Option<(Atom, Atom)> {
    body.stms.iter().find_map(|s| match &s.exp {
        Exp::BinOp(BinOp::Mul, PrimType::Int(IntType::I64), a, b)
            if s.pat.first().is_some_and(|q| q.var == p) =>
        {
            Some((*a, *b))
        }
        _ => None,
    })
}

impl Gen<'_> {
    /// Statement `k` of `body`, a map, with the histograms of `f`: the statements that run
    /// before it, the histograms' destinations, then one loop that computes each element,
    /// stores its other results and adds its pairs to their bins.
    pub(super) fn map_into_hists(
        &mut self,
        b: &mut InstrSeqBuilder,
        body: &Body,
        k: usize,
        f: &HistFusion,
    ) {
        let s = &body.stms[k];
        let Exp::Map { w, lam, arrs } = &s.exp else { return };
        let span = s.span;
        for &i in &f.before {
            self.stm(b, &body.stms[i]);
        }
        let pat: Vec<LocalId> = s.pat.iter().map(|p| self.bind(p, span)).collect();
        let wl = self.i64_local(b, w);
        self.check_width(b, wl, w, arrs, "map", span);
        let fused: HashSet<usize> =
            f.hists.iter().flat_map(|h| [Some(h.is), h.vs.result()]).flatten().collect();
        let stored: Vec<usize> = (0..s.pat.len()).filter(|o| !fused.contains(o)).collect();
        let stored_params: Vec<_> = stored.iter().map(|&o| s.pat[o].clone()).collect();
        let stored_pat: Vec<LocalId> = stored.iter().map(|&o| pat[o]).collect();
        let outs = self.soac_outputs(b, &stored_params, &stored_pat);
        // Each histogram: its destination (updated in place, or a copy), its bins, the
        // operator's parameters, and the pairs per element.
        let mut hists = Vec::new();
        for h in &f.hists {
            let t = &body.stms[h.at];
            let Exp::Hist { dest, lam: op, .. } = &t.exp else { continue };
            self.set_here_in_place(t);
            let (out, ds) = self.copy_of(b, dest[0]);
            self.set_here_in_place(s);
            let hl = self.bind(&t.pat[0], t.span);
            b.local_get(out).local_set(hl);
            let elem = self.var_type(dest[0]).elem();
            let ps: Vec<LocalId> = op.params.iter().map(|p| self.bind(p, t.span)).collect();
            let per = self.tmp(ValType::I64);
            if h.rows {
                let sh = match &s.pat[h.is].ty {
                    Type::Array { shape, .. } => shape[1..].to_vec(),
                    Type::Prim(_) => Vec::new(),
                };
                let ds = self.dim_locals(b, &sh);
                let n = self.product(b, &ds);
                b.local_get(n).local_set(per);
            }
            let vt = match h.vs {
                Vals::Result(o) => s.pat[o].ty.elem(),
                Vals::Same(..) => elem,
            };
            hists.push((h, op, out, ds[0], elem, ps, per, vt));
        }
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        // Pairs the function builds as array literals are added from the literals' elements,
        // and the literals are never built.
        let mut fbody = lam.body.clone();
        let mut literals: HashMap<Var, Vec<Atom>> = HashMap::new();
        for h in f.hists.iter().filter(|h| h.rows) {
            let Vals::Result(vo) = h.vs else { continue };
            for r in [&lam.body.result[h.is], &lam.body.result[vo]] {
                let Atom::Var(v) = r else { continue };
                let mut reads = 0;
                for t in &fbody.stms {
                    walk_vars_exp(&t.exp, &mut |x| reads += usize::from(x == *v));
                }
                let once = fbody.result.iter().filter(|a| **a == Atom::Var(*v)).count() == 1;
                let at = fbody.stms.iter().position(|t| t.pat.first().is_some_and(|p| p.var == *v));
                if let (0, true, Some(at)) = (reads, once, at) {
                    if let Exp::ArrayLit { elems, elem_ty: Type::Prim(_) } = &fbody.stms[at].exp {
                        literals.insert(*v, elems.clone());
                        fbody.stms.remove(at);
                    }
                }
            }
        }
        let arena = self.arena;
        self.for_step(b, None, wl, 1, |g, b, j| {
            let mark = arena.mark(&mut g.module, b);
            g.bind_rows(b, &ps, arrs, j);
            g.body(b, &fbody);
            for ((out, row, elem), &o) in outs.iter().zip(&stored) {
                g.store_row(b, *out, j, &lam.body.result[o], *elem, *row);
            }
            for (h, op, out, bins, elem, ops, per, vt) in &hists {
                let ri = &lam.body.result[h.is];
                let rv = match &h.vs {
                    Vals::Result(o) => &lam.body.result[*o],
                    Vals::Same(_, a) => a,
                };
                let (bin, val) = (g.tmp(ValType::I64), g.tmp(super::emit::val_type(*vt)));
                let add = |g: &mut Self, b: &mut InstrSeqBuilder| {
                    b.local_get(bin).local_get(*bins).binop(B::I64LtU);
                    let inside = {
                        let mut t = b.dangling_instr_seq(None);
                        g.elem_addr(&mut t, *out, bin, *elem);
                        g.load(&mut t, *elem);
                        t.local_set(ops[0]).local_get(val).local_set(ops[1]);
                        g.body(&mut t, &op.body);
                        g.elem_addr(&mut t, *out, bin, *elem);
                        g.push_atom(&mut t, &op.body.result[0]);
                        g.store(&mut t, *elem);
                        t.id()
                    };
                    let outside = b.dangling_instr_seq(None).id();
                    b.instr(walrus::ir::IfElse { consequent: inside, alternative: outside });
                };
                // Pairs known as atoms: a scalar pair, or the elements of array literals.
                let atoms: Option<Vec<(&Atom, &Atom)>> = match (h.rows, ri, rv) {
                    (false, ..) => Some(vec![(ri, rv)]),
                    (true, Atom::Var(iv), Atom::Var(vv)) => literals
                        .get(iv)
                        .zip(literals.get(vv))
                        .map(|(is, vs)| is.iter().zip(vs).collect()),
                    _ => None,
                };
                if let Some(atoms) = atoms {
                    for (i, v) in atoms {
                        g.push_atom(b, i);
                        b.local_set(bin);
                        g.push_atom(b, v);
                        b.local_set(val);
                        add(g, b);
                    }
                    continue;
                }
                let (Atom::Var(iv), Atom::Var(vv)) = (ri, rv) else { continue };
                let (il, vl) = (g.local(*iv), g.local(*vv));
                g.for_step(b, None, *per, 1, |g, b, e| {
                    g.elem_addr(b, il, e, PrimType::Int(IntType::I64));
                    g.load(b, PrimType::Int(IntType::I64));
                    b.local_set(bin);
                    g.elem_addr(b, vl, e, *vt);
                    g.load(b, *vt);
                    b.local_set(val);
                    add(g, b);
                });
            }
            arena.restore(b, mark);
        });
    }
}
