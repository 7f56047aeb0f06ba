//! Matrix-product-shaped map nests as kernels over square blocks of the result.
//!
//! `map (\r -> map (\c -> reduce g ne (map2 f r c)) B) A` run as one invocation per element reads
//! a row of `A` and a row of `B` from global memory for every element of the result: one load
//! per `f`. Here a workgroup computes a [`TILE`]×[`TILE`] block of the result. Its threads stage
//! `TILE`×`TILE` pieces of `A`'s and `B`'s rows in workgroup memory together, then each folds its
//! element from there, so every element loaded serves `TILE` applications of `f`. Each element
//! is still folded in index order from `ne`, the untiled kernel's order: results are the same.

use super::kernel::{load, store, Gen, KVal, R};
use super::{internal, storage_type, WORKGROUP};
use crate::ir::{self, Atom, Exp, Lambda, Type, Var};
use crate::prim::{IntType, PrimType};

/// The side of a block; a workgroup has `TILE * TILE` threads.
pub const TILE: u32 = 16;

const _: () = assert!(TILE * TILE == WORKGROUP);

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

/// The kernel's code: block `wg` of the `[n][p]` result (`dims`), each thread's element folded
/// into a register, then stored to `out` (binding `out_buf`) by the threads inside the result.
/// The staging arrays are `ta` and `tb`; returns their declarations.
pub fn emit(
    gen: &mut Gen,
    prod: &Product,
    dims: [&str; 2],
    elems: [PrimType; 2],
    acc_t: PrimType,
    out_buf: usize,
) -> R<String> {
    let i32t = PrimType::Int(IntType::I32);
    let [n, p] = dims;
    let span = crate::diag::Span::DUMMY;
    let (KVal::Arr(a), KVal::Arr(b)) = (gen.var(prod.a)?, gen.var(prod.b)?) else {
        return Err(internal(span, "a matrix product of scalars"));
    };
    let k = gen.atom_i32(&prod.k)?;
    let k = gen.let_(&k, i32t);
    let t = TILE;
    let blocks = gen.let_(&format!("({p} + {t} - 1) / {t}"), i32t);
    let blk = gen.let_("i32(wg.x + wg.y * nwg.x)", i32t);
    let ty = gen.let_(&format!("i32(lid) / {t}"), i32t);
    let tx = gen.let_(&format!("i32(lid) % {t}"), i32t);
    let row0 = gen.let_(&format!("({blk} / {blocks}) * {t}"), i32t);
    let col0 = gen.let_(&format!("({blk} % {blocks}) * {t}"), i32t);
    let row = gen.let_(&format!("{row0} + {ty}"), i32t);
    let col = gen.let_(&format!("{col0} + {tx}"), i32t);
    let inside = gen.let_(&format!("{row} < {n} && {col} < {p}"), PrimType::Bool);
    let (ne, _) = gen.scalar(&prod.ne)?;
    let acc = gen.fresh("acc");
    gen.line(&format!("var {acc}: {} = {ne};", super::wgsl_type(acc_t)));
    let k0 = gen.fresh("k");
    gen.open(&format!("for (var {k0} = 0; {k0} < {k}; {k0} = {k0} + {t}) {{"));
    let kx = gen.let_(&format!("{k0} + {tx}"), i32t);
    // Thread (ty, tx) stages element kx of A's row row0 + ty, and of B's row col0 + ty, the
    // latter transposed so that the fold reads both pieces along rows.
    let staged = [
        (&a, &row0, n, "ta", format!("{ty} * {t} + {tx}"), elems[0]),
        (&b, &col0, p, "tb", format!("{tx} * {t} + {ty}"), elems[1]),
    ];
    for (src, first, limit, name, slot, elem) in staged {
        let i = gen.let_(&format!("{first} + {ty}"), i32t);
        gen.open(&format!("if ({i} < {limit} && {kx} < {k}) {{"));
        let KVal::Scalar(v, _) = gen.index(src, &[i, kx.clone()])? else {
            return Err(internal(span, "a matrix product's element"));
        };
        gen.line(&format!("{name}[{slot}] = {};", store(&v, elem)));
        gen.close();
    }
    gen.line("workgroupBarrier();");
    gen.open(&format!("if ({inside}) {{"));
    let kk = gen.fresh("kk");
    gen.open(&format!("for (var {kk} = 0; {kk} < min({t}, {k} - {k0}); {kk}++) {{"));
    let x = gen.let_(&load(&format!("ta[{ty} * {t} + {kk}]"), elems[0]), elems[0]);
    let y = gen.let_(&load(&format!("tb[{kk} * {t} + {tx}]"), elems[1]), elems[1]);
    let (x, y) = (KVal::Scalar(x, elems[0]), KVal::Scalar(y, elems[1]));
    let args = if prod.row_first { vec![x, y] } else { vec![y, x] };
    let v = gen.apply_lambda(prod.f, args)?;
    let v = v.into_iter().next().ok_or_else(|| internal(span, "a matrix product's `f`"))?;
    let res = gen.apply_lambda(prod.g, vec![KVal::Scalar(acc.clone(), acc_t), v])?;
    gen.assign(&res, std::slice::from_ref(&acc))?;
    gen.close();
    gen.close();
    gen.line("workgroupBarrier();");
    gen.close();
    gen.open(&format!("if ({inside}) {{"));
    gen.line(&format!("b{out_buf}[{row} * {p} + {col}] = {};", store(&acc, acc_t)));
    gen.close();
    Ok(format!(
        "var<workgroup> ta: array<{}, {WORKGROUP}>;\nvar<workgroup> tb: array<{}, {WORKGROUP}>;\n",
        storage_type(elems[0]),
        storage_type(elems[1])
    ))
}
