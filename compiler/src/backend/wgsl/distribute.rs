//! Map distribution before kernel generation.
//!
//! A host-level `map` becomes one kernel with an invocation per element of its (flattened)
//! result, so a scalar computed with a loop in the map's function (a `reduce` over the row, a
//! `loop`) would run once per *element*: `map softmax xss` recomputed each row's maximum and sum
//! for every element, O(n·m²) work. This pass splits such a map at each of those statements: the
//! statements up to it become a map of their own whose results are the loop's scalars (a
//! segmented reduction when it ends in a `reduce`, see `host::seg_reduce`), whose `[n]` results
//! are appended as columns to one `[n][k]` array per element type that the rest of the map reads
//! as an extra parameter (a kernel may bind only a few storage buffers, so the values of many
//! splits share one). The cheap statements before it are repeated in both maps (arrays in a
//! kernel are delayed, so repeating them costs nothing until an element is demanded); parameters
//! a piece does not use are dropped. Arrays whose elements would be demanded many times over
//! get a map of their own too ([`Distribute::peelable`]): an element is computed once and read
//! back, not recomputed wherever it is read.
//!
//! Calls at the top of a map's function are inlined first (with fresh variables), so the loops of
//! `softmax` are visible. A map whose function returns only scalars keeps its last loop (it runs
//! once per element already); so does a map where no split applies, unchanged.

use std::collections::{HashMap, HashSet};

use crate::ad::walk;
use crate::ir::{self, Atom, Exp, Lambda, Param, Stm, Type, Var};
use crate::prim::{PrimType, PrimValue};

/// How deep calls at the top of a map's function are inlined.
const INLINE_DEPTH: usize = 8;

/// The program with its maps distributed, and the conditions of the `if`s that stand for row
/// maps (see [`Distribute::map`]).
pub fn run(prog: &ir::Program, wide: bool) -> (ir::Program, HashSet<Var>) {
    let mut d = Distribute { prog, names: prog.names.clone(), wide, rows: HashSet::new() };
    let funs = prog
        .funs
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.body = d.body(&f.body);
            f
        })
        .collect();
    (ir::Program { funs, entries: prog.entries.clone(), names: d.names }, d.rows)
}

struct Distribute<'a> {
    prog: &'a ir::Program,
    names: Vec<String>,
    /// i64/u64 values take 64 bits (see `compile_wide`), so they get a pack of their own.
    wide: bool,
    /// The conditions of the `if`s that stand for row maps.
    rows: HashSet<Var>,
}

