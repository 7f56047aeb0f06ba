//! SIMD128 paths: a `map` over rank-1 arrays of f32, f64 or i32 whose function is lane-wise
//! arithmetic (and f32 `exp`, elementary.rs) runs 4 (2 for f64) elements per step; a `reduce` with `+`, `*`, `min` or `max` keeps
//! a vector accumulator; a `reduce` that consumes the `map` right before it accumulates inside the
//! map's loop (the mapped values stay in registers on their way to the sum). Each vector loop
//! covers the largest multiple of the lane count; the scalar code finishes the tail.
//! Reductions are reassociated (lane-wise partial results), as Futhark allows.

use std::collections::HashMap;

use walrus::ir::{BinaryOp as B, LoadKind, MemArg, StoreKind, UnaryOp as U};
use walrus::{InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use crate::ir::{Atom, BinOp, Exp, Lambda, MathFn, Type, UnOp, Var};
use crate::prim::{FloatType, IntType, PrimType, PrimValue};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lane {
    F32,
    F64,
    I32,
}

impl Lane {
    pub(super) fn of(t: PrimType) -> Option<Lane> {
        match t {
            PrimType::Float(FloatType::F32) => Some(Lane::F32),
            PrimType::Float(FloatType::F64) => Some(Lane::F64),
            PrimType::Int(IntType::I32) => Some(Lane::I32),
            _ => None,
        }
    }

    pub(super) fn count(self) -> i64 {
        if self == Lane::F64 {
            2
        } else {
            4
        }
    }

    fn splat(self) -> U {
        match self {
            Lane::F32 => U::F32x4Splat,
            Lane::F64 => U::F64x2Splat,
            Lane::I32 => U::I32x4Splat,
        }
    }

    fn extract(self, k: u8) -> U {
        match self {
            Lane::F32 => U::F32x4ExtractLane { idx: k },
            Lane::F64 => U::F64x2ExtractLane { idx: k },
            Lane::I32 => U::I32x4ExtractLane { idx: k },
        }
    }
}

/// Shuffles of a vector's bytes: its two 8-byte halves swapped, and the 4-byte lanes of each
/// half swapped.
const SWAP_HALVES: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];
const SWAP_PAIRS: [u8; 16] = [4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11];

/// Rows reduced at once by `simd_blocked_map`.
const COLS: usize = 4;

/// Independent vector accumulators of a fused map-reduce that stores nothing.
const UNROLL: usize = 4;
/// Vectors a step in the loop of a map that stores its results.
const MAP_UNROLL: usize = 2;

/// How a reduction's vector accumulators are updated: `acc = acc op x`, the accumulator on the
/// left. Futhark's float `min`/`max` return the other operand when one is NaN, which takes
/// several instructions as vectors (`emit_vbinop`); but when the neutral element is a constant
/// other than NaN, no accumulator is ever NaN (`max(acc, x)` is NaN only if both are), and then
/// `max(acc, x)` is `acc < x ? x : acc` (a NaN `x` and a tie both keep `acc`), which is one
/// instruction, `f32x4.pmax` (`pmin` likewise). Row maxima (softmax) spent most of their time
/// in the long form.
#[derive(Clone, Copy)]
pub(super) struct Fold {
    pub(super) op: BinOp,
    pub(super) l: Lane,
    pseudo: Option<B>,
}

impl Fold {
    pub(super) fn new(op: BinOp, l: Lane, neutral: &Atom) -> Fold {
        let not_nan = match neutral {
            Atom::Const(PrimValue::F32(c)) => !c.is_nan(),
            Atom::Const(PrimValue::F64(c)) => !c.is_nan(),
            _ => false,
        };
        let pseudo = match (op, l) {
            _ if !not_nan => None,
            (BinOp::Max, Lane::F32) => Some(B::F32x4PMax),
            (BinOp::Min, Lane::F32) => Some(B::F32x4PMin),
            (BinOp::Max, Lane::F64) => Some(B::F64x2PMax),
            (BinOp::Min, Lane::F64) => Some(B::F64x2PMin),
            _ => None,
        };
        Fold { op, l, pseudo }
    }
}

