//! Scans on a GPU with their elements staged in workgroup memory.
//!
//! A scan keeps element order (its operator need not commute), so each invocation's elements
//! must be consecutive. Read straight from storage, as [`super::host`]'s passes do, neighbouring
//! invocations then load elements a whole chunk apart: on an H100 such a pass moved 170 GB/s of
//! a 3 TB/s memory. Here each workgroup scans a contiguous block of the input in tiles of
//! `256 * k` elements. The workgroup loads a tile with neighbouring invocations on neighbouring
//! elements, into workgroup memory; each invocation then folds its `k` consecutive elements
//! there; the invocations' values are combined in order (a tree for the first pass's total, an
//! inclusive Kogge-Stone scan for the third); and the third pass writes its results back through
//! workgroup memory the same way. Both passes cut the input into the same blocks, so the second
//! pass's prefix of a block's partial is the prefix of the block's first tile.
//!
//! Workgroup memory is padded by a word every 32, so the `k` consecutive words an invocation
//! reads fall in different banks for neighbouring invocations.

use super::host::{declare_accs, elements, fold_in, fold_strided, shared_values, tree_reduce};
use super::kernel::{load, store, Gen, KVal, R};
use super::{storage_type, WORKGROUP};
use crate::ir::{self, Atom, Var};
use crate::prim::PrimType;

/// Elements each invocation stages per tile, by the words an element of all the scanned arrays
/// takes together: the tile and the invocations' values fit in the 16 KiB of workgroup memory
/// WebGPU guarantees.
/// `None` when the elements are too wide to stage (the unstaged passes run instead).
pub fn per_invocation(tys: &[PrimType], wide: bool) -> Option<u32> {
    let words: usize =
        tys.iter().map(|t| if wide && super::scalar::narrowed(*t) { 2 } else { 1 }).sum();
    match words {
        1 => Some(8),
        2 => Some(4),
        3 => Some(2),
        4 => Some(1),
        _ => None,
    }
}

/// The tile's workgroup arrays (`st{j}`, padded) and the invocations' values (`sh{j}`).
pub fn shared_decls(tys: &[PrimType], k: u32, wide: bool) -> String {
    let tile = WORKGROUP * k;
    let mut s = String::new();
    for (j, t) in tys.iter().enumerate() {
        let t = storage_type(*t, wide);
        s.push_str(&format!("var<workgroup> st{j}: array<{t}, {}>;\n", tile + tile / 32));
        s.push_str(&format!("var<workgroup> sh{j}: array<{t}, {WORKGROUP}>;\n"));
        s.push_str(&format!("var<workgroup> sp{j}: array<{t}, {WORKGROUP}>;\n"));
    }
    s
}

/// The padded position of word `p` (an `i32`) of a tile.
fn pad(p: &str) -> String {
    format!("({p} + ({p} >> 5u))")
}

/// This workgroup's block `[blk0, blk1)` of the `w` elements (argument word 0): the elements
/// split evenly between the workgroups, rounded up to whole tiles.
fn block(gen: &mut Gen, tile: u32) {
    gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
    gen.line("let groups = i32(nwg.x);");
    gen.line(&format!("let block = ((w + groups - 1) / groups + {}) / {tile} * {tile};", tile - 1));
    gen.line("let blk0 = min(i32(wg.x) * block, w);");
    gen.line("let blk1 = min(blk0 + block, w);");
}

/// Load the tile starting at `t0` (`cnt` elements) into `st{j}`, neighbouring invocations on
/// neighbouring elements, then wait for the whole tile.
fn stage_tile(gen: &mut Gen, arrs: &[KVal], tys: &[PrimType], k: u32) -> R<()> {
    for r in 0..k {
        let p = gen.let_(&format!("i32(lid) + {}", r * WORKGROUP), PrimType::Int(ir_i32()));
        gen.open(&format!("if ({p} < cnt) {{"));
        let xs = elements(gen, arrs, &format!("(t0 + {p})"))?;
        for (j, (x, t)) in xs.iter().zip(tys).enumerate() {
            let KVal::Scalar(e, _) = x else {
                return Err(super::internal(crate::diag::Span::DUMMY, "a scan of arrays"));
            };
            gen.line(&format!("st{j}[{}] = {};", pad(&p), store(e, *t)));
        }
        gen.close();
    }
    gen.line("workgroupBarrier();");
    Ok(())
}

fn ir_i32() -> crate::prim::IntType {
    crate::prim::IntType::I32
}

