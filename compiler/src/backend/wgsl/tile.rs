//! Matrix-product-shaped map nests as kernels over square blocks of the result.
//!
//! `map (\r -> map (\c -> reduce g ne (map2 f r c)) B) A` run as one invocation per element
//! reads a row of `A` and a row of `B` for every element of the result: two loads per `f`. Here an
//! invocation computes a `side`×`side` block of the result in registers, so each step along the
//! rows reads `2 * side` elements for `side * side` applications of `f`. Each element is still
//! folded in index order from `ne`, the untiled kernel's order: results are the same bit for bit.
//!
//! On GPUs ([`emit_group`]) a workgroup of 16×16 invocations computes a 128×128 tile of the
//! result, each invocation an 8×8 block (the classic SGEMM layout): along the rows the workgroup
//! copies chunks of 8 elements of its 128 rows of `A` and of `B` from storage to workgroup
//! memory, each invocation loading a few with neighbours reading adjacent addresses, then every
//! invocation folds the chunk into its block reading `vec4`s from workgroup memory. So each
//! element loaded from storage serves 128 applications of `f`, and each read of workgroup memory
//! 8. The tiles hold one word per element; products of two-word elements (64-bit integers in a
//! wide program) keep the register blocks of [`emit`] with side [`GPU_SIDE`].
//!
//! Software adapters that run WebGPU without a GPU (SwiftShader, lavapipe) get [`emit`] with
//! side [`SOFTWARE_SIDE`] and no workgroup memory: there a 16×16 workgroup staging its operands
//! was 1.7–3× slower than the untiled kernel, because each barrier splits the shader. Their
//! invocations are the lanes of CPU vectors, where each load is bounds-checked and a large block
//! costs no occupancy (SwiftShader, matmul 1024: 2.64 s with 4×4 blocks, 0.76 s with 8×8, 0.66 s
//! with 16×16; lavapipe, matmul 512: 59, 46 and 37 ms).

use super::kernel::{load, store, DArr, Gen, KVal, R};
use super::{internal, WORKGROUP};
use crate::ir::{self, Atom, Exp, Lambda, Type, Var};
use crate::prim::{IntType, PrimType};

/// The side of the block of the result that one invocation computes on a GPU when the elements
/// are two words (no staged tiles).
pub const GPU_SIDE: u32 = 4;
/// The side of the block that one invocation computes on a software device.
pub const SOFTWARE_SIDE: u32 = 16;
/// Invocations per workgroup of the software kernel. A software device runs a workgroup on one
/// core, so with 256 a product of few blocks ran on one core (256×256: 256 blocks, one
/// workgroup); with 64 it spreads over four.
pub const SOFTWARE_GROUP: u32 = 64;

/// The side of the block that an invocation of the workgroup-tiled GPU kernel computes.
pub const GROUP_SIDE: u32 = 8;
/// The side of the result tile that a workgroup of that kernel computes: 16×16 invocations.
pub const GROUP_TILE: u32 = 16 * GROUP_SIDE;
/// How many elements of each row the workgroup stages at a time.
const CHUNK: u32 = 8;
/// Elements between the k-slices of a staged tile past its side: each warp's stores of a tile
/// read along the rows (8 rows of 4 elements) then fall in 32 distinct banks.
const PAD: u32 = 4;

/// The most statements `f` and `g` may have: the fold is unrolled `side * side` times.
const MAX_STMS: usize = 4;

/// The parts of a matrix-product nest.
pub struct Product<'a> {
    /// `[n][k]`: its rows are the `r`s.
    pub a: Var,
    /// `[p][k]`: its rows are the `c`s.
    pub b: Var,
    /// The rows' length.
    pub k: Atom,
    /// `f` takes the element of `r` first (else that of `c`).
    pub row_first: bool,
    pub f: &'a Lambda,
    pub g: &'a Lambda,
    pub ne: Atom,
}