/// A binary operator the vector path supports, with its vector instruction.
fn vbinop(op: BinOp, l: Lane) -> Option<B> {
    Some(match (op, l) {
        (BinOp::Add, Lane::F32) => B::F32x4Add,
        (BinOp::Sub, Lane::F32) => B::F32x4Sub,
        (BinOp::Mul, Lane::F32) => B::F32x4Mul,
        (BinOp::Div, Lane::F32) => B::F32x4Div,
        (BinOp::Add, Lane::F64) => B::F64x2Add,
        (BinOp::Sub, Lane::F64) => B::F64x2Sub,
        (BinOp::Mul, Lane::F64) => B::F64x2Mul,
        (BinOp::Div, Lane::F64) => B::F64x2Div,
        (BinOp::Add, Lane::I32) => B::I32x4Add,
        (BinOp::Sub, Lane::I32) => B::I32x4Sub,
        (BinOp::Mul, Lane::I32) => B::I32x4Mul,
        (BinOp::And, Lane::I32) => B::V128And,
        (BinOp::Or, Lane::I32) => B::V128Or,
        (BinOp::Xor, Lane::I32) => B::V128Xor,
        (BinOp::Min, Lane::I32) => B::I32x4MinS,
        (BinOp::Max, Lane::I32) => B::I32x4MaxS,
        _ => return None,
    })
}

/// Float `min`/`max` with Futhark's NaN rule need a few instructions: see `emit_minmax`.
fn is_float_minmax(op: BinOp, l: Lane) -> bool {
    matches!(op, BinOp::Min | BinOp::Max) && l != Lane::I32
}

/// A constant as the bits of a vector with it in every lane, when it has the lanes' type.
fn lane_bits(c: PrimValue, l: Lane) -> Option<u128> {
    let word = |w: u32| u128::from(w) * 0x0000_0001_0000_0001_0000_0001_0000_0001;
    match (c, l) {
        (PrimValue::F32(x), Lane::F32) => Some(word(x.to_bits())),
        (PrimValue::I32(x), Lane::I32) => Some(word(x as u32)),
        (PrimValue::U32(x), Lane::I32) => Some(word(x)),
        (PrimValue::F64(x), Lane::F64) => Some(u128::from(x.to_bits()) * ((1u128 << 64) + 1)),
        _ => None,
    }
}

fn vunop(exp: &Exp, l: Lane) -> Option<(U, &Atom)> {
    let f = l == Lane::F64;
    Some(match exp {
        Exp::UnOp(UnOp::Neg, _, a) => (
            match l {
                Lane::F32 => U::F32x4Neg,
                Lane::F64 => U::F64x2Neg,
                Lane::I32 => U::I32x4Neg,
            },
            a,
        ),
        Exp::UnOp(UnOp::Abs, _, a) if l != Lane::I32 => {
            (if f { U::F64x2Abs } else { U::F32x4Abs }, a)
        }
        Exp::Math(m, _, args) if l != Lane::I32 && args.len() == 1 => (
            match m {
                MathFn::Sqrt => {
                    if f {
                        U::F64x2Sqrt
                    } else {
                        U::F32x4Sqrt
                    }
                }
                MathFn::Floor => {
                    if f {
                        U::F64x2Floor
                    } else {
                        U::F32x4Floor
                    }
                }
                MathFn::Ceil => {
                    if f {
                        U::F64x2Ceil
                    } else {
                        U::F32x4Ceil
                    }
                }
                MathFn::Trunc => {
                    if f {
                        U::F64x2Trunc
                    } else {
                        U::F32x4Trunc
                    }
                }
                MathFn::Round => {
                    if f {
                        U::F64x2Nearest
                    } else {
                        U::F32x4Nearest
                    }
                }
                _ => return None,
            },
            &args[0],
        ),
        _ => return None,
    })
}

/// A reduction operator the vector path supports: `lam` is `\\a b -> a op b` (or `b op a`).
pub(super) fn simple_reduce(lam: &Lambda) -> Option<(BinOp, Lane)> {
    let [p, q] = lam.params.as_slice() else { return None };
    let [stm] = lam.body.stms.as_slice() else { return None };
    let Exp::BinOp(op, t, Atom::Var(x), Atom::Var(y)) = &stm.exp else { return None };
    let l = Lane::of(*t)?;
    let ok_args = (*x == p.var && *y == q.var) || (*x == q.var && *y == p.var);
    let ok_op = matches!(op, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max);
    let ok_res = matches!(lam.body.result.as_slice(), [Atom::Var(r)] if stm.pat.len() == 1 && *r == stm.pat[0].var);
    (ok_args && ok_op && ok_res && p.ty == Type::Prim(*t) && q.ty == Type::Prim(*t))
        .then_some((*op, l))
}