impl Distribute<'_> {
    /// Host code: maps at the top level and in the bodies of `if`s and loops.
    fn body(&mut self, b: &ir::Body) -> ir::Body {
        let mut stms = Vec::new();
        for s in &b.stms {
            match &s.exp {
                Exp::If { cond, then_body, else_body, ret } => {
                    let exp = Exp::If {
                        cond: *cond,
                        then_body: self.body(then_body),
                        else_body: self.body(else_body),
                        ret: ret.clone(),
                    };
                    stms.push(Stm { pat: s.pat.clone(), exp, span: s.span });
                }
                Exp::Loop { params, form, body } => {
                    let exp = Exp::Loop {
                        params: params.clone(),
                        form: form.clone(),
                        body: self.body(body),
                    };
                    stms.push(Stm { pat: s.pat.clone(), exp, span: s.span });
                }
                Exp::Map { .. } => self.map(s, &mut stms, true),
                _ => stms.push(s.clone()),
            }
        }
        ir::Body { stms, result: b.result.clone() }
    }

    /// Split a map at each loop computing scalars, in order. The values of the loops are packed
    /// per element type into one `[n][k]` array (each split appends a column), so the pieces
    /// bind one extra buffer per type however many values they pass on: a kernel may bind only
    /// a few storage buffers (8 by default in WebGPU).
    ///
    /// A map on the host (`host`) whose function works on whole rows (`rows::applies`) is kept
    /// whole as well, for a row kernel, next to its distributed pieces.
    fn map(&mut self, s: &Stm, out: &mut Vec<Stm>, host: bool) {
        let Exp::Map { w, lam, arrs } = &s.exp else {
            out.push(s.clone());
            return;
        };
        if !matches!(s.pat.first().map(|p| &p.ty), Some(Type::Array { .. })) {
            out.push(s.clone());
            return;
        }
        let mut lam = lam.clone();
        lam.body = self.inline_top(&lam.body, 0);
        if host && super::rows::applies(self.prog, &lam) {
            // A row map: `if c then <the map, one row kernel> else <its distributed pieces>`,
            // where `c` is no variable of the program but marks the `if` for the host schedule,
            // which makes it a `HostStm::RowMap` (the executor picks a side at run time).
            let fresh_pat = |d: &mut Self| -> Vec<Param> {
                s.pat
                    .iter()
                    .map(|p| {
                        let name = d.name(p.var);
                        Param { var: d.fresh(&name), ty: p.ty.clone() }
                    })
                    .collect()
            };
            let (whole, pieces) = (fresh_pat(self), fresh_pat(self));
            let result = |ps: &[Param]| ps.iter().map(|p| Atom::Var(p.var)).collect();
            let map = Exp::Map { w: *w, lam: lam.clone(), arrs: arrs.clone() };
            let then_body = ir::Body {
                stms: vec![Stm { pat: whole.clone(), exp: map, span: s.span }],
                result: result(&whole),
            };
            let mut stms = Vec::new();
            let split = Stm { pat: pieces.clone(), exp: s.exp.clone(), span: s.span };
            self.split(&split, lam, &mut stms);
            let else_body = ir::Body { stms, result: result(&pieces) };
            let cond = self.fresh("row_kernel");
            self.rows.insert(cond);
            out.push(Stm {
                pat: s.pat.clone(),
                exp: Exp::If {
                    cond: Atom::Var(cond),
                    then_body,
                    else_body,
                    ret: s.pat.iter().map(|p| p.ty.clone()).collect(),
                },
                span: s.span,
            });
            return;
        }
        self.split(s, lam, out);
    }

    /// The distribution of the map `s` whose function, calls at its top inlined, is `lam`.
    fn split(&mut self, s: &Stm, mut lam: Lambda, out: &mut Vec<Stm>) {
        let Exp::Map { w, arrs, .. } = &s.exp else {
            out.push(s.clone());
            return;
        };
        let Some(outer) = s.pat.first().and_then(|p| match &p.ty {
            Type::Array { shape, .. } => shape.first().copied(),
            _ => None,
        }) else {
            out.push(s.clone());
            return;
        };
        // Maps nested at the top of the function that return arrays are distributed first: the
        // loops of their functions then become maps of scalars, which this map's distribution
        // computes on their own (a loop two map levels down runs once per inner element, not
        // once per element of the innermost arrays).
        let mut stms = Vec::new();
        for st in std::mem::take(&mut lam.body.stms) {
            match &st.exp {
                Exp::Map { lam: inner, .. }
                    if inner.ret.iter().any(|t| matches!(t, Type::Array { .. })) =>
                {
                    self.map(&st, &mut stms, false)
                }
                _ => stms.push(st),
            }
        }
        lam.body.stms = stms;
        let scalar_results = lam.ret.iter().all(|t| matches!(t, Type::Prim(_)));
        let heavy = |d: &Self, lam: &Lambda| -> Vec<usize> {
            (0..lam.body.stms.len()).filter(|&k| d.heavy(&lam.body.stms[k])).collect()
        };
        let orig = self.original(s);
        let mut arrs = arrs.clone();
        // Per element type: the parameter of the rest of the map that holds the packed row
        // values, the host array it is given, and the number of columns.
        let mut packs: Vec<(PrimType, Var, Var, i64)> = Vec::new();
        loop {
            // The first statement to split at, in order: a loop computing scalars (with scalar
            // results the last one stays: it runs once per element already), or an array to
            // compute on its own (`None` and `Some` of its row width).
            let hv = heavy(self, &lam);
            let kept = if scalar_results { hv.last().copied() } else { None };
            let mut point = None;
            for k in 0..lam.body.stms.len() {
                if hv.contains(&k) {
                    if Some(k) != kept {
                        point = Some((k, None));
                    }
                    break;
                }
                if let Some(d) = self.peelable(&lam, k) {
                    point = Some((k, Some(d)));
                    break;
                }
            }
            let h = match point {
                None => break,
                Some((k, Some(d))) => {
                    (lam, arrs) = self.peel(lam, &arrs, &packs, (k, d), (*w, outer), out);
                    continue;
                }
                Some((h, None)) => h,
            };
            let hs = lam.body.stms[h].clone();
            let mut body1 = ir::Body {
                stms: lam.body.stms[..=h].to_vec(),
                result: hs.pat.iter().map(|p| Atom::Var(p.var)).collect(),
            };
            crate::ir::lower::dce(&mut body1);
            drop_unused_reads(&mut body1, &packs);
            // The values leave as the 32-bit words of their pack's type.
            body1.result.clear();
            for p in &hs.pat {
                let (stm, word) = self.word_of(p, hs.span);
                body1.stms.extend(stm);
                body1.result.push(Atom::Var(word.var));
            }
            let lam1 = Lambda {
                params: lam.params.clone(),
                body: body1,
                ret: hs.pat.iter().map(|p| Type::Prim(pack_type(p.ty.elem(), self.wide))).collect(),
            };
            let (lam1, arrs1) = prune(lam1, &arrs);
            let mut rows = Vec::new();
            for p in &hs.pat {
                let name = format!("{}_rows", self.name(p.var));
                rows.push(Param {
                    var: self.fresh(&name),
                    ty: Type::Array { elem: pack_type(p.ty.elem(), self.wide), shape: vec![outer] },
                });
            }
            out.push(Stm {
                pat: rows.clone(),
                exp: Exp::Map { w: *w, lam: lam1, arrs: arrs1 },
                span: hs.span,
            });
            // Append each value as a column of its type's pack; the rest of the map reads it
            // from there.
            let mut reads = Vec::new();
            for (p, r) in hs.pat.iter().zip(&rows) {
                let t = pack_type(p.ty.elem(), self.wide);
                let col = self.fresh(&format!("{}_col", self.name(p.var)));
                let col_ty = Type::Array { elem: t, shape: vec![outer, ir::Dim::Const(1)] };
                out.push(Stm {
                    pat: vec![Param { var: col, ty: col_ty }],
                    exp: Exp::Reshape { arr: r.var, shape: vec![outer, ir::Dim::Const(1)] },
                    span: hs.span,
                });
                let k = match packs.iter().position(|q| q.0 == t) {
                    Some(k) => k,
                    None => {
                        let param = self.fresh("packed");
                        packs.push((t, param, col, 0));
                        packs.len() - 1
                    }
                };
                let (_, param, old, cols) = packs[k];
                let packed = if cols == 0 {
                    col
                } else {
                    let packed = self.fresh("packed_rows");
                    let ty = Type::Array { elem: t, shape: vec![outer, ir::Dim::Const(cols + 1)] };
                    out.push(Stm {
                        pat: vec![Param { var: packed, ty }],
                        exp: Exp::Concat {
                            axis: 1,
                            arrs: vec![old, col],
                            len: ir::Dim::Const(cols + 1),
                        },
                        span: hs.span,
                    });
                    packed
                };
                packs[k] = (t, param, packed, cols + 1);
                let word = Param { var: self.fresh("word"), ty: Type::Prim(t) };
                reads.push(Stm {
                    pat: vec![word.clone()],
                    exp: Exp::Index {
                        arr: param,
                        idx: vec![ir::DimIndex::Fix(Atom::Const(PrimValue::I64(cols)))],
                    },
                    span: hs.span,
                });
                reads.extend(from_word(&word, p, hs.span));
            }
            let mut stms = reads;
            stms.extend(lam.body.stms[..h].iter().cloned());
            stms.extend(lam.body.stms[h + 1..].iter().cloned());
            lam.body.stms = stms;
            // The pack parameters at their new widths, given the new packs.
            let mut params = Vec::new();
            let mut new_arrs = Vec::new();
            for (p, a) in lam.params.iter().zip(&arrs) {
                if !packs.iter().any(|q| q.1 == p.var) {
                    params.push(p.clone());
                    new_arrs.push(*a);
                }
            }
            for (t, param, packed, cols) in &packs {
                params.push(Param {
                    var: *param,
                    ty: Type::Array { elem: *t, shape: vec![ir::Dim::Const(*cols)] },
                });
                new_arrs.push(*packed);
            }
            lam.params = params;
            arrs = new_arrs;
        }
        if lam == orig {
            // Nothing to split, nothing inlined.
            out.push(s.clone());
            return;
        }
        crate::ir::lower::dce(&mut lam.body);
        drop_unused_reads(&mut lam.body, &packs);
        let (lam, arrs) = prune(lam, &arrs);
        out.push(Stm { pat: s.pat.clone(), exp: Exp::Map { w: *w, lam, arrs }, span: s.span });
    }

    /// Whether the statement at `k` of a map's function makes arrays worth computing on their
    /// own, and their width (which the host must know): a `scan` (inside a kernel a scan is
    /// delayed, and demanding every element of it folds a prefix per element, O(m²) per
    /// segment), or a `map` whose elements loop (a matrix-vector product: demanding its elements
    /// in a loop would recompute each), or a reduction of vectors (each element folds a
    /// column), or arrays whose elements are costly and that a later map reads many times over
    /// ([`reread`], [`costly`]). Not when they are all the function returns (the kernel then
    /// writes each element once).
    fn peelable(&self, lam: &Lambda, k: usize) -> Option<ir::Dim> {
        let st = lam.body.stms.get(k)?;
        if returns(lam, k) || !st.pat.iter().all(|p| p.ty.rank() == 1) {
            return None;
        }
        if reread(lam, k) && costly(lam, k) {
            let w = match st.pat.first().map(|p| &p.ty) {
                Some(Type::Array { shape, .. }) => match shape.first()? {
                    ir::Dim::Const(c) => Atom::Const(PrimValue::I64(*c)),
                    ir::Dim::Var(v) => Atom::Var(*v),
                },
                _ => return None,
            };
            if let Some(d) = host_width(lam, k, w) {
                return Some(d);
            }
        }
        match &st.exp {
            Exp::Scan { w, .. } => host_width(lam, k, *w),
            // A reduction of vectors (AD's adjoint sums): each element folds a column.
            Exp::Reduce { .. } => match st.pat.first().map(|p| &p.ty) {
                Some(Type::Array { shape, .. }) => {
                    let w = match shape.first()? {
                        ir::Dim::Const(c) => Atom::Const(PrimValue::I64(*c)),
                        ir::Dim::Var(v) => Atom::Var(*v),
                    };
                    host_width(lam, k, w)
                }
                _ => None,
            },
            Exp::Map { w, lam: inner, .. }
                if inner.body.stms.iter().any(|x| heavy(self.prog, x)) =>
            {
                host_width(lam, k, *w)
            }
            _ => None,
        }
    }

    /// Compute the arrays of the statement at `h` (of width `d`) with a map of their own: a
    /// segmented scan, or a map over `[n][d]` elements. Their `[n][d]` results become
    /// parameters of the rest of the function.
    fn peel(
        &mut self,
        mut lam: Lambda,
        arrs: &[Var],
        packs: &[(PrimType, Var, Var, i64)],
        (h, d): (usize, ir::Dim),
        (w, outer): (Atom, ir::Dim),
        out: &mut Vec<Stm>,
    ) -> (Lambda, Vec<Var>) {
        let mut arrs = arrs.to_vec();
        let hs = lam.body.stms[h].clone();
        let row_ty = |p: &Param| Type::Array { elem: p.ty.elem(), shape: vec![d] };
        let mut body1 = ir::Body {
            stms: lam.body.stms[..=h].to_vec(),
            result: hs.pat.iter().map(|p| Atom::Var(p.var)).collect(),
        };
        crate::ir::lower::dce(&mut body1);
        drop_unused_reads(&mut body1, packs);
        let lam1 = Lambda {
            params: lam.params.clone(),
            body: body1,
            ret: hs.pat.iter().map(row_ty).collect(),
        };
        let (lam1, arrs1) = prune(lam1, &arrs);
        let mut rows = Vec::new();
        for p in &hs.pat {
            let name = format!("{}_rows", self.name(p.var));
            rows.push(Param {
                var: self.fresh(&name),
                ty: Type::Array { elem: p.ty.elem(), shape: vec![outer, d] },
            });
        }
        out.push(Stm {
            pat: rows.clone(),
            exp: Exp::Map { w, lam: lam1, arrs: arrs1 },
            span: hs.span,
        });
        lam.body.stms.remove(h);
        for (p, r) in hs.pat.iter().zip(&rows) {
            lam.params.push(Param { var: p.var, ty: row_ty(p) });
            arrs.push(r.var);
        }
        (lam, arrs)
    }

    /// The statement that turns `p` into the word its pack holds (none when it is that type).
    fn word_of(&mut self, p: &Param, span: crate::diag::Span) -> (Option<Stm>, Param) {
        let t = p.ty.elem();
        let pt = pack_type(t, self.wide);
        if pt == t {
            return (None, p.clone());
        }
        let word = Param { var: self.fresh("word"), ty: Type::Prim(pt) };
        let a = Atom::Var(p.var);
        let exp = match t {
            PrimType::Float(f) => Exp::Math(ir::MathFn::ToBits, PrimType::Float(f), vec![a]),
            _ => Exp::Convert { from: t, to: pt, arg: a },
        };
        (Some(Stm { pat: vec![word.clone()], exp, span }), word)
    }

    fn name(&self, v: Var) -> String {
        self.names.get(v.0 as usize).cloned().unwrap_or_else(|| "r".into())
    }

    /// The statement's lambda as written (no split applies).
    fn original(&self, s: &Stm) -> Lambda {
        match &s.exp {
            Exp::Map { lam, .. } => lam.clone(),
            _ => Lambda { params: Vec::new(), body: ir::Body::default(), ret: Vec::new() },
        }
    }

    fn fresh(&mut self, name: &str) -> Var {
        let v = Var(self.names.len() as u32);
        self.names.push(name.to_string());
        v
    }

    fn heavy(&self, s: &Stm) -> bool {
        heavy(self.prog, s)
    }

    /// `b` with the calls at its top level replaced by renamed copies of the callees' bodies.
    fn inline_top(&mut self, b: &ir::Body, depth: usize) -> ir::Body {
        let mut stms = Vec::new();
        for s in &b.stms {
            let Exp::Apply { fun, args } = &s.exp else {
                stms.push(s.clone());
                continue;
            };
            let Some(f) = self.prog.funs.get(*fun).filter(|_| depth < INLINE_DEPTH) else {
                stms.push(s.clone());
                continue;
            };
            let copy = self.rename(&Lambda {
                params: f.params.clone(),
                body: f.body.clone(),
                ret: f.ret.clone(),
            });
            for (p, a) in copy.params.iter().zip(args) {
                stms.push(Stm { pat: vec![p.clone()], exp: Exp::Atom(*a), span: s.span });
            }
            let inner = self.inline_top(&copy.body, depth + 1);
            stms.extend(inner.stms);
            for (p, a) in s.pat.iter().zip(inner.result) {
                stms.push(Stm { pat: vec![p.clone()], exp: Exp::Atom(a), span: s.span });
            }
        }
        ir::Body { stms, result: b.result.clone() }
    }

    /// A copy of `l` with every variable bound inside it renamed.
    fn rename(&mut self, l: &Lambda) -> Lambda {
        let mut l = l.clone();
        let mut map: HashMap<Var, Var> = HashMap::new();
        let mut binders = Vec::new();
        walk::lambda_vars(&mut l, &mut |v, b| {
            if b {
                binders.push(*v);
            }
        });
        for v in binders {
            if let std::collections::hash_map::Entry::Vacant(e) = map.entry(v) {
                let name = self.names.get(v.0 as usize).cloned().unwrap_or_default();
                e.insert(Var(self.names.len() as u32));
                self.names.push(name);
            }
        }
        walk::lambda_vars(&mut l, &mut |v, _| {
            if let Some(w) = map.get(v) {
                *v = *w;
            }
        });
        l
    }
}