/// `s` as a matrix-product nest: `map` over the rows of `A` of a `map` over the rows of `B` that
/// folds `map2 f r c` with `reduce g ne`, nothing else in either function, and `f` and `g`
/// scalar functions that do not mention the rows.
pub fn product(s: &ir::Stm) -> Option<Product<'_>> {
    let Exp::Map { lam: outer, arrs, .. } = &s.exp else { return None };
    let ([a], [r], [res]) = (arrs.as_slice(), outer.params.as_slice(), s.pat.as_slice()) else {
        return None;
    };
    if !matches!(&res.ty, Type::Array { shape, .. } if shape.len() == 2) {
        return None;
    }
    let [inner_stm] = outer.body.stms.as_slice() else { return None };
    let Exp::Map { lam: inner, arrs, .. } = &inner_stm.exp else { return None };
    let ([b], [c], [row]) = (arrs.as_slice(), inner.params.as_slice(), inner_stm.pat.as_slice())
    else {
        return None;
    };
    if outer.body.result != [Atom::Var(row.var)] {
        return None;
    }
    let [map_stm, red_stm] = inner.body.stms.as_slice() else { return None };
    let Exp::Map { w: k, lam: f, arrs } = &map_stm.exp else { return None };
    let row_first = match arrs.as_slice() {
        [x, y] if *x == r.var && *y == c.var => true,
        [x, y] if *x == c.var && *y == r.var => false,
        _ => return None,
    };
    let Exp::Reduce { w, lam: g, neutral, arrs, .. } = &red_stm.exp else { return None };
    let ([ne], [xs], [prods], [sum]) =
        (neutral.as_slice(), arrs.as_slice(), map_stm.pat.as_slice(), red_stm.pat.as_slice())
    else {
        return None;
    };
    if w != k || *xs != prods.var || inner.body.result != [Atom::Var(sum.var)] {
        return None;
    }
    let scalar = |l: &Lambda, params: usize| {
        l.params.len() == params
            && l.body.stms.len() <= MAX_STMS
            && l.params.iter().all(|p| matches!(p.ty, Type::Prim(_)))
            && matches!(l.ret.as_slice(), [Type::Prim(_)])
            && !mentions(l, r.var)
            && !mentions(l, c.var)
    };
    if !scalar(f, 2) || !scalar(g, 2) {
        return None;
    }
    Some(Product { a: *a, b: *b, k: *k, row_first, f, g, ne: *ne })
}

fn mentions(l: &Lambda, v: Var) -> bool {
    let mut found = l.body.result.contains(&Atom::Var(v));
    for st in &l.body.stms {
        let mut e = st.exp.clone();
        crate::ad::walk::exp_vars(&mut e, &mut |x, _| found |= *x == v);
    }
    found
}

/// Whether the workgroup-tiled kernel applies: the elements of both operands and of the result
/// are one word each (the staged tiles hold words), not two (64-bit integers in a wide program).
pub fn groupable(prod: &Product, acc_t: PrimType, wide: bool) -> bool {
    let one_word = |t: PrimType| !(wide && super::scalar::narrowed(t));
    let params = prod.f.params.iter().all(|p| matches!(p.ty, Type::Prim(t) if one_word(t)));
    params && one_word(acc_t)
}

/// Which index of a delayed `[rows][k]` matrix is contiguous in its buffer: `Some(0)` when
/// consecutive rows are adjacent (a transposed view), `Some(1)` when the elements of a row are;
/// `None` when not a view of a buffer.
fn contiguous_axis(a: &DArr) -> Option<usize> {
    match a {
        DArr::Buf { strides, .. } => strides.iter().rposition(|s| s == "1"),
        DArr::Perm { perm, inner, .. } => {
            let ax = contiguous_axis(inner)?;
            perm.iter().position(|&p| p == ax)
        }
        _ => None,
    }
}

