//! Row kernels (Futhark's "intra-group" kernels): a host-level `map` whose function works on
//! whole rows, as a sequence of maps and scalar reductions over the row plus scalar statements
//! (`softmax`, log-sum-exp, normalising a row), becomes one kernel instead of the pieces that map
//! distribution makes of it (a segmented reduction per row value, a packing kernel and an
//! elementwise map).
//!
//! Two kernels are generated from the function:
//!
//! * `group`: one workgroup of [`ROW_LANES`] invocations per row. Lane `l` takes the row's
//!   elements `l, l + ROW_LANES, ...` (a contiguous chunk instead for a non-commutative
//!   reduction, so the order is kept); a reduction's per-lane values meet in workgroup memory in
//!   two levels of [`FAN`] (two barriers, where a tree takes eight: each barrier splits the
//!   shader on a software device), and every lane reads the result. A map result that later
//!   statements use more than once is computed once into workgroup memory (at most `bound`
//!   elements, checked by the executor, which otherwise runs the distributed pieces); other
//!   arrays stay delayed and are computed where they are read. Results are written once, strided.
//! * `thread`: one invocation per row, running the function sequentially (for short rows, and
//!   for many rows on software devices, where an invocation is a SIMD lane and the lanes of a
//!   workgroup already make the work parallel).

use super::kernel::{load, store, DArr, Gen, KVal, R};
use super::{internal, BufRef};
use crate::ad::walk;
use crate::ir::{self, Atom, Exp, Lambda, Type, Var};
use crate::prim::{IntType, PrimType, PrimValue};
use std::rc::Rc;

/// Invocations of a row kernel's workgroup, which share one row.
pub const ROW_LANES: u32 = 256;
/// A reduction combines its lanes' values in two levels of `FAN` (`FAN * FAN == ROW_LANES`).
const FAN: u32 = 16;
/// The 32-bit words of workgroup memory a row kernel may use: WebGPU's guaranteed 16 KiB.
const LOCAL_WORDS: i64 = 4096;

/// Whether `lam`, the function of a host-level map (calls at its top inlined), is a row function
/// worth a row kernel: it returns scalars and one-dimensional arrays, every statement at its top
/// that loops is a reduction to scalars, and the maps at its top compute each element without a
/// loop. A function whose only loop is a final reduction to its scalar results is left to the
/// segmented reduction (`HostStm::SegReduce`), which is that case already.
pub fn applies(prog: &ir::Program, lam: &Lambda) -> bool {
    if !lam.ret.iter().all(|t| t.rank() <= 1) {
        return false;
    }
    let mut reductions = 0;
    for st in &lam.body.stms {
        let ok = match &st.exp {
            Exp::Reduce { lam: op, .. } if st.pat.iter().all(|p| matches!(p.ty, Type::Prim(_))) => {
                reductions += 1;
                flat(prog, &op.body)
            }
            Exp::Map { lam: f, .. } => {
                f.ret.iter().all(|t| matches!(t, Type::Prim(_))) && flat(prog, &f.body)
            }
            e => !super::distribute::loops(prog, e, 0),
        };
        if !ok {
            return false;
        }
    }
    let scalar_results = lam.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    reductions > 1 || (reductions == 1 && !scalar_results)
}

/// Whether a body runs no loop (an element of a map, or a reduction's operator).
fn flat(prog: &ir::Program, b: &ir::Body) -> bool {
    !b.stms.iter().any(|s| super::distribute::loops(prog, &s.exp, 0))
}

/// What the host needs to know about a generated row kernel.
pub struct RowKernel {
    /// Its workgroup memory declarations.
    pub shared: String,
    /// The widths of the arrays it keeps in workgroup memory, as host values.
    pub local: Vec<Atom>,
    /// The most elements each of those may have.
    pub bound: i64,
}