/// Whether a statement of a map's function computes scalars with a loop (which a kernel runs
/// eagerly, once per invocation). Arrays are delayed, so they never count.
pub fn heavy(prog: &ir::Program, s: &Stm) -> bool {
    s.pat.iter().all(|p| matches!(p.ty, Type::Prim(_))) && loops(prog, &s.exp, 0)
}

pub(super) fn loops(prog: &ir::Program, e: &Exp, depth: usize) -> bool {
    let body = |b: &ir::Body| b.stms.iter().any(|s| loops(prog, &s.exp, depth));
    match e {
        Exp::Reduce { .. }
        | Exp::Scan { .. }
        | Exp::Hist { .. }
        | Exp::Scatter { .. }
        | Exp::Map { .. }
        | Exp::Loop { .. } => true,
        Exp::If { then_body, else_body, .. } => body(then_body) || body(else_body),
        Exp::Apply { fun, .. } => {
            depth < INLINE_DEPTH
                && prog
                    .funs
                    .get(*fun)
                    .is_some_and(|f| f.body.stms.iter().any(|s| loops(prog, &s.exp, depth + 1)))
        }
        _ => false,
    }
}

/// Whether a later map of `lam` reads the arrays of the statement at `k` many times over: a map
/// with array results that maps over them or reads them at all (inside a kernel those results
/// are delayed, so each of their elements demands what it reads again: a gradient's
/// per-component softmax weight of a sample, for each of the sample's coordinates), or a map
/// whose function reads them other than by one element (each of its elements folds or maps
/// over them: a product with a transposed matrix).
fn reread(lam: &Lambda, k: usize) -> bool {
    let vars: HashSet<Var> = lam.body.stms[k].pat.iter().map(|p| p.var).collect();
    let reads = |vs: &[Var]| vs.iter().any(|v| vars.contains(v));
    lam.body.stms[k + 1..].iter().any(|x| match &x.exp {
        Exp::Map { lam: inner, arrs, .. } => {
            if inner.ret.iter().any(|t| matches!(t, Type::Array { .. })) {
                reads(arrs) || reads(&walk::free_in_body(&inner.body))
            } else {
                inner.body.stms.iter().any(|s| {
                    let one = matches!(&s.exp, Exp::Index { idx, .. }
                        if idx.iter().all(|i| matches!(i, ir::DimIndex::Fix(_))));
                    !one && reads(&free_in_stm(s))
                })
            }
        }
        _ => false,
    })
}