fn mem_arg() -> MemArg {
    MemArg { align: 4, offset: 0 }
}

impl Gen<'_> {
    /// Is `lam` lane-wise arithmetic on type `t` (its parameters, body and results)?
    fn vectorizable(&self, lam: &Lambda, l: Lane, t: PrimType) -> bool {
        let mut bound: Vec<Var> = lam.params.iter().map(|p| p.var).collect();
        if lam.params.iter().any(|p| p.ty != Type::Prim(t))
            || lam.ret.iter().any(|r| *r != Type::Prim(t))
        {
            return false;
        }
        let atom_ok = |a: &Atom, bound: &[Var]| match a {
            Atom::Const(c) => c.ty() == t,
            Atom::Var(v) => bound.contains(v) || self.var_type(*v) == Type::Prim(t),
        };
        for s in &lam.body.stms {
            if s.pat.len() != 1 || s.pat[0].ty != Type::Prim(t) {
                return false;
            }
            let ok = match &s.exp {
                Exp::Atom(a) => atom_ok(a, &bound),
                Exp::BinOp(op, ty, x, y) => {
                    *ty == t
                        && (vbinop(*op, l).is_some() || is_float_minmax(*op, l))
                        && atom_ok(x, &bound)
                        && atom_ok(y, &bound)
                }
                Exp::Math(MathFn::Exp, _, args) if l == Lane::F32 => {
                    matches!(args.as_slice(), [a] if atom_ok(a, &bound))
                }
                e => vunop(e, l).is_some_and(|(_, a)| atom_ok(a, &bound)),
            };
            if !ok {
                return false;
            }
            bound.push(s.pat[0].var);
        }
        lam.body.result.iter().all(|a| atom_ok(a, &bound))
    }

    fn push_vatom(
        &mut self,
        b: &mut InstrSeqBuilder,
        a: &Atom,
        l: Lane,
        vars: &HashMap<Var, LocalId>,
    ) {
        match a {
            Atom::Var(v) if vars.contains_key(v) => {
                b.local_get(vars[v]);
            }
            Atom::Const(c) if let Some(bits) = lane_bits(*c, l) => self.v128_const(b, bits),
            _ => {
                self.push_atom(b, a);
                b.unop(l.splat());
            }
        }
    }

    /// `[x, y] -> [op(x, y)]` on vectors, including Futhark's float `min`/`max`.
    fn emit_vbinop(&mut self, b: &mut InstrSeqBuilder, op: BinOp, l: Lane) {
        if let Some(i) = vbinop(op, l) {
            b.binop(i);
            return;
        }
        // min: isnan(x) ? y : (isnan(y) || x <= y) ? x : y (max with y <= x).
        let (x, y) = (self.tmp(ValType::V128), self.tmp(ValType::V128));
        b.local_set(y).local_set(x);
        let (le, ne) =
            if l == Lane::F64 { (B::F64x2Le, B::F64x2Ne) } else { (B::F32x4Le, B::F32x4Ne) };
        // bitselect(a, b, m) = m ? a : b, lane-wise.
        b.local_get(y);
        b.local_get(x).local_get(y);
        b.local_get(y).local_get(y).binop(ne);
        if op == BinOp::Min {
            b.local_get(x).local_get(y).binop(le);
        } else {
            b.local_get(y).local_get(x).binop(le);
        }
        b.binop(B::V128Or).v128_bitselect();
        b.local_get(x).local_get(x).binop(ne).v128_bitselect();
    }

    /// `[acc, x] -> [acc op x]` for a reduction's accumulator (see `Fold`).
    pub(super) fn emit_vfold(&mut self, b: &mut InstrSeqBuilder, f: Fold) {
        match f.pseudo {
            Some(i) => {
                b.binop(i);
            }
            None => self.emit_vbinop(b, f.op, f.l),
        }
    }

    /// The lanes of the lambda's body for the parameters in `vars`; returns the result vectors.
    fn vbody(
        &mut self,
        b: &mut InstrSeqBuilder,
        lam: &Lambda,
        l: Lane,
        vars: &mut HashMap<Var, LocalId>,
    ) -> Vec<LocalId> {
        for s in &lam.body.stms {
            match &s.exp {
                Exp::Atom(a) => self.push_vatom(b, a, l, vars),
                Exp::BinOp(op, _, x, y) => {
                    self.push_vatom(b, x, l, vars);
                    self.push_vatom(b, y, l, vars);
                    self.emit_vbinop(b, *op, l);
                }
                Exp::Math(MathFn::Exp, _, args) if l == Lane::F32 => {
                    self.push_vatom(b, &args[0], l, vars);
                    self.inline_exp_f32x4(b);
                }
                e => {
                    if let Some((u, a)) = vunop(e, l) {
                        self.push_vatom(b, a, l, vars);
                        b.unop(u);
                    }
                }
            }
            let r = self.tmp(ValType::V128);
            b.local_set(r);
            vars.insert(s.pat[0].var, r);
        }
        lam.body
            .result
            .iter()
            .map(|a| {
                let r = self.tmp(ValType::V128);
                self.push_vatom(b, a, l, vars);
                b.local_set(r);
                r
            })
            .collect()
    }

    fn vaddr(&self, b: &mut InstrSeqBuilder, base: LocalId, j: LocalId, t: PrimType) {
        self.elem_addr(b, base, j, t);
    }

    /// The vector loop of a `map` over rank-1 arrays into scalar outputs `outs` (pointers). With
    /// `fuse`, the single result is also folded into a vector accumulator (returned). Returns the
    /// index where the scalar loop takes over, or `None` if the map does not qualify.
    pub(super) fn simd_map(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        lam: &Lambda,
        arrs: &[Var],
        outs: &[LocalId],
        fuse: Option<(BinOp, &Atom)>,
    ) -> Option<(LocalId, Option<LocalId>)> {
        let t = *lam.ret.first().map(|r| match r {
            Type::Prim(p) => p,
            Type::Array { elem, .. } => elem,
        })?;
        let l = Lane::of(t)?;
        if !self.opts.simd
            || arrs.iter().any(|a| self.var_type(*a).rank() != 1 || self.var_type(*a).elem() != t)
            || !self.vectorizable(lam, l, t)
            || (fuse.is_some() && lam.ret.len() != 1)
        {
            return None;
        }
        let lanes = l.count();
        let nvec = self.tmp(ValType::I64);
        b.local_get(w).i64_const(-lanes).binop(B::I64And).local_set(nvec);
        // A reduction that stores nothing is bound by the latency of its vector operator: keep
        // `UNROLL` independent accumulators, combined after the loop. Other maps take
        // `MAP_UNROLL` vectors a step, which halves the loop's own instructions per vector (V8
        // checks the stack at every loop head) and gives a long body (`exp`) independent work.
        let unroll = if fuse.is_some() && outs.is_empty() { UNROLL } else { MAP_UNROLL };
        let accs = match fuse {
            Some((_, neutral)) => self.splat_accs(b, neutral, l, unroll),
            None => Vec::new(),
        };
        let op = fuse.map(|(op, neutral)| Fold::new(op, l, neutral));
        let bases: Vec<LocalId> = arrs.iter().map(|a| self.local(*a)).collect();
        let mut start = None;
        if unroll > 1 {
            let nbig = self.tmp(ValType::I64);
            b.local_get(w).i64_const(-lanes * unroll as i64).binop(B::I64And).local_set(nbig);
            self.for_step(b, None, nbig, lanes * unroll as i64, |g, b, j| {
                for u in 0..unroll {
                    let ju = g.tmp(ValType::I64);
                    b.local_get(j).i64_const(lanes * u as i64).binop(B::I64Add).local_set(ju);
                    let acc = op.zip(accs.get(u).copied());
                    g.vstep(b, ju, lam, l, t, &bases, outs, acc);
                }
            });
            start = Some(nbig);
        }
        self.for_step(b, start, nvec, lanes, |g, b, j| {
            g.vstep(b, j, lam, l, t, &bases, outs, op.zip(accs.first().copied()));
        });
        if let Some(f) = op {
            self.combine_accs(b, &accs, f);
        }
        Some((nvec, accs.first().copied()))
    }

    /// Register blocking of a matrix-product-shaped map: `map (\col -> reduce op ne (map f xs..
    /// col ..)) rows` where the inner map is vectorisable and its other arrays are free. `COLS`
    /// rows of `rows` are reduced at once, so each vector of the free arrays is loaded once for
    /// all of them and the `COLS` accumulators are independent. `col` is `param` (its local);
    /// `out` receives the results. Returns where the ordinary loop takes over, or `None` if the
    /// map does not have this shape.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn simd_blocked_map(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        lam: &Lambda,
        arrs: &[Var],
        out: LocalId,
        param: LocalId,
        span: crate::diag::Span,
    ) -> Option<LocalId> {
        let ([rows], [col]) = (arrs, lam.params.as_slice()) else { return None };
        let [inner, red] = lam.body.stms.as_slice() else { return None };
        let Exp::Map { w: iw, lam: ilam, arrs: iarrs } = &inner.exp else { return None };
        let Exp::Reduce { w: rw, lam: rlam, neutral, arrs: rarrs, .. } = &red.exp else {
            return None;
        };
        let (op, l) = simple_reduce(rlam)?;
        let t = *match ilam.ret.as_slice() {
            [Type::Prim(t)] => t,
            _ => return None,
        };
        let shape_ok = iw == rw
            && inner.pat.len() == 1
            && rarrs.as_slice() == [inner.pat[0].var]
            && red.pat.len() == 1
            && matches!(lam.body.result.as_slice(), [Atom::Var(r)] if *r == red.pat[0].var)
            && matches!(neutral.as_slice(), [Atom::Const(_)] | [Atom::Var(_)])
            && iarrs.contains(&col.var)
            && self.var_type(*rows).rank() == 2
            && iarrs.iter().all(|a| {
                let ty = if *a == col.var { col.ty.clone() } else { self.var_type(*a) };
                ty.rank() == 1 && ty.elem() == t
            })
            && matches!(iw, Atom::Var(v) if *v != col.var);
        if !self.opts.simd || !shape_ok || Lane::of(t) != Some(l) || !self.vectorizable(ilam, l, t)
        {
            return None;
        }
        let lanes = l.count();
        let f = Fold::new(op, l, &neutral[0]);
        let m = self.i64_local(b, iw);
        let nvec = self.tmp(ValType::I64);
        b.local_get(m).i64_const(-lanes).binop(B::I64And).local_set(nvec);
        let nblk = self.tmp(ValType::I64);
        b.local_get(w).i64_const(-(COLS as i64)).binop(B::I64And).local_set(nblk);
        let cols: Vec<LocalId> = (0..COLS).map(|_| self.tmp(ValType::I32)).collect();
        let accs: Vec<LocalId> = (0..COLS).map(|_| self.tmp(ValType::V128)).collect();
        let sums: Vec<LocalId> = (0..COLS).map(|_| self.tmp(super::emit::val_type(t))).collect();
        let ips: Vec<LocalId> = ilam.params.iter().map(|p| self.bind(p, span)).collect();
        let rps: Vec<LocalId> = rlam.params.iter().map(|p| self.bind(p, span)).collect();
        let free: Vec<(Var, LocalId)> = ilam
            .params
            .iter()
            .zip(iarrs)
            .filter(|(_, a)| **a != col.var)
            .map(|(p, a)| (p.var, self.local(*a)))
            .collect();
        let at_col: Vec<Var> = ilam
            .params
            .iter()
            .zip(iarrs)
            .filter(|(_, a)| **a == col.var)
            .map(|(p, _)| p.var)
            .collect();
        self.for_step(b, None, nblk, COLS as i64, |g, b, jc| {
            for (c, cl) in cols.iter().enumerate() {
                let j = g.tmp(ValType::I64);
                b.local_get(jc).i64_const(c as i64).binop(B::I64Add).local_set(j);
                g.bind_row(b, *cl, *rows, j);
            }
            // The inner map's width check, as the ordinary loop makes it for every row.
            b.local_get(cols[0]).local_set(param);
            g.check_width(b, m, iw, iarrs, "map", span);
            for acc in &accs {
                g.push_atom(b, &neutral[0]);
                b.unop(l.splat()).local_set(*acc);
            }
            g.for_step(b, None, nvec, lanes, |g, b, k| {
                let mut shared = HashMap::new();
                for (p, base) in &free {
                    let v = g.tmp(ValType::V128);
                    g.vaddr(b, *base, k, t);
                    b.load(g.mem, LoadKind::V128, mem_arg()).local_set(v);
                    shared.insert(*p, v);
                }
                for (cl, acc) in cols.iter().zip(&accs) {
                    let mut vars = shared.clone();
                    let v = g.tmp(ValType::V128);
                    g.vaddr(b, *cl, k, t);
                    b.load(g.mem, LoadKind::V128, mem_arg()).local_set(v);
                    for p in &at_col {
                        vars.insert(*p, v);
                    }
                    let rs = g.vbody(b, ilam, l, &mut vars);
                    b.local_get(*acc).local_get(rs[0]);
                    g.emit_vfold(b, f);
                    b.local_set(*acc);
                }
            });
            for (c, ((cl, acc), sum)) in cols.iter().zip(&accs).zip(&sums).enumerate() {
                g.push_atom(b, &neutral[0]);
                b.local_set(*sum);
                g.hfold_lanes(b, *acc, *sum, f);
                // The scalar tail of this row, through the ordinary code with `col` bound to it.
                b.local_get(*cl).local_set(param);
                g.for_step(b, Some(nvec), m, 1, |g, b, k| {
                    for (p, a) in ips.iter().zip(iarrs) {
                        g.bind_row(b, *p, *a, k);
                    }
                    g.body(b, &ilam.body);
                    b.local_get(*sum).local_set(rps[0]);
                    g.push_atom(b, &ilam.body.result[0]);
                    b.local_set(rps[1]);
                    g.body(b, &rlam.body);
                    g.push_atom(b, &rlam.body.result[0]);
                    b.local_set(*sum);
                });
                let j = g.tmp(ValType::I64);
                b.local_get(jc).i64_const(c as i64).binop(B::I64Add).local_set(j);
                g.elem_addr(b, out, j, t);
                b.local_get(*sum);
                g.store(b, t);
            }
        });
        Some(nblk)
    }

    /// One step of a vector map loop at index `j`: load the lanes, run the body, store the
    /// results into `outs`, and fold the first result into `acc`.
    #[allow(clippy::too_many_arguments)]
    fn vstep(
        &mut self,
        b: &mut InstrSeqBuilder,
        j: LocalId,
        lam: &Lambda,
        l: Lane,
        t: PrimType,
        bases: &[LocalId],
        outs: &[LocalId],
        acc: Option<(Fold, LocalId)>,
    ) {
        let mut vars = HashMap::new();
        for (p, base) in lam.params.iter().zip(bases) {
            let v = self.tmp(ValType::V128);
            self.vaddr(b, *base, j, t);
            b.load(self.mem, LoadKind::V128, mem_arg()).local_set(v);
            vars.insert(p.var, v);
        }
        let rs = self.vbody(b, lam, l, &mut vars);
        for (out, r) in outs.iter().zip(&rs) {
            self.vaddr(b, *out, j, t);
            if self.adding.contains(out) {
                self.vaddr(b, *out, j, t);
                b.load(self.mem, LoadKind::V128, mem_arg()).local_get(*r);
                self.emit_vbinop(b, BinOp::Add, l);
            } else {
                b.local_get(*r);
            }
            b.store(self.mem, StoreKind::V128, mem_arg());
        }
        if let (Some((f, acc)), Some(r)) = (acc, rs.first()) {
            b.local_get(acc).local_get(*r);
            self.emit_vfold(b, f);
            b.local_set(acc);
        }
    }

    /// The vector loop of `reduce op neutral xs` for a rank-1 `xs`: leaves the partial result in
    /// `acc_param` and returns where the scalar loop takes over.
    pub(super) fn simd_reduce(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        lam: &Lambda,
        neutral: &Atom,
        arr: Var,
        acc_param: LocalId,
    ) -> Option<LocalId> {
        let (op, l) = simple_reduce(lam)?;
        let t = self.var_type(arr);
        if !self.opts.simd || t.rank() != 1 || Lane::of(t.elem()) != Some(l) {
            return None;
        }
        let lanes = l.count();
        let nvec = self.tmp(ValType::I64);
        b.local_get(w).i64_const(-lanes).binop(B::I64And).local_set(nvec);
        // Bound by the latency of the operator (several instructions for float min and max):
        // `UNROLL` independent accumulators over blocks of `UNROLL` vectors, then one.
        let accs = self.splat_accs(b, neutral, l, UNROLL);
        let base = self.local(arr);
        let elem = t.elem();
        let f = Fold::new(op, l, neutral);
        let step = |g: &mut Self, b: &mut InstrSeqBuilder, j: LocalId, acc: LocalId| {
            b.local_get(acc);
            g.vaddr(b, base, j, elem);
            b.load(g.mem, LoadKind::V128, mem_arg());
            g.emit_vfold(b, f);
            b.local_set(acc);
        };
        let nbig = self.tmp(ValType::I64);
        b.local_get(w).i64_const(-lanes * UNROLL as i64).binop(B::I64And).local_set(nbig);
        self.for_step(b, None, nbig, lanes * UNROLL as i64, |g, b, j| {
            for (u, acc) in accs.iter().enumerate() {
                let ju = g.tmp(ValType::I64);
                b.local_get(j).i64_const(lanes * u as i64).binop(B::I64Add).local_set(ju);
                step(g, b, ju, *acc);
            }
        });
        self.for_step(b, Some(nbig), nvec, lanes, |g, b, j| step(g, b, j, accs[0]));
        self.combine_accs(b, &accs, f);
        self.hfold_lanes(b, accs[0], acc_param, f);
        Some(nvec)
    }

    /// The vector loop of `out[i] = f left[i] right[i]` over arrays of `n` elements of type `t`
    /// at the addresses `[out, left, right]` (`out` may be `left`): returns where the scalar loop
    /// takes over, or `None` if `f` is not lane-wise arithmetic.
    pub(super) fn simd_zip(
        &mut self,
        b: &mut InstrSeqBuilder,
        f: &Lambda,
        [out, left, right]: [LocalId; 3],
        n: LocalId,
        t: PrimType,
    ) -> Option<LocalId> {
        let l = Lane::of(t)?;
        if !self.opts.simd || f.params.len() != 2 || !self.vectorizable(f, l, t) {
            return None;
        }
        let lanes = l.count();
        let nvec = self.tmp(ValType::I64);
        b.local_get(n).i64_const(-lanes).binop(B::I64And).local_set(nvec);
        self.for_step(b, None, nvec, lanes, |g, b, j| {
            g.vstep(b, j, f, l, t, &[left, right], &[out], None);
        });
        Some(nvec)
    }

    /// `n` vector accumulators, each lane set to `neutral`.
    fn splat_accs(
        &mut self,
        b: &mut InstrSeqBuilder,
        neutral: &Atom,
        l: Lane,
        n: usize,
    ) -> Vec<LocalId> {
        (0..n)
            .map(|_| {
                let acc = self.tmp(ValType::V128);
                self.push_atom(b, neutral);
                b.unop(l.splat()).local_set(acc);
                acc
            })
            .collect()
    }

    /// `accs[0] = accs[0] op accs[1] op ...`, lane-wise.
    fn combine_accs(&mut self, b: &mut InstrSeqBuilder, accs: &[LocalId], f: Fold) {
        for acc in &accs[1..] {
            b.local_get(accs[0]).local_get(*acc);
            self.emit_vfold(b, f);
            b.local_set(accs[0]);
        }
    }

    /// `into = into op lane0 op lane1 ...` for the lanes of `acc`.
    pub(super) fn hfold_lanes(
        &mut self,
        b: &mut InstrSeqBuilder,
        acc: LocalId,
        into: LocalId,
        f: Fold,
    ) {
        let l = f.l;
        // Halve the vector by shuffles until lane 0 holds the fold of all lanes (two steps for
        // four lanes), then combine it into `into` as vectors (splat), so one code path serves
        // every operator.
        let v = self.tmp(ValType::V128);
        b.local_get(acc).local_set(v);
        let steps: &[[u8; 16]] = match l.count() {
            2 => &[SWAP_HALVES],
            _ => &[SWAP_HALVES, SWAP_PAIRS],
        };
        for shuffle in steps {
            b.local_get(v).local_get(v).local_get(v).i8x16_shuffle(*shuffle);
            self.emit_vfold(b, f);
            b.local_set(v);
        }
        b.local_get(into).unop(l.splat()).local_get(v);
        self.emit_vfold(b, f);
        b.unop(l.extract(0)).local_set(into);
    }
}