/// Emit the code of a row kernel for the map `s` (function `lam` over `arrs`): `group` for one
/// workgroup per row, otherwise one invocation per row.
pub fn emit(gen: &mut Gen, s: &ir::Stm, lam: &Lambda, arrs: &[Var], group: bool) -> R<RowKernel> {
    let i32t = PrimType::Int(IntType::I32);
    let outer = match s.pat.first().map(|p| &p.ty) {
        Some(Type::Array { shape, .. }) => shape.first().copied(),
        _ => None,
    };
    let n = gen.dim(&outer.ok_or_else(|| internal(s.span, "a row map's result"))?)?;
    let (lane, step) = if group {
        gen.line("let row = i32(wg.x + wg.y * nwg.x);");
        gen.line(&format!("if (row >= {n}) {{ return; }}"));
        gen.line("let lane = i32(lid);");
        ("lane", ROW_LANES as i32)
    } else {
        gen.line(&format!("let row = i32((wg.x + wg.y * nwg.x) * {}u + lid);", super::WORKGROUP));
        gen.line(&format!("if (row >= {n}) {{ return; }}"));
        ("0", 1)
    };
    for (p, a) in lam.params.iter().zip(arrs) {
        let v = match gen.var(*a)? {
            KVal::Arr(a) => gen.index(&a, &["row".to_string()])?,
            sc => sc,
        };
        gen.bind(p.var, v);
    }
    let plan = if group { plan(gen, lam) } else { Plan::default() };
    if plan.partial_words > LOCAL_WORDS {
        return Err(internal(s.span, "a row kernel's reductions need too much workgroup memory"));
    }
    let mut shared = String::new();
    let mut reduction = 0;
    for (k, st) in lam.body.stms.iter().enumerate() {
        let reduces = matches!(st.exp, Exp::Reduce { .. })
            && st.pat.iter().all(|p| matches!(p.ty, Type::Prim(_)));
        if group && reduces {
            group_reduce(gen, st, reduction % 2, &mut shared)?;
            reduction += 1;
            continue;
        }
        gen.stm(st)?;
        for (p, _) in plan.keep.iter().filter(|(_, j)| *j == k) {
            keep_local(gen, st, *p, plan.bound, lane, step, &mut shared)?;
        }
    }
    let results = lam.body.result.iter().map(|a| gen.atom(a)).collect::<R<Vec<_>>>()?;
    for (p, r) in s.pat.iter().zip(results) {
        let elem = p.ty.elem();
        let b = gen.buffer(BufRef::Var(p.var), elem, super::Access::ReadWrite);
        match (&p.ty, r) {
            (Type::Array { shape, .. }, KVal::Arr(a)) if shape.len() == 2 => {
                let m = gen.dim(&shape[1])?;
                let m = gen.let_(&m, i32t);
                let j = gen.fresh("j");
                let l = gen.open_count(&j, lane, &m, step);
                let KVal::Scalar(e, _) = gen.index(&a, std::slice::from_ref(&j))? else {
                    return Err(internal(s.span, "a row's element that is an array"));
                };
                gen.line(&format!("b{b}[row * {m} + {j}] = {};", store(&e, elem)));
                gen.close_count(l);
            }
            (Type::Array { shape, .. }, KVal::Scalar(e, _)) if shape.len() == 1 => {
                gen.open(&format!("if ({lane} == 0) {{"));
                gen.line(&format!("b{b}[row] = {};", store(&e, elem)));
                gen.close();
            }
            _ => return Err(internal(s.span, "a row map's result")),
        }
    }
    Ok(RowKernel { shared, local: plan.widths, bound: plan.bound })
}

/// Which map results a group kernel keeps in workgroup memory.
#[derive(Default)]
struct Plan {
    /// (the result, the index of the statement computing it)
    keep: Vec<(Var, usize)>,
    /// Their widths as host values.
    widths: Vec<Atom>,
    /// The most elements of each.
    bound: i64,
    /// Workgroup words the reductions' partial values take.
    partial_words: i64,
}

