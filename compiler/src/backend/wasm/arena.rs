//! The arena: every array a call creates is bump-allocated from it, and the host empties it after
//! the call. Each thread of a call (one instance per thread, all sharing the memory when the
//! module is built with threads) allocates from its own chunk: `hp` is the next free byte,
//! `lim` the end of the chunk and `base` its start, all per-instance globals. Chunks are carved
//! from the break, an i32 in memory at [`BRK`] that every thread advances (atomically when the
//! memory is shared). A thread whose chunk ends at the break extends it in place, so a call on
//! one thread sees one contiguous arena, as a plain bump allocator would give.

use walrus::ir::{AtomicOp, AtomicWidth, BinaryOp as B, MemArg, UnaryOp as U};
use walrus::{
    ConstExpr, FunctionBuilder, FunctionId, GlobalId, InstrSeqBuilder, LocalId, MemoryId, Module,
    ValType,
};

use super::{ErrorCode, HEAP_BASE};

/// Where the break lives (an i32; bytes below `ERR_ARGS` are otherwise unused).
pub const BRK: u32 = 8;
/// How many times the arena has been emptied (an i32 beside the break): a worker keeps its chunk
/// from one task to the next while this has not changed.
const EPOCH: u32 = 12;
/// The smallest chunk a thread takes from the break.
const CHUNK: i64 = 256 << 10;

#[derive(Clone, Copy)]
pub(super) struct Arena {
    hp: GlobalId,
    lim: GlobalId,
    base: GlobalId,
    /// The epoch this instance's chunk was taken in.
    epoch: GlobalId,
}

/// The state to return to after a loop iteration: `hp` and `base` when it started.
#[derive(Clone, Copy)]
pub(super) struct Mark(LocalId, LocalId);

const BRK_ARG: MemArg = MemArg { align: 4, offset: 0 };

