//! Parallel maps (modules built with threads). An outermost `map` whose body does more than a few
//! scalar operations is outlined into an exported function `par.K(env: i32, start: i64, end:
//! i64)` that runs iterations `[start, end)`. The caller stores the values the body reads (its
//! free locals) into an environment block in the arena and calls the host's
//! `threads.par_for(k: i32, n: i64, env: i32)`, which runs `par.K` over `[0, n)` in pieces on
//! every thread it has (each thread an instance of the module on the shared memory) and returns
//! when all are done; a host without threads calls `par.K(env, 0, n)` itself. Iterations write
//! disjoint rows of outputs allocated before the call, and allocate their temporaries from
//! their own thread's arena chunk (arena.rs).

use walrus::ir::{dfs_in_order, Instr, LoadKind, LocalGet, LocalSet, MemArg, StoreKind, Visitor};
use walrus::{FunctionBuilder, FunctionKind, InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use crate::ir::{Body, Exp, Lambda, Var};
use crate::prim::PrimType;

/// Whether a map with this body is worth running in parallel: its iterations loop, call or
/// build arrays (a lane-wise body is memory-bound and stays a vector loop).
pub(super) fn heavy(body: &Body) -> bool {
    body.stms.iter().any(|s| match &s.exp {
        Exp::Map { .. }
        | Exp::Reduce { .. }
        | Exp::Scan { .. }
        | Exp::Scatter { .. }
        | Exp::Hist { .. }
        | Exp::Loop { .. }
        | Exp::Apply { .. }
        | Exp::Iota { .. }
        | Exp::Replicate { .. }
        | Exp::Concat { .. }
        | Exp::Copy(_) => true,
        Exp::If { then_body, else_body, .. } => heavy(then_body) || heavy(else_body),
        _ => false,
    })
}

/// The locals a function reads.
struct Reads(Vec<LocalId>);

impl<'i> Visitor<'i> for Reads {
    fn visit_local_get(&mut self, i: &LocalGet) {
        self.0.push(i.local);
    }
}

fn slot_bytes(t: ValType) -> u32 {
    if t == ValType::V128 {
        16
    } else {
        8
    }
}

fn load_kind(t: ValType) -> LoadKind {
    match t {
        ValType::I32 => LoadKind::I32 { atomic: false },
        ValType::I64 => LoadKind::I64 { atomic: false },
        ValType::F32 => LoadKind::F32,
        ValType::F64 => LoadKind::F64,
        _ => LoadKind::V128,
    }
}

fn store_kind(t: ValType) -> StoreKind {
    match t {
        ValType::I32 => StoreKind::I32 { atomic: false },
        ValType::I64 => StoreKind::I64 { atomic: false },
        ValType::F32 => StoreKind::F32,
        ValType::F64 => StoreKind::F64,
        _ => StoreKind::V128,
    }
}

impl Gen<'_> {
    /// The parallel form of `map`: `w` iterations of `lam` over `arrs`, its parameters bound to
    /// `ps`, results stored into `outs` (allocated by the caller).
    pub(super) fn par_map(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        lam: &Lambda,
        arrs: &[Var],
        ps: &[LocalId],
        outs: &[(LocalId, Option<LocalId>, PrimType)],
    ) {
        self.par_loop(b, w, |g, b, j| g.map_iteration(b, j, lam, arrs, ps, outs));
    }

    /// `for j < w: f(j)` as an exported `par.K` over pieces of `[0, w)`, which the host's
    /// `threads.par_for` runs on its threads (iterations must write disjoint memory).
    pub(super) fn par_loop(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        f: impl FnOnce(&mut Self, &mut InstrSeqBuilder, LocalId),
    ) {
        // Locals made from here on belong to the outlined function; older ones it reads are
        // the caller's values, passed in the environment.
        let first_own = self.module.locals.add(ValType::I32).index();
        let env = self.module.locals.add(ValType::I32);
        let start = self.module.locals.add(ValType::I64);
        let end = self.module.locals.add(ValType::I64);
        let k = self.par_count;
        self.par_count += 1;
        let params = [ValType::I32, ValType::I64, ValType::I64];
        let mut fb = FunctionBuilder::new(&mut self.module.types, &params, &[]);
        fb.name(format!("par.{k}"));
        let was = std::mem::replace(&mut self.in_par, true);
        {
            let mut body = fb.func_body();
            self.for_step(&mut body, Some(start), end, 1, f);
        }
        self.in_par = was;
        let fid = fb.finish(vec![env, start, end], &mut self.module.funcs);

        let FunctionKind::Local(f) = &mut self.module.funcs.get_mut(fid).kind else {
            return;
        };
        let mut reads = Reads(Vec::new());
        dfs_in_order(&mut reads, f, f.entry_block());
        let mut caps: Vec<LocalId> =
            reads.0.into_iter().filter(|l| l.index() < first_own).collect();
        caps.sort_by_key(|l| l.index());
        caps.dedup();
        let mut slots = Vec::with_capacity(caps.len());
        let mut size = 0u32;
        for &l in &caps {
            let t = self.module.locals.get(l).ty();
            size = size.next_multiple_of(slot_bytes(t));
            slots.push((l, t, size));
            size += slot_bytes(t);
        }
        // The outlined function starts by loading them.
        let mem = self.mem;
        let FunctionKind::Local(f) = &mut self.module.funcs.get_mut(fid).kind else {
            return;
        };
        let mut entry = f.builder_mut().func_body();
        for (i, &(l, t, off)) in slots.iter().enumerate() {
            let arg = MemArg { align: 4, offset: u64::from(off) };
            entry.instr_at(3 * i, Instr::LocalGet(LocalGet { local: env }));
            entry.instr_at(
                3 * i + 1,
                Instr::Load(walrus::ir::Load { memory: mem, kind: load_kind(t), arg }),
            );
            entry.instr_at(3 * i + 2, Instr::LocalSet(LocalSet { local: l }));
        }
        self.module.exports.add(&format!("par.{k}"), fid);

        // The caller: the environment, then the host runs the pieces.
        let arena = self.arena;
        let mark = arena.mark(&mut self.module, b);
        let envp = self.tmp(ValType::I32);
        b.i64_const(i64::from(size.max(1)));
        self.alloc_bytes(b);
        b.local_set(envp);
        for &(l, t, off) in &slots {
            let arg = MemArg { align: 4, offset: u64::from(off) };
            b.local_get(envp).local_get(l).store(mem, store_kind(t), arg);
        }
        let par_for = self.par_for();
        b.i32_const(k as i32).local_get(w).local_get(envp).call(par_for);
        arena.restore(b, mark);
    }

    /// The host's `threads.par_for(k: i32, n: i64, env: i32)`.
    fn par_for(&mut self) -> walrus::FunctionId {
        if let Some(f) = self.par_fn {
            return f;
        }
        let ty = self.module.types.add(&[ValType::I32, ValType::I64, ValType::I32], &[]);
        let f = self.module.add_import_func("threads", "par_for", ty).0;
        self.par_fn = Some(f);
        f
    }
}