/// Keep a map result in workgroup memory when the rest of the function reads it more than once
/// (each read would recompute its elements), it is one 32-bit word per element, and its width is
/// a host value (the executor checks it against the bound). The reductions' partial values
/// (two alternating sets, so that one reduction's result is read while the next one's partials
/// are written) take their share of workgroup memory first.
fn plan(gen: &Gen, lam: &Lambda) -> Plan {
    let stms = &lam.body.stms;
    let mut values = 0;
    let mut reductions = 0;
    for st in stms {
        if matches!(st.exp, Exp::Reduce { .. }) && st.pat.iter().all(|p| p.ty.rank() == 0) {
            values = values.max(st.pat.len() as i64);
            reductions += 1;
        }
    }
    let partial_words = reductions.min(2) * values * (ROW_LANES + FAN) as i64;
    let mut keep = Vec::new();
    let mut widths = Vec::new();
    for (k, st) in stms.iter().enumerate() {
        if !matches!(st.exp, Exp::Map { .. }) {
            continue;
        }
        let rest = ir::Body { stms: stms[k + 1..].to_vec(), result: lam.body.result.clone() };
        for p in &st.pat {
            let Type::Array { elem, shape } = &p.ty else { continue };
            if shape.len() != 1 || gen.two_words(*elem) || uses(&rest, p.var) < 2 {
                continue;
            }
            let w = match shape[0] {
                ir::Dim::Const(c) => Atom::Const(PrimValue::I64(c)),
                ir::Dim::Var(v) => Atom::Var(v),
            };
            let Some(d) = super::distribute::host_width(lam, k, w) else { continue };
            keep.push((p.var, k));
            widths.push(match d {
                ir::Dim::Const(c) => Atom::Const(PrimValue::I64(c)),
                ir::Dim::Var(v) => Atom::Var(v),
            });
        }
    }
    let lanes = ROW_LANES as i64;
    let bound = match keep.len() as i64 {
        0 => 0,
        c => (LOCAL_WORDS - partial_words).max(0) / c / lanes * lanes,
    };
    if bound == 0 {
        keep.clear();
        widths.clear();
    }
    Plan { keep, widths, bound, partial_words }
}

/// How often `v` is read in `b`.
fn uses(b: &ir::Body, v: Var) -> usize {
    let mut b = b.clone();
    let mut n = 0;
    walk::body_vars(&mut b, &mut |x, binder| {
        if !binder && *x == v {
            n += 1;
        }
    });
    n
}

/// Compute the map result `v` (bound by `st`) into workgroup memory, strided over the lanes, and
/// read it from there from now on.
fn keep_local(
    gen: &mut Gen,
    st: &ir::Stm,
    v: Var,
    bound: i64,
    lane: &str,
    step: i32,
    shared: &mut String,
) -> R<()> {
    let KVal::Arr(a) = gen.var(v)? else {
        return Err(internal(st.span, "a row's map result that is a scalar"));
    };
    let elem = a.elem();
    let dims = a.dims();
    let m = dims.first().cloned().ok_or_else(|| internal(st.span, "a row's map result"))?;
    let name = gen.fresh("rl");
    shared.push_str(&format!("var<workgroup> {name}: array<{}, {bound}>;\n", gen.storage(elem)));
    let j = gen.fresh("j");
    let l = gen.open_count(&j, lane, &m, step);
    let KVal::Scalar(e, _) = gen.index(&a, std::slice::from_ref(&j))? else {
        return Err(internal(st.span, "a row's element that is an array"));
    };
    gen.line(&format!("{name}[{j}] = {};", store(&e, elem)));
    gen.close_count(l);
    gen.line("workgroupBarrier();");
    gen.bind(v, KVal::Arr(Rc::new(DArr::Local { name, dims, elem })));
    Ok(())
}