/// The variables a statement reads from outside it.
fn free_in_stm(s: &Stm) -> Vec<Var> {
    walk::free_in_body(&ir::Body { stms: vec![s.clone()], result: Vec::new() })
}

/// Whether an element of the arrays of the statement at `k` costs more than a load and a few
/// arithmetic operations: it or a statement of `lam` it depends on calls a transcendental
/// function or divides. Computing such arrays once and reading them back is cheaper than
/// recomputing their elements wherever they are read.
fn costly(lam: &Lambda, k: usize) -> bool {
    fn exp_costly(e: &Exp) -> bool {
        let body = |b: &ir::Body| b.stms.iter().any(|s| exp_costly(&s.exp));
        match e {
            Exp::Math(f, ..) => !matches!(
                f,
                ir::MathFn::Floor
                    | ir::MathFn::Ceil
                    | ir::MathFn::Round
                    | ir::MathFn::Trunc
                    | ir::MathFn::IsNan
                    | ir::MathFn::IsInf
                    | ir::MathFn::CopySign
                    | ir::MathFn::Fma
                    | ir::MathFn::ToBits
                    | ir::MathFn::FromBits
                    | ir::MathFn::Clz
                    | ir::MathFn::Ctz
                    | ir::MathFn::Popc
            ),
            Exp::BinOp(op, ..) => matches!(
                op,
                ir::BinOp::Div | ir::BinOp::Mod | ir::BinOp::Quot | ir::BinOp::Rem | ir::BinOp::Pow
            ),
            Exp::Map { lam, .. } => body(&lam.body),
            Exp::If { then_body, else_body, .. } => body(then_body) || body(else_body),
            _ => false,
        }
    }
    let stms = &lam.body.stms;
    let mut need: HashSet<Var> = free_in_stm(&stms[k]).into_iter().collect();
    let mut found = exp_costly(&stms[k].exp);
    for s in stms[..k].iter().rev() {
        if found {
            break;
        }
        if s.pat.iter().any(|p| need.contains(&p.var)) {
            found |= exp_costly(&s.exp);
            need.extend(free_in_stm(s));
        }
    }
    found
}