/// Add the arena's globals and the exports `alloc(bytes: i64) -> i32`, `reset()` (empty the
/// arena: the host calls it before and after each call) and `reset_thread()` (forget this
/// instance's allocations: a worker calls it before each task; see `EPOCH`). Returns the arena
/// and `alloc`.
pub(super) fn build(
    module: &mut Module,
    mem: MemoryId,
    err_code: GlobalId,
    err_site: GlobalId,
    threads: bool,
) -> (Arena, FunctionId) {
    let global = |m: &mut Module| {
        m.globals.add_local(ValType::I32, true, false, ConstExpr::Value(walrus::ir::Value::I32(0)))
    };
    let a = Arena {
        hp: global(module),
        lim: global(module),
        base: global(module),
        epoch: global(module),
    };

    let mut fb = FunctionBuilder::new(&mut module.types, &[ValType::I64], &[ValType::I32]);
    let bytes = module.locals.add(ValType::I64);
    let size = module.locals.add(ValType::I64);
    let end = module.locals.add(ValType::I64);
    let start = module.locals.add(ValType::I64);
    let r = module.locals.add(ValType::I32);
    {
        let oom = |b: &mut InstrSeqBuilder| {
            b.i32_const(ErrorCode::OutOfMemory as i32)
                .global_set(err_code)
                .i32_const(-1)
                .global_set(err_site)
                .unreachable();
        };
        // Grow memory to hold `end` bytes; another thread may have grown it already.
        let ensure = |b: &mut InstrSeqBuilder| {
            let have = |b: &mut InstrSeqBuilder| {
                b.memory_size(mem).unop(U::I64ExtendUI32).i64_const(16).binop(B::I64Shl);
            };
            b.local_get(end);
            have(b);
            b.binop(B::I64GtU).if_else(
                None,
                |b| {
                    b.local_get(end);
                    have(b);
                    b.binop(B::I64Sub)
                        .i64_const(0xffff)
                        .binop(B::I64Add)
                        .i64_const(16)
                        .binop(B::I64ShrU)
                        .unop(U::I32WrapI64)
                        .memory_grow(mem)
                        .i32_const(-1)
                        .binop(B::I32Eq)
                        .if_else(
                            None,
                            |b| {
                                b.local_get(end);
                                have(b);
                                b.binop(B::I64GtU).if_else(None, oom, |_| {});
                            },
                            |_| {},
                        );
                },
                |_| {},
            );
        };
        let over_4gib = |b: &mut InstrSeqBuilder| {
            b.local_get(end).i64_const(1 << 32).binop(B::I64GtU).if_else(None, oom, |_| {});
        };
        let mut body = fb.func_body();
        body.local_get(bytes).i64_const(0).binop(B::I64LtS).if_else(None, oom, |_| {});
        body.local_get(bytes)
            .i64_const(15)
            .binop(B::I64Add)
            .i64_const(!15)
            .binop(B::I64And)
            .local_set(size);
        body.global_get(a.hp)
            .unop(U::I64ExtendUI32)
            .local_get(size)
            .binop(B::I64Add)
            .local_set(end);
        over_4gib(&mut body);
        body.global_get(a.hp).local_set(r);
        // The chunk has room.
        body.local_get(end).global_get(a.lim).unop(U::I64ExtendUI32).binop(B::I64LeU).if_else(
            None,
            |b| {
                b.local_get(end).unop(U::I32WrapI64).global_set(a.hp).local_get(r).return_();
            },
            |_| {},
        );
        // The chunk ends at the break: extend it.
        body.i32_const(BRK as i32);
        if threads {
            body.global_get(a.lim).local_get(end).unop(U::I32WrapI64).cmpxchg(
                mem,
                AtomicWidth::I32,
                BRK_ARG,
            );
        } else {
            body.load(mem, walrus::ir::LoadKind::I32 { atomic: false }, BRK_ARG);
        }
        body.global_get(a.lim).binop(B::I32Eq);
        body.if_else(
            None,
            |b| {
                if !threads {
                    b.i32_const(BRK as i32).local_get(end).unop(U::I32WrapI64).store(
                        mem,
                        walrus::ir::StoreKind::I32 { atomic: false },
                        BRK_ARG,
                    );
                }
                ensure(b);
                b.local_get(end).unop(U::I32WrapI64).global_set(a.lim);
                b.local_get(end).unop(U::I32WrapI64).global_set(a.hp).local_get(r).return_();
            },
            |_| {},
        );
        // A new chunk of at least `CHUNK` bytes; `size` becomes the chunk's size.
        body.local_get(size)
            .i64_const(CHUNK)
            .local_get(size)
            .i64_const(CHUNK)
            .binop(B::I64GtU)
            .select(None)
            .local_set(size);
        body.i32_const(BRK as i32);
        if threads {
            body.local_get(size).unop(U::I32WrapI64).atomic_rmw(
                mem,
                AtomicOp::Add,
                AtomicWidth::I32,
                BRK_ARG,
            );
        } else {
            body.load(mem, walrus::ir::LoadKind::I32 { atomic: false }, BRK_ARG);
        }
        body.unop(U::I64ExtendUI32)
            .local_tee(start)
            .local_get(size)
            .binop(B::I64Add)
            .local_set(end);
        over_4gib(&mut body);
        if !threads {
            body.i32_const(BRK as i32).local_get(end).unop(U::I32WrapI64).store(
                mem,
                walrus::ir::StoreKind::I32 { atomic: false },
                BRK_ARG,
            );
        }
        ensure(&mut body);
        body.local_get(start).unop(U::I32WrapI64).local_tee(r).global_set(a.base);
        body.local_get(end).unop(U::I32WrapI64).global_set(a.lim);
        body.local_get(r)
            .local_get(bytes)
            .i64_const(15)
            .binop(B::I64Add)
            .i64_const(!15)
            .binop(B::I64And)
            .unop(U::I32WrapI64)
            .binop(B::I32Add)
            .global_set(a.hp);
        body.local_get(r);
    }
    let alloc = fb.finish(vec![bytes], &mut module.funcs);
    module.exports.add("alloc", alloc);

    let forget = |b: &mut InstrSeqBuilder| {
        b.i32_const(0).global_set(a.hp).i32_const(0).global_set(a.lim);
        b.i32_const(0).global_set(a.base);
    };
    let epoch_arg = MemArg { align: 4, offset: u64::from(EPOCH - BRK) };
    let mut fb = FunctionBuilder::new(&mut module.types, &[], &[]);
    {
        let mut body = fb.func_body();
        body.i32_const(BRK as i32).i32_const(HEAP_BASE as i32).store(
            mem,
            walrus::ir::StoreKind::I32 { atomic: threads },
            BRK_ARG,
        );
        // A new epoch: every worker's chunk now lies in the emptied arena.
        body.i32_const(BRK as i32);
        if threads {
            body.i32_const(1).atomic_rmw(mem, AtomicOp::Add, AtomicWidth::I32, epoch_arg).drop();
        } else {
            body.i32_const(BRK as i32)
                .load(mem, walrus::ir::LoadKind::I32 { atomic: false }, epoch_arg)
                .i32_const(1)
                .binop(B::I32Add)
                .store(mem, walrus::ir::StoreKind::I32 { atomic: false }, epoch_arg);
        }
        forget(&mut body);
    }
    let reset = fb.finish(vec![], &mut module.funcs);
    module.exports.add("reset", reset);

    // Before each task a worker's earlier allocations are dead (a parallel map's results go to
    // arrays its caller allocated): it starts again at the start of its chunk, or forgets the
    // chunk if the arena was emptied since it took it. Taking a fresh chunk for every task made
    // a loop around a parallel map grow the arena by a chunk per worker per iteration.
    let mut fb = FunctionBuilder::new(&mut module.types, &[], &[]);
    {
        let mut body = fb.func_body();
        body.i32_const(BRK as i32)
            .load(mem, walrus::ir::LoadKind::I32 { atomic: threads }, epoch_arg)
            .global_get(a.epoch)
            .binop(B::I32Eq)
            .if_else(
                None,
                |b| {
                    b.global_get(a.base).global_set(a.hp);
                },
                |b| {
                    forget(b);
                    b.i32_const(BRK as i32)
                        .load(mem, walrus::ir::LoadKind::I32 { atomic: threads }, epoch_arg)
                        .global_set(a.epoch);
                },
            );
    }
    let reset_thread = fb.finish(vec![], &mut module.funcs);
    module.exports.add("reset_thread", reset_thread);
    (a, alloc)
}