/// A reduction to scalars over the row by the workgroup: each lane folds its elements, then the
/// lanes' values meet in workgroup memory (partial set `set`) in two levels of `FAN`, keeping
/// the lanes' order, and every lane reads the result.
fn group_reduce(gen: &mut Gen, st: &ir::Stm, set: usize, shared: &mut String) -> R<()> {
    let Exp::Reduce { w, lam: op, neutral, arrs, commutative } = &st.exp else {
        return Err(internal(st.span, "a row reduction"));
    };
    let i32t = PrimType::Int(IntType::I32);
    let tys: Vec<PrimType> = st.pat.iter().map(|p| p.ty.elem()).collect();
    let m = gen.atom_i32(w)?;
    let m = gen.let_(&m, i32t);
    let accs = declare(gen, neutral, &tys)?;
    let xs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    let j = gen.fresh("j");
    let lanes = ROW_LANES;
    let l = if *commutative {
        gen.open_count(&j, "lane", &m, lanes as i32)
    } else {
        let chunk = gen.let_(&format!("({m} + {}) / {lanes}", lanes - 1), i32t);
        let start = gen.let_(&format!("min(lane * {chunk}, {m})"), i32t);
        let end = gen.let_(&format!("min({start} + {chunk}, {m})"), i32t);
        gen.open_count(&j, &start, &end, 1)
    };
    let elems = xs
        .iter()
        .map(|a| match a {
            KVal::Arr(a) => gen.index(a, std::slice::from_ref(&j)),
            sc => Ok(sc.clone()),
        })
        .collect::<R<Vec<_>>>()?;
    fold(gen, op, &accs, &tys, elems)?;
    gen.close_count(l);
    // Partials of every lane, then of every `FAN` lanes.
    let (p, q): (Vec<String>, Vec<String>) =
        (0..tys.len()).map(|k| (format!("rp{set}_{k}"), format!("rq{set}_{k}"))).unzip();
    for ((pn, qn), t) in p.iter().zip(&q).zip(&tys) {
        let decl = format!("var<workgroup> {pn}: array<{}, {lanes}>;\n", gen.storage(*t));
        if !shared.contains(&decl) {
            shared.push_str(&decl);
            shared.push_str(&format!("var<workgroup> {qn}: array<{}, {FAN}>;\n", gen.storage(*t)));
        }
    }
    for ((pn, a), t) in p.iter().zip(&accs).zip(&tys) {
        gen.line(&format!("{pn}[lid] = {};", store(a, *t)));
    }
    gen.line("workgroupBarrier();");
    gen.open(&format!("if (lid < {FAN}u) {{"));
    let first = loads(gen, &p, &tys, &format!("lid * {FAN}u"));
    let part = declare_vals(gen, first)?;
    gen.open(&format!("for (var t = 1u; t < {FAN}u; t++) {{"));
    let next = loads(gen, &p, &tys, &format!("lid * {FAN}u + t"));
    fold(gen, op, &part, &tys, next)?;
    gen.close();
    for ((qn, a), t) in q.iter().zip(&part).zip(&tys) {
        gen.line(&format!("{qn}[lid] = {};", store(a, *t)));
    }
    gen.close();
    gen.line("workgroupBarrier();");
    let first = loads(gen, &q, &tys, "0u");
    let total = declare_vals(gen, first)?;
    gen.open(&format!("for (var t = 1u; t < {FAN}u; t++) {{"));
    let next = loads(gen, &q, &tys, "t");
    fold(gen, op, &total, &tys, next)?;
    gen.close();
    for ((pat, a), t) in st.pat.iter().zip(&total).zip(&tys) {
        let v = gen.let_(a, *t);
        gen.bind(pat.var, KVal::Scalar(v, *t));
    }
    Ok(())
}

/// The elements at `at` of the workgroup arrays `names`, as `let`s.
fn loads(gen: &mut Gen, names: &[String], tys: &[PrimType], at: &str) -> Vec<KVal> {
    let mut out = Vec::new();
    for (n, t) in names.iter().zip(tys) {
        let v = gen.let_(&load(&format!("{n}[{at}]"), *t), *t);
        out.push(KVal::Scalar(v, *t));
    }
    out
}

/// `var acc: T = neutral;` for each value.
fn declare(gen: &mut Gen, neutral: &[Atom], tys: &[PrimType]) -> R<Vec<String>> {
    let vals = neutral
        .iter()
        .zip(tys)
        .map(|(a, t)| Ok(KVal::Scalar(gen.scalar(a)?.0, *t)))
        .collect::<R<Vec<_>>>()?;
    declare_vals(gen, vals)
}

/// A `var` holding each of `vals` (scalars).
fn declare_vals(gen: &mut Gen, vals: Vec<KVal>) -> R<Vec<String>> {
    let mut names = Vec::new();
    for v in vals {
        let KVal::Scalar(e, t) = v else {
            return Err(internal(crate::diag::Span::DUMMY, "an array accumulator"));
        };
        let n = gen.fresh("acc");
        gen.line(&format!("var {n}: {} = {e};", gen.ty(t)));
        names.push(n);
    }
    Ok(names)
}

/// `accs = op(accs, xs)`.
fn fold(gen: &mut Gen, op: &Lambda, accs: &[String], tys: &[PrimType], xs: Vec<KVal>) -> R<()> {
    let args = accs.iter().zip(tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).chain(xs).collect();
    let res = gen.apply_lambda(op, args)?;
    gen.assign(&res, accs)
}