/// The workgroup-tiled kernel: workgroup `grp` computes a `16 * side` square tile of the result
/// (`side` a multiple of 4), each of its 16×16 invocations a `side`×`side` block of it in
/// registers. Along the rows, the workgroup stages chunks of [`CHUNK`] columns of the tile's rows
/// of `A` and `B` in workgroup memory (loads where consecutive invocations read adjacent
/// elements), then each invocation folds them into its block, reading `vec4`s: `side / 4`
/// groups of 4 rows 64 apart, so a warp's reads of a chunk's column are adjacent words.
/// Rows past the edge are read clamped (as in [`emit`]); in the last chunk, columns past the
/// end are loaded clamped but never folded. Returns the module's workgroup declarations.
pub fn emit_group(
    gen: &mut Gen,
    prod: &Product,
    dims: [&str; 2],
    acc_t: PrimType,
    out_buf: usize,
    side: u32,
) -> R<String> {
    let (i32t, u32t) = (PrimType::Int(IntType::I32), PrimType::Int(IntType::U32));
    let [n, p] = dims;
    let span = crate::diag::Span::DUMMY;
    let (KVal::Arr(a), KVal::Arr(b)) = (gen.var(prod.a)?, gen.var(prod.b)?) else {
        return Err(internal(span, "a matrix product of scalars"));
    };
    let tile = 16 * side;
    let slice = (tile + PAD) / 4;
    let k = gen.atom_i32(&prod.k)?;
    let k = gen.let_(&k, i32t);
    let col_tiles = gen.let_(&format!("({p} + {tile} - 1) / {tile}"), i32t);
    let row_tiles = gen.let_(&format!("({n} + {tile} - 1) / {tile}"), i32t);
    gen.line("let grp = i32(wg.x + wg.y * nwg.x);");
    gen.line(&format!("if (grp >= {row_tiles} * {col_tiles}) {{ return; }}"));
    let row0 = gen.let_(&format!("(grp / {col_tiles}) * {tile}"), i32t);
    let col0 = gen.let_(&format!("(grp % {col_tiles}) * {tile}"), i32t);
    let tx = gen.let_("lid % 16u", u32t);
    let ty = gen.let_("lid / 16u", u32t);
    let accs = block_accs(gen, prod, acc_t, side * side)?;
    let k0 = gen.fresh("k");
    gen.open(&format!("for (var {k0} = 0; {k0} < {k}; {k0} += {CHUNK}) {{"));
    // Stage the chunk: element `e` of the `tile`×`CHUNK` block is loaded by invocation
    // `e % 256`, walking the contiguous index fastest, and stored at `[column][row]`.
    let mut decls = String::new();
    let operands = [(&a, "tile_a", &row0, n), (&b, "tile_b", &col0, p)];
    for (arr, name, first, limit) in operands {
        let elem = arr.elem();
        let by_rows = contiguous_axis(arr) == Some(0);
        for i in 0..tile * CHUNK / WORKGROUP {
            let e = format!("lid + {}u", i * WORKGROUP);
            let (r, c) = if by_rows {
                (format!("({e}) % {tile}u"), format!("({e}) / {tile}u"))
            } else {
                (format!("({e}) / {CHUNK}u"), format!("({e}) % {CHUNK}u"))
            };
            let (r, c) = (gen.let_(&r, u32t), gen.let_(&c, u32t));
            let row = gen.let_(&format!("min({first} + i32({r}), {limit} - 1)"), i32t);
            let col = gen.let_(&format!("min({k0} + i32({c}), {k} - 1)"), i32t);
            let KVal::Scalar(v, _) = gen.index(arr, &[row, col])? else {
                return Err(internal(span, "a matrix product of arrays of arrays"));
            };
            gen.line(&format!(
                "{name}[{c} * {slice}u + {r} / 4u][{r} % 4u] = {};",
                store(&v, elem)
            ));
        }
        let st = super::storage_type(elem, gen.wide);
        decls.push_str(&format!("var<workgroup> {name}: array<vec4<{st}>, {}>;\n", CHUNK * slice));
    }
    gen.line("workgroupBarrier();");
    // Invocation (tx, ty)'s rows within the tile: `side / 4` runs of 4, 64 apart.
    let step = |gen: &mut Gen, kk: &str| -> R<()> {
        let operand = |gen: &mut Gen, arr: &DArr, name: &str, lane: &str| {
            let elem = arr.elem();
            let mut vals = Vec::new();
            for h in 0..side / 4 {
                let v = gen.fresh("q");
                let at = format!("{kk} * {slice}u + {}u + {lane}", h * 16);
                gen.line(&format!("let {v} = {name}[{at}];"));
                for c in ["x", "y", "z", "w"] {
                    vals.push(KVal::Scalar(load(&format!("{v}.{c}"), elem), elem));
                }
            }
            vals
        };
        let xs = operand(gen, &a, "tile_a", &ty);
        let ys = operand(gen, &b, "tile_b", &tx);
        fold_step(gen, prod, &xs, &ys, &accs, acc_t)
    };
    // A whole chunk unrolled; the last, partial one folds only the columns before `k`.
    gen.open(&format!("if ({k0} + {CHUNK} <= {k}) {{"));
    for kk in 0..CHUNK {
        step(gen, &format!("{kk}u"))?;
    }
    gen.else_();
    let kk = gen.fresh("kk");
    gen.open(&format!("for (var {kk} = 0u; {kk} < u32({k} - {k0}); {kk}++) {{"));
    step(gen, &kk)?;
    gen.close();
    gen.close();
    gen.line("workgroupBarrier();");
    gen.close();
    let offset = |i: u32, lane: &str| format!("{}u + {lane} * 4u", (i / 4) * 64 + i % 4);
    let cols = (0..side)
        .map(|j| gen.let_(&format!("{col0} + i32({})", offset(j, &tx)), i32t))
        .collect::<Vec<_>>();
    for i in 0..side {
        let row = gen.let_(&format!("{row0} + i32({})", offset(i, &ty)), i32t);
        for (j, col) in cols.iter().enumerate() {
            let acc = &accs[i as usize * cols.len() + j];
            gen.open(&format!("if ({row} < {n} && {col} < {p}) {{"));
            gen.line(&format!("b{out_buf}[{row} * {p} + {col}] = {};", store(acc, acc_t)));
            gen.close();
        }
    }
    Ok(decls)
}