/// `lam` without the parameters its body does not use, and `arrs` without their arrays (a
/// kernel binds a buffer for each array it is given).
fn prune(lam: Lambda, arrs: &[Var]) -> (Lambda, Vec<Var>) {
    let used: std::collections::HashSet<Var> = walk::free_in_body(&lam.body).into_iter().collect();
    let mut params = Vec::new();
    let mut kept = Vec::new();
    for (p, a) in lam.params.into_iter().zip(arrs) {
        if used.contains(&p.var) {
            params.push(p);
            kept.push(*a);
        }
    }
    (Lambda { params, body: lam.body, ret: lam.ret }, kept)
}

/// `b` without the reads of packed row values that nothing uses (`dce` keeps every index, as
/// it may fail; these are in bounds by construction).
fn drop_unused_reads(b: &mut ir::Body, packs: &[(PrimType, Var, Var, i64)]) {
    let mut used: std::collections::HashSet<Var> =
        b.result.iter().filter_map(Atom::as_var).collect();
    let mut kept = Vec::new();
    for st in std::mem::take(&mut b.stms).into_iter().rev() {
        let read = matches!(&st.exp, Exp::Index { arr, .. } if packs.iter().any(|q| q.1 == *arr));
        if read && !st.pat.iter().any(|p| used.contains(&p.var)) {
            continue;
        }
        let one = ir::Body { stms: vec![st], result: Vec::new() };
        used.extend(walk::free_in_body(&one));
        kept.extend(one.stms);
    }
    kept.reverse();
    b.stms = kept;
}