impl Mark {
    /// `hp` when the mark was taken.
    pub(super) fn hp(&self) -> LocalId {
        self.0
    }

    /// `base` when the mark was taken.
    pub(super) fn base(&self) -> LocalId {
        self.1
    }
}

impl Arena {
    /// `[] -> [hp]`
    pub(super) fn push_hp(&self, b: &mut InstrSeqBuilder) {
        b.global_get(self.hp);
    }

    /// `[] -> [base]`
    pub(super) fn push_base(&self, b: &mut InstrSeqBuilder) {
        b.global_get(self.base);
    }

    /// `[p] -> []`: the next allocation starts at `p` (within this thread's chunk).
    pub(super) fn set_hp(&self, b: &mut InstrSeqBuilder) {
        b.global_set(self.hp);
    }

    /// Remember where this thread's arena is.
    pub(super) fn mark(&self, module: &mut Module, b: &mut InstrSeqBuilder) -> Mark {
        let m = Mark(module.locals.add(ValType::I32), module.locals.add(ValType::I32));
        b.global_get(self.hp).local_set(m.0).global_get(self.base).local_set(m.1);
        m
    }

    /// Free everything allocated since `m`: back to the mark in the same chunk, or to the start
    /// of a chunk taken since (the rest of the old chunk is left unused until the arena is
    /// emptied).
    pub(super) fn restore(&self, b: &mut InstrSeqBuilder, m: Mark) {
        b.local_get(m.0)
            .global_get(self.base)
            .global_get(self.base)
            .local_get(m.1)
            .binop(B::I32Eq)
            .select(None)
            .global_set(self.hp);
    }
}