/// This invocation's `k` consecutive staged elements, read once into variables (past the
/// tile's end they keep the neutral element, and [`fold_own`] never folds them).
fn load_own(gen: &mut Gen, neutral: &[Atom], tys: &[PrimType], k: u32) -> R<Vec<Vec<String>>> {
    let mut own = Vec::new();
    for r in 0..k {
        let q = gen.let_(&format!("i32(lid) * {k} + {r}"), PrimType::Int(ir_i32()));
        let xs = declare_accs(gen, neutral, tys)?;
        gen.open(&format!("if ({q} < cnt) {{"));
        for (j, (x, t)) in xs.iter().zip(tys).enumerate() {
            gen.line(&format!("{x} = {};", load(&format!("st{j}[{}]", pad(&q)), *t)));
        }
        gen.close();
        own.push(xs);
    }
    Ok(own)
}

/// Fold this invocation's elements (those inside the tile) into `into`, in order, running
/// `each` after each with the element's position in the tile.
fn fold_own(
    gen: &mut Gen,
    lam: &ir::Lambda,
    tys: &[PrimType],
    own: &[Vec<String>],
    into: &[String],
    mut each: impl FnMut(&mut Gen, &str) -> R<()>,
) -> R<()> {
    let k = own.len();
    for (r, xs) in own.iter().enumerate() {
        let q = format!("(i32(lid) * {k} + {r})");
        gen.open(&format!("if ({q} < cnt) {{"));
        let args = xs.iter().zip(tys).map(|(x, t)| KVal::Scalar(x.clone(), *t)).collect();
        fold_in(gen, lam, into, tys, args)?;
        each(gen, &q)?;
        gen.close();
    }
    Ok(())
}

/// Whether `lam` is a binary operator whose arguments may be swapped: `+`, `*`, `min`, `max`
/// and the bitwise and logical connectives, applied to its two parameters.
pub fn commutes(lam: &ir::Lambda) -> bool {
    use ir::BinOp::*;
    let ([x, y], [st], [Atom::Var(r)]) =
        (lam.params.as_slice(), lam.body.stms.as_slice(), lam.body.result.as_slice())
    else {
        return false;
    };
    let ir::Exp::BinOp(op, _, Atom::Var(a), Atom::Var(b)) = &st.exp else { return false };
    let args = (*a == x.var && *b == y.var) || (*a == y.var && *b == x.var);
    args && st.pat.len() == 1
        && st.pat[0].var == *r
        && matches!(op, Add | Mul | Min | Max | And | Or | Xor | LogAnd | LogOr)
}

/// Pass 1 for an operator that [`commutes`]: each workgroup's block needs only its total, in
/// any order, so its invocations fold it strided (neighbours on neighbouring elements, several
/// loads in flight), without staging, and meet in one tree.
pub fn pass1_commutative(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[Var],
    tys: &[PrimType],
    k: u32,
    partial_bufs: &[usize],
) -> R<()> {
    block(gen, WORKGROUP * k);
    let arrs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    let accs = declare_accs(gen, neutral, tys)?;
    let step = WORKGROUP.to_string();
    fold_strided(gen, lam, &accs, tys, &arrs, ["blk0 + i32(lid)", "blk1", &step])?;
    tree_reduce(gen, lam, &accs, tys, crate::diag::Span::DUMMY)?;
    gen.open("if (lid == 0u) {");
    for (j, b) in partial_bufs.iter().enumerate() {
        gen.line(&format!("b{b}[wg.x] = sh{j}[0];"));
    }
    gen.close();
    Ok(())
}

/// Pass 1: each workgroup's fold of its block, in order, into `partials[wg.x]` (binding of
/// `Temp(j)` given by `partial_bufs`).
pub fn pass1(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[Var],
    tys: &[PrimType],
    k: u32,
    partial_bufs: &[usize],
) -> R<()> {
    let tile = WORKGROUP * k;
    block(gen, tile);
    let arrs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    let total = declare_accs(gen, neutral, tys)?;
    gen.open(&format!("for (var t0 = blk0; t0 < blk1; t0 += {tile}) {{"));
    gen.line(&format!("let cnt = min({tile}, blk1 - t0);"));
    stage_tile(gen, &arrs, tys, k)?;
    let own = load_own(gen, neutral, tys, k)?;
    let v = declare_accs(gen, neutral, tys)?;
    fold_own(gen, lam, tys, &own, &v, |_, _| Ok(()))?;
    tree_reduce(gen, lam, &v, tys, crate::diag::Span::DUMMY)?;
    let tile_total = shared_values(gen, tys, "sh", "0");
    fold_in(gen, lam, &total, tys, tile_total)?;
    // The next tile overwrites `st` and `sh`.
    gen.line("workgroupBarrier();");
    gen.close();
    gen.open("if (lid == 0u) {");
    for (j, (a, t)) in total.iter().zip(tys).enumerate() {
        gen.line(&format!("b{}[wg.x] = {};", partial_bufs[j], store(a, *t)));
    }
    gen.close();
    Ok(())
}