/// The width `w` of the statement at `k` of `lam`'s body as a dimension the host knows: a
/// constant, or a variable from outside the function, through copies in the function.
pub(super) fn host_width(lam: &Lambda, k: usize, w: Atom) -> Option<ir::Dim> {
    let mut w = w;
    for st in lam.body.stms[..k].iter().rev() {
        if let (Atom::Var(v), [p], Exp::Atom(a)) = (w, st.pat.as_slice(), &st.exp) {
            if p.var == v {
                w = *a;
            }
        }
    }
    match w {
        Atom::Const(PrimValue::I64(c)) => Some(ir::Dim::Const(c)),
        Atom::Const(_) => None,
        Atom::Var(v) => {
            let mut inner = lam.params.iter().any(|p| p.var == v);
            for st in &lam.body.stms {
                inner |= st.pat.iter().any(|p| p.var == v);
            }
            (!inner).then_some(ir::Dim::Var(v))
        }
    }
}

/// The element type of the pack that holds values of `t`: their bits as `u32` (so values of
/// every type share one buffer), except f16, whose bits are 16 wide.
fn pack_type(t: PrimType, wide: bool) -> PrimType {
    match t {
        PrimType::Float(crate::prim::FloatType::F16) => t,
        PrimType::Int(crate::prim::IntType::I64 | crate::prim::IntType::U64) if wide => {
            PrimType::Int(crate::prim::IntType::U64)
        }
        _ => PrimType::Int(crate::prim::IntType::U32),
    }
}

