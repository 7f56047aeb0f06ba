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
//! reads fall in different banks for neighbouring invocations; an invocation computes the padding
//! of its slots once (`striped_base`, `blocked_base`), not per element.

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

/// This invocation's padded slot for its `r`-th element of a tile loaded striped (element
/// `lid + 256 r`, whose padded position `p + (p >> 5)` is `lid + (lid >> 5) + 264 r`), given
/// `base` from [`striped_base`]: no shift per element.
fn striped_slot(base: &str, r: u32) -> String {
    format!("({base} + {})", r * (WORKGROUP + WORKGROUP / 32))
}

fn striped_base(gen: &mut Gen) -> String {
    gen.let_("i32(lid) + (i32(lid) >> 5u)", PrimType::Int(ir_i32()))
}

/// This invocation's padded slot for its `r`-th of `k` consecutive elements (element
/// `k lid + r`): `k` divides 32 and `r < k`, so the padding is that of `k lid`.
fn blocked_slot(base: &str, r: usize) -> String {
    format!("({base} + {r})")
}

fn blocked_base(gen: &mut Gen, k: usize) -> String {
    gen.let_(&format!("i32(lid) * {k} + ((i32(lid) * {k}) >> 5u)"), PrimType::Int(ir_i32()))
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
    let base = striped_base(gen);
    for r in 0..k {
        let p = gen.let_(&format!("i32(lid) + {}", r * WORKGROUP), PrimType::Int(ir_i32()));
        gen.open(&format!("if ({p} < cnt) {{"));
        let xs = elements(gen, arrs, &format!("(t0 + {p})"))?;
        for (j, (x, t)) in xs.iter().zip(tys).enumerate() {
            let KVal::Scalar(e, _) = x else {
                return Err(super::internal(crate::diag::Span::DUMMY, "a scan of arrays"));
            };
            gen.line(&format!("st{j}[{}] = {};", striped_slot(&base, r), store(e, *t)));
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
    let base = blocked_base(gen, k as usize);
    for r in 0..k {
        let q = gen.let_(&format!("i32(lid) * {k} + {r}"), PrimType::Int(ir_i32()));
        let xs = declare_accs(gen, neutral, tys)?;
        gen.open(&format!("if ({q} < cnt) {{"));
        for (j, (x, t)) in xs.iter().zip(tys).enumerate() {
            let slot = blocked_slot(&base, r as usize);
            gen.line(&format!("{x} = {};", load(&format!("st{j}[{slot}]"), *t)));
        }
        gen.close();
        own.push(xs);
    }
    Ok(own)
}

/// Fold this invocation's elements (those inside the tile) into `into`, in order, running
/// `each` after each with the element's padded slot in the tile.
fn fold_own(
    gen: &mut Gen,
    lam: &ir::Lambda,
    tys: &[PrimType],
    own: &[Vec<String>],
    into: &[String],
    mut each: impl FnMut(&mut Gen, &str) -> R<()>,
) -> R<()> {
    let k = own.len();
    let base = blocked_base(gen, k);
    for (r, xs) in own.iter().enumerate() {
        gen.open(&format!("if ((i32(lid) * {k} + {r}) < cnt) {{"));
        let args = xs.iter().zip(tys).map(|(x, t)| KVal::Scalar(x.clone(), *t)).collect();
        fold_in(gen, lam, into, tys, args)?;
        each(gen, &blocked_slot(&base, r))?;
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
    let (own, last) = scan_tile(gen, lam, neutral, &arrs, tys, k)?;
    write_tile(gen, lam, tys, &own, &run, last, out_bufs, k)?;
    let tile_total = shared_values(gen, tys, last, &format!("{}u", WORKGROUP - 1));
    fold_in(gen, lam, &run, tys, tile_total)?;
    // The next tile overwrites `st`, `sh` and `sp`.
    gen.line("workgroupBarrier();");
    gen.close();
    Ok(())
}

/// Stage the tile at `t0` (`cnt` elements), fold each invocation's `k` elements and scan the
/// invocations' values: each invocation's elements (kept for [`write_tile`]) and the array
/// holding the scan ([`scan_invocations`]).
fn scan_tile(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[KVal],
    tys: &[PrimType],
    k: u32,
) -> R<(Vec<Vec<String>>, &'static str)> {
    stage_tile(gen, arrs, tys, k)?;
    let own = load_own(gen, neutral, tys, k)?;
    let v = declare_accs(gen, neutral, tys)?;
    fold_own(gen, lam, tys, &own, &v, |_, _| Ok(()))?;
    let last = scan_invocations(gen, lam, tys, &v)?;
    Ok((own, last))
}

/// The inclusive scan of the invocations' values `v`, earlier ones on the left, in workgroup
/// memory (Kogge-Stone: step `s` reads one of `sh`/`sp` and writes the other, one barrier a
/// step). Returns the array holding the result.
fn scan_invocations(
    gen: &mut Gen,
    lam: &ir::Lambda,
    tys: &[PrimType],
    v: &[String],
) -> R<&'static str> {
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
    Ok(if steps % 2 == 0 { "sh" } else { "sp" })
}

/// Scan the tile from `prefix` (everything before it) and write it to `out_bufs`: each
/// invocation's prefix is `prefix` and the invocations before it (`last`, from
/// [`scan_invocations`]); its elements are rescanned from there over their places in the tile,
/// and the tile goes out with neighbouring invocations on neighbouring elements.
#[allow(clippy::too_many_arguments)]
fn write_tile(
    gen: &mut Gen,
    lam: &ir::Lambda,
    tys: &[PrimType],
    own: &[Vec<String>],
    prefix: &[String],
    last: &str,
    out_bufs: &[usize],
    k: u32,
) -> R<()> {
    let acc: Vec<String> = prefix
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
    fold_own(gen, lam, tys, own, &acc, |gen, slot| {
        for (j, (a, t)) in acc.iter().zip(tys).enumerate() {
            gen.line(&format!("st{j}[{slot}] = {};", store(a, *t)));
        }
        Ok(())
    })?;
    gen.line("workgroupBarrier();");
    let base = striped_base(gen);
    for r in 0..k {
        let p = gen.let_(&format!("i32(lid) + {}", r * WORKGROUP), PrimType::Int(ir_i32()));
        gen.open(&format!("if ({p} < cnt) {{"));
        for (j, b) in out_bufs.iter().enumerate() {
            gen.line(&format!("b{b}[t0 + {p}] = st{j}[{}];", striped_slot(&base, r)));
        }
        gen.close();
    }
    Ok(())
}

/// Whether a scan of elements of `tys` can run in one pass ([`single_pass`]): each element of
/// each array is one 32-bit word, which the look-back publishes in two halves.
pub fn single_pass_fits(tys: &[PrimType], wide: bool) -> bool {
    !tys.is_empty() && tys.iter().all(|t| !(wide && super::scalar::narrowed(*t)))
}

/// The workgroup variables of [`single_pass`] besides [`shared_decls`]: the tile taken (`tk`)
/// and the tile's exclusive prefix (`sx{j}`).
pub fn single_pass_decls(tys: &[PrimType], k: u32, wide: bool) -> String {
    let mut s = shared_decls(tys, k, wide);
    s.push_str("var<workgroup> tk: u32;\n");
    for (j, t) in tys.iter().enumerate() {
        s.push_str(&format!("var<workgroup> sx{j}: {};\n", storage_type(*t, wide)));
    }
    s
}

/// The whole scan in one pass, reading and writing each element once (a third less memory
/// traffic than the three passes): a decoupled look-back. Each workgroup takes a tile of `256 * k`
/// elements, in order, from a counter (word 0 of `flags`, binding `flag_buf`; one workgroup a
/// tile, so no invocation's loops run longer than one tile's walk); it scans its tile
/// as [`pass3`] does, and finds the tile's prefix from the records its predecessors publish:
/// first a tile's own total ("aggregate"), then its inclusive prefix. Invocation 0 walks back
/// over the records, combining aggregates until it meets a prefix, then publishes its own.
///
/// WGSL's atomics are relaxed, so a record word is never a flag beside a value: each 32-bit
/// value is published as two atomic words, each holding 16 bits and a set bit 16; a word read
/// with that bit set is final (each is written once, after the buffer was zeroed). Tile `t`'s
/// record starts at word `1 + 4 * c * t` (`c` words per element): `2c` words of its aggregate,
/// then `2c` of its prefix.
///
/// A tile is taken only by a running workgroup, so on a GPU whose running workgroups all make
/// progress, the walk only waits for work in flight. WebGPU does not promise that progress, so
/// after a number of polls of a record (argument word 2; 0 never reads them) the walk folds that
/// tile from the input itself (slowly, in one invocation) and goes on to the one before: the
/// pass always finishes.
#[allow(clippy::too_many_arguments)]
pub fn single_pass(
    gen: &mut Gen,
    lam: &ir::Lambda,
    neutral: &[Atom],
    arrs: &[Var],
    tys: &[PrimType],
    k: u32,
    flag_buf: usize,
    out_bufs: &[usize],
) -> R<()> {
    let tile = WORKGROUP * k;
    let c = tys.len() as u32;
    let f = format!("b{flag_buf}");
    let arrs = arrs.iter().map(|a| gen.var(*a)).collect::<R<Vec<_>>>()?;
    gen.line("let w = bitcast<i32>(ogm_args[0][0]);");
    gen.line("let tiles = i32(ogm_args[0][1]);");
    gen.line("let limit = ogm_args[0][2];");
    gen.open("if (lid == 0u) {");
    gen.line(&format!("tk = atomicAdd(&{f}[0], 1u);"));
    gen.close();
    gen.line("let t = i32(workgroupUniformLoad(&tk));");
    gen.open("if (t >= tiles) {");
    gen.line("return;");
    gen.close();
    gen.line(&format!("let t0 = t * {tile};"));
    gen.line(&format!("let cnt = min({tile}, w - t0);"));
    let (own, last) = scan_tile(gen, lam, neutral, &arrs, tys, k)?;
    gen.open("if (lid == 0u) {");
    let agg = shared_values(gen, tys, last, &format!("{}u", WORKGROUP - 1));
    let agg: Vec<String> = agg
        .into_iter()
        .map(|a| match a {
            KVal::Scalar(e, _) => Ok(e),
            _ => Err(super::internal(crate::diag::Span::DUMMY, "a scan of arrays")),
        })
        .collect::<R<_>>()?;
    let rec = |slot: &str| format!("(1u + {} * u32(t) + {slot})", 4 * c);
    // Tile 0's aggregate is its prefix.
    gen.line(&format!("let kind = select(0u, {}u, t == 0);", 2 * c));
    publish(gen, &f, tys, &agg, &rec("kind"));
    let ex = declare_accs(gen, neutral, tys)?;
    gen.line("var j = t - 1;");
    gen.open("loop {");
    gen.open("if (j < 0) {");
    gen.line("break;");
    gen.close();
    gen.line("var found = 0u;");
    gen.line("var polls = 0u;");
    let at = |slot: u32| format!("(1u + {} * u32(j) + {slot}u)", 4 * c);
    gen.open("loop {");
    // Its prefix, which ends the walk, else its aggregate.
    gen.open("if (limit > 0u) {");
    for (kind, code) in [(2 * c, 2), (0, 1)] {
        let (ready, vals) = read_record(gen, &f, tys, &at(kind))?;
        gen.open(&format!("if ({ready}) {{"));
        fold_before(gen, lam, tys, &ex, vals)?;
        gen.line(&format!("found = {code}u;"));
        gen.line("break;");
        gen.close();
    }
    gen.close();
    gen.line("polls += 1u;");
    gen.open("if (polls >= limit) {");
    let own_total = declare_accs(gen, neutral, tys)?;
    gen.line(&format!("let j0 = j * {tile};"));
    gen.open(&format!("for (var q = j0; q < min(j0 + {tile}, w); q++) {{"));
    let xs = elements(gen, &arrs, "q")?;
    fold_in(gen, lam, &own_total, tys, xs)?;
    gen.close();
    let vals = own_total.iter().zip(tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).collect();
    fold_before(gen, lam, tys, &ex, vals)?;
    gen.line("found = 1u;");
    gen.line("break;");
    gen.close();
    gen.close();
    gen.open("if (found == 2u) {");
    gen.line("break;");
    gen.close();
    gen.line("j -= 1;");
    gen.close();
    // The inclusive prefix, for the tiles after this one.
    gen.open("if (t > 0) {");
    let incl = declare_accs(gen, neutral, tys)?;
    gen.assign(
        &ex.iter().zip(tys).map(|(e, t)| KVal::Scalar(e.clone(), *t)).collect::<Vec<_>>(),
        &incl,
    )?;
    let aggs = agg.iter().zip(tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)).collect();
    fold_in(gen, lam, &incl, tys, aggs)?;
    publish(gen, &f, tys, &incl, &rec(&format!("{}u", 2 * c)));
    gen.close();
    for (j, (e, t)) in ex.iter().zip(tys).enumerate() {
        gen.line(&format!("sx{j} = {};", store(e, *t)));
    }
    gen.close();
    gen.line("workgroupBarrier();");
    let prefix: Vec<String> =
        tys.iter().enumerate().map(|(j, t)| load(&format!("sx{j}"), *t)).collect();
    write_tile(gen, lam, tys, &own, &prefix, last, out_bufs, k)
}

/// Publish `vals` at record word `at` of `f` (see [`single_pass`]): each value's low and high
/// 16 bits, each with bit 16 set.
fn publish(gen: &mut Gen, f: &str, tys: &[PrimType], vals: &[String], at: &str) {
    for (j, (v, t)) in vals.iter().zip(tys).enumerate() {
        let bits = gen.fresh("bits");
        gen.line(&format!("let {bits} = bitcast<u32>({});", store(v, *t)));
        gen.line(&format!("atomicStore(&{f}[{at} + {}u], ({bits} & 0xffffu) | 0x10000u);", 2 * j));
        gen.line(&format!("atomicStore(&{f}[{at} + {}u], ({bits} >> 16u) | 0x10000u);", 2 * j + 1));
    }
}

/// Read a record published at word `at` of `f`: a condition that every word of it is there,
/// and its values (meaningful when it holds).
fn read_record(gen: &mut Gen, f: &str, tys: &[PrimType], at: &str) -> R<(String, Vec<KVal>)> {
    let mut ready = Vec::new();
    let mut vals = Vec::new();
    for (j, t) in tys.iter().enumerate() {
        let lo = gen.fresh("lo");
        let hi = gen.fresh("hi");
        gen.line(&format!("let {lo} = atomicLoad(&{f}[{at} + {}u]);", 2 * j));
        gen.line(&format!("let {hi} = atomicLoad(&{f}[{at} + {}u]);", 2 * j + 1));
        ready.push(format!("(({lo} & {hi} & 0x10000u) != 0u)"));
        let st = storage_type(*t, gen.wide);
        let e = load(&format!("bitcast<{st}>(({lo} & 0xffffu) | ({hi} << 16u))"), *t);
        vals.push(KVal::Scalar(gen.let_(&e, *t), *t));
    }
    Ok((ready.join(" && "), vals))
}

/// `acc = lam(before, acc)`: `before` comes earlier in the scan's order.
fn fold_before(
    gen: &mut Gen,
    lam: &ir::Lambda,
    tys: &[PrimType],
    acc: &[String],
    before: Vec<KVal>,
) -> R<()> {
    let args =
        before.into_iter().chain(acc.iter().zip(tys).map(|(a, t)| KVal::Scalar(a.clone(), *t)));
    let res = gen.apply_lambda(lam, args.collect())?;
    gen.assign(&res, acc)
}
