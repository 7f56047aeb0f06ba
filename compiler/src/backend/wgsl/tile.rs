//! Matrix-product-shaped map nests as kernels over square blocks of the result.
//!
//! `map (\r -> map (\c -> reduce g ne (map2 f r c)) B) A` run as one invocation per element
//! reads a row of `A` and a row of `B` for every element of the result: two loads per `f`. Here an
//! invocation computes a `side`×`side` block of the result in registers, so each step along the
//! rows loads `2 * side` elements for `side * side` applications of `f`. There are no barriers:
//! on the software adapters that run WebGPU without a GPU (SwiftShader, lavapipe), a 16×16
//! workgroup staging its operands in workgroup memory was 1.7–3× slower than the untiled kernel,
//! because each barrier splits the shader there. Each element is still folded in index order from
//! `ne`, the untiled kernel's order: results are the same bit for bit.
//!
//! Two sides are compiled: [`GPU_SIDE`] for GPUs, whose registers are few and shared by the
//! invocations that keep them busy, and [`SOFTWARE_SIDE`] for software devices, whose invocations
//! are the lanes of CPU vectors, where each load is bounds-checked and a large block costs no
//! occupancy (SwiftShader, matmul 1024: 2.64 s with 4×4 blocks, 0.76 s with 8×8, 0.66 s with
//! 16×16; lavapipe, matmul 512: 59, 46 and 37 ms).

use super::kernel::{store, Gen, KVal, R};
use super::{internal, WORKGROUP};
use crate::ir::{self, Atom, Exp, Lambda, Type, Var};
use crate::prim::{IntType, PrimType};

/// The side of the block of the result that one invocation computes on a GPU.
pub const GPU_SIDE: u32 = 4;
/// The side of the block that one invocation computes on a software device.
pub const SOFTWARE_SIDE: u32 = 16;

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

/// The kernel's code: invocation `gid` computes block `gid` of the `[n][p]` result (`dims`) in
/// registers and stores its elements that lie inside the result to `out` (binding `out_buf`).
/// Rows past the edge of `A` or `B` are read clamped to the last one (the same values as real
/// elements, so `f` fails on them only where it fails anyway) and their results dropped.
pub fn emit(
    gen: &mut Gen,
    prod: &Product,
    dims: [&str; 2],
    acc_t: PrimType,
    out_buf: usize,
    t: u32,
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
    gen.line(&format!("let gid = i32((wg.x + wg.y * nwg.x) * {WORKGROUP}u + lid);"));
    gen.line(&format!("if (gid >= {row_blocks} * {col_blocks}) {{ return; }}"));
    let row0 = gen.let_(&format!("(gid / {col_blocks}) * {t}"), i32t);
    let col0 = gen.let_(&format!("(gid % {col_blocks}) * {t}"), i32t);
    let (ne, _) = gen.scalar(&prod.ne)?;
    let mut accs = Vec::new();
    for _ in 0..t * t {
        let acc = gen.fresh("acc");
        gen.line(&format!("var {acc}: {} = {ne};", gen.ty(acc_t)));
        accs.push(acc);
    }
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
    for (i, x) in xs.iter().enumerate() {
        for (j, y) in ys.iter().enumerate() {
            let args = if prod.row_first {
                vec![x.clone(), y.clone()]
            } else {
                vec![y.clone(), x.clone()]
            };
            let v = gen.apply_lambda(prod.f, args)?;
            let v = v.into_iter().next().ok_or_else(|| internal(span, "a matrix product's `f`"))?;
            let acc = &accs[i * t as usize + j];
            let res = gen.apply_lambda(prod.g, vec![KVal::Scalar(acc.clone(), acc_t), v])?;
            gen.assign(&res, std::slice::from_ref(acc))?;
        }
    }
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
