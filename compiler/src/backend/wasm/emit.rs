//! Small instruction-level helpers: memory access by element type, counted loops, and the
//! stores that precede a run-time error.

use walrus::ir::{BinaryOp as B, ExtendedLoad, LoadKind, MemArg, StoreKind, UnaryOp as U};
use walrus::{InstrSeqBuilder, LocalId, ValType};

use super::gen::Gen;
use super::ERR_ARGS;
use crate::prim::{FloatType, IntType, PrimType};

pub(super) fn mem_arg(t: PrimType) -> MemArg {
    MemArg { align: super::elem_size(t), offset: 0 }
}

/// The wasm value type that holds a scalar of type `t` (f16 is not supported yet: callers check).
pub(super) fn val_type(t: PrimType) -> ValType {
    match t {
        PrimType::Bool => ValType::I32,
        PrimType::Int(i) if i.bits() == 64 => ValType::I64,
        PrimType::Int(_) => ValType::I32,
        PrimType::Float(FloatType::F64) => ValType::F64,
        PrimType::Float(_) => ValType::F32,
    }
}

fn load_kind(t: PrimType) -> LoadKind {
    use ExtendedLoad::{SignExtend as S, ZeroExtend as Z};
    match t {
        PrimType::Bool | PrimType::Int(IntType::U8) => LoadKind::I32_8 { kind: Z },
        PrimType::Int(IntType::I8) => LoadKind::I32_8 { kind: S },
        PrimType::Int(IntType::I16) => LoadKind::I32_16 { kind: S },
        PrimType::Int(IntType::U16) => LoadKind::I32_16 { kind: Z },
        PrimType::Int(IntType::I32 | IntType::U32) => LoadKind::I32 { atomic: false },
        PrimType::Int(_) => LoadKind::I64 { atomic: false },
        PrimType::Float(FloatType::F64) => LoadKind::F64,
        PrimType::Float(_) => LoadKind::F32,
    }
}

fn store_kind(t: PrimType) -> StoreKind {
    match t {
        PrimType::Bool | PrimType::Int(IntType::U8 | IntType::I8) => {
            StoreKind::I32_8 { atomic: false }
        }
        PrimType::Int(IntType::I16 | IntType::U16) => StoreKind::I32_16 { atomic: false },
        PrimType::Int(IntType::I32 | IntType::U32) => StoreKind::I32 { atomic: false },
        PrimType::Int(_) => StoreKind::I64 { atomic: false },
        PrimType::Float(FloatType::F64) => StoreKind::F64,
        PrimType::Float(_) => StoreKind::F32,
    }
}

impl Gen<'_> {
    /// `[addr] -> [value]` (an f16 is widened to the f32 that holds it).
    pub(super) fn load(&mut self, b: &mut InstrSeqBuilder, t: PrimType) {
        if t == PrimType::Float(FloatType::F16) {
            let f = self.f16_import("from_bits");
            b.load(self.mem, LoadKind::I32_16 { kind: ExtendedLoad::ZeroExtend }, mem_arg(t))
                .call(f);
            return;
        }
        b.load(self.mem, load_kind(t), mem_arg(t));
    }

    /// `[addr, value] -> []`
    pub(super) fn store(&mut self, b: &mut InstrSeqBuilder, t: PrimType) {
        if t == PrimType::Float(FloatType::F16) {
            let f = self.f16_import("to_bits");
            b.call(f).store(self.mem, StoreKind::I32_16 { atomic: false }, mem_arg(t));
            return;
        }
        b.store(self.mem, store_kind(t), mem_arg(t));
    }

    /// f16 support from the host (`math.f16.NAME`): `round` (f32 → nearest f16, as f32),
    /// `from_f64` (f64 → nearest f16, as f32), `to_bits` (f32 → i32), `from_bits` (i32 → f32).
    pub(super) fn f16_import(&mut self, name: &str) -> walrus::FunctionId {
        let key = format!("f16.{name}");
        if let Some(id) = self.imports.get(&key) {
            return *id;
        }
        let (p, r) = match name {
            "from_f64" => (ValType::F64, ValType::F32),
            "to_bits" => (ValType::F32, ValType::I32),
            "from_bits" => (ValType::I32, ValType::F32),
            _ => (ValType::F32, ValType::F32),
        };
        let ty = self.module.types.add(&[p], &[r]);
        let (id, _) = self.module.add_import_func("math", &key, ty);
        self.imports.insert(key, id);
        id
    }

    /// Push the address of element `idx` (an i64 local) of the array at `base` (an i32 local).
    pub(super) fn elem_addr(
        &self,
        b: &mut InstrSeqBuilder,
        base: LocalId,
        idx: LocalId,
        t: PrimType,
    ) {
        b.local_get(base)
            .local_get(idx)
            .unop(U::I32WrapI64)
            .i32_const(super::elem_size(t) as i32)
            .binop(B::I32Mul)
            .binop(B::I32Add);
    }

    pub(super) fn tmp(&mut self, t: ValType) -> LocalId {
        self.module.locals.add(t)
    }

    /// `for i in 0..n` over an i64 local `n`; `f` gets the loop body and `i`.
    pub(super) fn for_range(
        &mut self,
        b: &mut InstrSeqBuilder,
        n: LocalId,
        f: impl FnOnce(&mut Self, &mut InstrSeqBuilder, LocalId),
    ) {
        self.for_step(b, None, n, 1, f);
    }

    /// `for (i = start; i < n; i += step)` over i64 locals (`start` 0 when `None`).
    pub(super) fn for_step(
        &mut self,
        b: &mut InstrSeqBuilder,
        start: Option<LocalId>,
        n: LocalId,
        step: i64,
        f: impl FnOnce(&mut Self, &mut InstrSeqBuilder, LocalId),
    ) {
        let i = self.tmp(ValType::I64);
        match start {
            Some(s) => b.local_get(s).local_set(i),
            None => b.i64_const(0).local_set(i),
        };
        b.block(None, |exit| {
            let exit_id = exit.id();
            exit.loop_(None, |lp| {
                let lp_id = lp.id();
                lp.local_get(i).local_get(n).binop(B::I64GeS).br_if(exit_id);
                f(self, lp, i);
                lp.local_get(i).i64_const(step).binop(B::I64Add).local_set(i).br(lp_id);
            });
        });
    }

    /// Store `vals` (local, type) into the error area and fail at `site`.
    pub(super) fn fail(
        &mut self,
        b: &mut InstrSeqBuilder,
        site: i32,
        vals: &[(LocalId, PrimType)],
    ) {
        for (k, &(l, t)) in vals.iter().enumerate() {
            b.i32_const((ERR_ARGS + 8 * k as u32) as i32).local_get(l);
            self.store(b, t);
        }
        b.i32_const(site).call(self.fail_fn);
    }

    /// `[i32 bytes-as-i64 on stack] -> [i32 pointer]`: allocate from the arena.
    pub(super) fn alloc_bytes(&mut self, b: &mut InstrSeqBuilder) {
        b.call(self.alloc_fn);
    }
}