/// Pass 3: each workgroup scans its block from its prefix (`partials[wg.x]`, after pass 2) and
/// writes the results to `out_bufs`. An invocation keeps its `k` elements in registers between
/// folding them and scanning them; the invocations' values are scanned in two arrays used in
/// turn, one barrier a step.
#[allow(clippy::too_many_arguments)]
pub fn pass3(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[Var],
    tys: &[PrimType],
    k: u32,
    partial_bufs: &[usize],
    out_bufs: &[usize],
) -> R<()> {
    let tile = WORKGROUP * k;
    block(gen, tile);
    let arrs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    let run: Vec<String> = tys
        .iter()
        .enumerate()
        .map(|(j, t)| {
            let n = gen.fresh("run");
            let e = load(&format!("b{}[wg.x]", partial_bufs[j]), *t);
            gen.line(&format!("var {n}: {} = {e};", gen.ty(*t)));
            n
        })
        .collect();
    gen.open(&format!("for (var t0 = blk0; t0 < blk1; t0 += {tile}) {{"));
    gen.line(&format!("let cnt = min({tile}, blk1 - t0);"));
    stage_tile(gen, &arrs, tys, k)?;
    let own = load_own(gen, neutral, tys, k)?;
    let v = declare_accs(gen, neutral, tys)?;
    fold_own(gen, lam, tys, &own, &v, |_, _| Ok(()))?;
    // Inclusive scan of the invocations' values, earlier ones on the left: step `s` reads one
    // array and writes the other.
    for (j, (a, t)) in v.iter().zip(tys).enumerate() {
        gen.line(&format!("sh{j}[lid] = {};", store(a, *t)));
    }
    gen.line("workgroupBarrier();");
    let steps = WORKGROUP.trailing_zeros();
    for step in 0..steps {
        let (from, to) = if step % 2 == 0 { ("sh", "sp") } else { ("sp", "sh") };
        let d = 1u32 << step;
        gen.open(&format!("if (lid >= {d}u) {{"));
        let mut args: Vec<KVal> = Vec::new();
        for (j, t) in tys.iter().enumerate() {
            let e = load(&format!("{from}{j}[lid - {d}u]"), *t);
            args.push(KVal::Scalar(gen.let_(&e, *t), *t));
        }
        for (j, t) in tys.iter().enumerate() {
            let e = load(&format!("{from}{j}[lid]"), *t);
            args.push(KVal::Scalar(gen.let_(&e, *t), *t));
        }
        let res = gen.apply_lambda(lam, args)?;
        for (j, (r, t)) in res.iter().zip(tys).enumerate() {
            let KVal::Scalar(e, _) = r else {
                return Err(super::internal(crate::diag::Span::DUMMY, "a scan of arrays"));
            };
            gen.line(&format!("{to}{j}[lid] = {};", store(e, *t)));
        }
        gen.close();
        gen.open("else {");
        for j in 0..tys.len() {
            gen.line(&format!("{to}{j}[lid] = {from}{j}[lid];"));
        }
        gen.close();
        gen.line("workgroupBarrier();");
    }
    let last = if steps % 2 == 0 { "sh" } else { "sp" };
    // This invocation's prefix: the block's so far, then the invocations before it.
    let acc: Vec<String> = run
        .iter()
        .zip(tys)
        .map(|(r, t)| {
            let n = gen.fresh("acc");
            gen.line(&format!("var {n}: {} = {r};", gen.ty(*t)));
            n
        })
        .collect();
    gen.open("if (lid > 0u) {");
    let before = shared_values(gen, tys, last, "lid - 1u");
    fold_in(gen, lam, &acc, tys, before)?;
    gen.close();
    // Rescan the elements from that prefix, each result over its element in the tile.
    fold_own(gen, lam, tys, &own, &acc, |gen, q| {
        for (j, (a, t)) in acc.iter().zip(tys).enumerate() {
            gen.line(&format!("st{j}[{}] = {};", pad(q), store(a, *t)));
        }
        Ok(())
    })?;
    let tile_total = shared_values(gen, tys, last, &format!("{}u", WORKGROUP - 1));
    fold_in(gen, lam, &run, tys, tile_total)?;
    gen.line("workgroupBarrier();");
    for r in 0..k {
        let p = gen.let_(&format!("i32(lid) + {}", r * WORKGROUP), PrimType::Int(ir_i32()));
        gen.open(&format!("if ({p} < cnt) {{"));
        for (j, b) in out_bufs.iter().enumerate() {
            gen.line(&format!("b{b}[t0 + {p}] = st{j}[{}];", pad(&p)));
        }
        gen.close();
    }
    // The next tile overwrites `st`, `sh` and `sp`.
    gen.line("workgroupBarrier();");
    gen.close();
    Ok(())
}