/// The statements that bind `p` to the value whose pack word is `word`. Conversions of 32-bit
/// words are exact on the GPU, where i64 values are 32 bits wide (or packed as u64 in a wide
/// program).
fn from_word(word: &Param, p: &Param, span: crate::diag::Span) -> Vec<Stm> {
    let t = p.ty.elem();
    let pt = word.ty.elem();
    let a = Atom::Var(word.var);
    let exp = if pt == t {
        Exp::Atom(a)
    } else {
        match t {
            PrimType::Float(f) => Exp::Math(ir::MathFn::FromBits, PrimType::Float(f), vec![a]),
            _ => Exp::Convert { from: pt, to: t, arg: a },
        }
    };
    vec![Stm { pat: vec![p.clone()], exp, span }]
}

/// Whether `lam` returns exactly the results of its statement at `k`, which only copies follow.
pub fn returns(lam: &Lambda, k: usize) -> bool {
    let Some(st) = lam.body.stms.get(k) else { return false };
    let mut copies = HashMap::new();
    for x in &lam.body.stms[k + 1..] {
        match (x.pat.as_slice(), &x.exp) {
            ([p], Exp::Atom(Atom::Var(v))) => {
                copies.insert(p.var, *v);
            }
            _ => return false,
        }
    }
    let resolve = |mut v: Var| {
        while let Some(w) = copies.get(&v) {
            v = *w;
        }
        v
    };
    lam.body.result.len() == st.pat.len()
        && lam.body.result.iter().zip(&st.pat).all(|(a, p)| match a {
            Atom::Var(v) => resolve(*v) == p.var,
            Atom::Const(_) => false,
        })
}