/// The kernel's code: invocation `gid` computes block `gid` of the `[n][p]` result (`dims`) in
/// registers and stores its elements that lie inside the result to `out` (binding `out_buf`);
/// workgroups have `size` invocations.
/// Rows past the edge of `A` or `B` are read clamped to the last one (the same values as real
/// elements, so `f` fails on them only where it fails anyway) and their results dropped.
pub fn emit(
    gen: &mut Gen,
    prod: &Product,
    dims: [&str; 2],
    acc_t: PrimType,
    out_buf: usize,
    t: u32,
    size: u32,
) -> R<()> {
    let i32t = PrimType::Int(IntType::I32);
    let [n, p] = dims;
    let span = crate::diag::Span::DUMMY;
    let (KVal::Arr(a), KVal::Arr(b)) = (gen.var(prod.a)?, gen.var(prod.b)?) else {
        return Err(internal(span, "a matrix product of scalars"));
    };
    let k = gen.atom_i32(&prod.k)?;
    let k = gen.let_(&k, i32t);
    let col_blocks = gen.let_(&format!("({p} + {t} - 1) / {t}"), i32t);
    let row_blocks = gen.let_(&format!("({n} + {t} - 1) / {t}"), i32t);
    gen.line(&format!("let gid = i32((wg.x + wg.y * nwg.x) * {size}u + lid);"));
    gen.line(&format!("if (gid >= {row_blocks} * {col_blocks}) {{ return; }}"));
    let row0 = gen.let_(&format!("(gid / {col_blocks}) * {t}"), i32t);
    let col0 = gen.let_(&format!("(gid % {col_blocks}) * {t}"), i32t);
    let accs = block_accs(gen, prod, acc_t, t * t)?;
    let kk = gen.fresh("k");
    gen.open(&format!("for (var {kk} = 0; {kk} < {k}; {kk}++) {{"));
    let load_rows = |gen: &mut Gen, arr: &std::rc::Rc<_>, first: &str, limit: &str| {
        (0..t)
            .map(|i| {
                let r = gen.let_(&format!("min({first} + {i}, {limit} - 1)"), i32t);
                gen.index(arr, &[r, kk.clone()])
            })
            .collect::<R<Vec<KVal>>>()
    };
    let xs = load_rows(gen, &a, &row0, n)?;
    let ys = load_rows(gen, &b, &col0, p)?;
    fold_step(gen, prod, &xs, &ys, &accs, acc_t)?;
    gen.close();
    for i in 0..t {
        for j in 0..t {
            let acc = &accs[(i * t + j) as usize];
            gen.open(&format!("if ({row0} + {i} < {n} && {col0} + {j} < {p}) {{"));
            let at = format!("({row0} + {i}) * {p} + {col0} + {j}");
            gen.line(&format!("b{out_buf}[{at}] = {};", store(acc, acc_t)));
            gen.close();
        }
    }
    Ok(())
}

/// One step along the rows for a block: `accs[i * ys.len() + j] = g(acc, f(xs[i], ys[j]))`.
fn fold_step(
    gen: &mut Gen,
    prod: &Product,
    xs: &[KVal],
    ys: &[KVal],
    accs: &[String],
    acc_t: PrimType,
) -> R<()> {
    let span = crate::diag::Span::DUMMY;
    for (i, x) in xs.iter().enumerate() {
        for (j, y) in ys.iter().enumerate() {
            let args = if prod.row_first {
                vec![x.clone(), y.clone()]
            } else {
                vec![y.clone(), x.clone()]
            };
            let v = gen.apply_lambda(prod.f, args)?;
            let v = v.into_iter().next().ok_or_else(|| internal(span, "a matrix product's `f`"))?;
            let acc = &accs[i * ys.len() + j];
            let res = gen.apply_lambda(prod.g, vec![KVal::Scalar(acc.clone(), acc_t), v])?;
            gen.assign(&res, std::slice::from_ref(acc))?;
        }
    }
    Ok(())
}

/// `count` accumulators of the result's block, each starting at the neutral element.
fn block_accs(gen: &mut Gen, prod: &Product, acc_t: PrimType, count: u32) -> R<Vec<String>> {
    let (ne, _) = gen.scalar(&prod.ne)?;
    Ok((0..count)
        .map(|_| {
            let acc = gen.fresh("acc");
            gen.line(&format!("var {acc}: {} = {ne};", gen.ty(acc_t)));
            acc
        })
        .collect())
}
