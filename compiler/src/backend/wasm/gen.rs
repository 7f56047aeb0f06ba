//! The module skeleton (memory, arena, error globals), functions, entry wrappers and statements.
//! Arrays are immutable once built: every construct that produces an array writes a fresh one in
//! the arena, so aliases are safe. `Update`, `Scatter` and `Hist` copy their destination first,
//! except where `ir::inplace` finds it owned and dead afterwards: those write into it.

use std::collections::HashMap;

use crate::ir::inplace::Slot;

use walrus::ir::{BinaryOp as B, UnaryOp as U};
use walrus::{
    ConstExpr, FunctionBuilder, FunctionId, InstrSeqBuilder, LocalId, MemoryId, Module,
    ModuleConfig, ValType,
};

use super::emit::val_type;
use super::{elem_size, EntryAbi, Manifest, Options, Site};
use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::operators::elementwise;
use crate::ir::{self, Atom, Body, Dim, DimIndex, Exp, Lambda, LoopForm, Param, Type, Var};
use crate::prim::{FloatType, PrimType};

pub(super) struct Gen<'p> {
    pub prog: &'p ir::Program,
    #[allow(dead_code)]
    pub opts: Options,
    pub module: Module,
    pub mem: MemoryId,
    pub alloc_fn: FunctionId,
    pub fail_fn: FunctionId,
    pub arena: super::arena::Arena,
    /// Whether code for the body of a parallel map is being generated (its maps stay serial).
    pub in_par: bool,
    /// The host's `threads.par_for`, once imported.
    pub par_fn: Option<FunctionId>,
    /// How many parallel maps have been outlined (`par.K` exports).
    pub par_count: usize,
    /// Each IR function's wasm function, as called from serial code and from the body of a
    /// parallel map (whose maps are all serial), built on first use.
    funs: Vec<[Option<FunctionId>; 2]>,
    active: Vec<bool>,
    pub sites: Vec<Site>,
    pub errors: Vec<Diagnostic>,
    pub imports: HashMap<String, FunctionId>,
    pub helpers: HashMap<(u8, PrimType), FunctionId>,
    /// Every IR variable's local and type (variables are unique in a program).
    vars: HashMap<Var, (LocalId, Type)>,
    /// A map's vector accumulator for the reduce right after it: (the mapped array, where the
    /// vector loop stopped, the accumulator).
    pending: Option<(Var, LocalId, LocalId)>,
    /// The statements (by first pattern variable) that update their destination in place.
    in_place: std::collections::HashSet<Var>,
    /// Whether the statement being generated is one of those.
    here_in_place: bool,
    /// Where a map iteration's array result goes: the address of its row in the outer map's
    /// output, for a result that a map of the body computes (it is written there directly).
    dests: HashMap<Var, LocalId>,
    /// The results written at their destination, which need no copy.
    placed: std::collections::HashSet<Var>,
    /// Variables known to lie in `[0, d)` (`ir::ranges`).
    ranges: HashMap<Var, Dim>,
    /// Map results computed straight into the slot of the array that an in-place update later
    /// stores them in (`ir::inplace::slot_results`).
    slots: HashMap<Var, Slot>,
    /// `replicate`s whose rows are all overwritten before they are read
    /// (`ir::inplace::overwritten_replicates`): allocated, not filled.
    unfilled: std::collections::HashSet<Var>,
    /// Map results to be added into their destination (`dests`) rather than stored there: the
    /// rows a summed map adds up as its inner map computes them (`map_summed`). `adding` holds
    /// the output addresses they were given, which the stores of `vstep` and `store_row` read.
    add_into: std::collections::HashSet<Var>,
    pub(super) adding: std::collections::HashSet<LocalId>,
    /// Array `reduce`s whose rows a map summed as it computed them (`map_summed`): the
    /// reduction's result variable, the local holding the sum's address, and its element count
    /// and type.
    summed: HashMap<Var, (LocalId, LocalId, PrimType)>,
    /// The v128 constants in the pool at `CONST_POOL`, in order, and each one's address.
    pool: Vec<u128>,
    pool_addr: HashMap<u128, u32>,
}

/// One index position with its operands in i64 locals.
#[derive(Clone, Copy)]
enum Ix {
    Fix(LocalId),
    Slice { start: LocalId, len: LocalId, stride: LocalId },
}

pub(super) fn generate(
    prog: &ir::Program,
    opts: &Options,
) -> Result<(Module, Manifest), Vec<Diagnostic>> {
    let mut module = Module::with_config(ModuleConfig::new());
    // With threads, every thread's instance imports the same shared memory (of the largest
    // size: a shared memory must declare one).
    let mem = if opts.threads {
        module.add_import_memory("env", "memory", true, false, 1, Some(1 << 16), None).0
    } else {
        module.memories.add_local(false, false, 1, None, None)
    };
    module.exports.add("memory", mem);
    let i32g = |m: &mut Module, v: i32| {
        m.globals.add_local(ValType::I32, true, false, ConstExpr::Value(walrus::ir::Value::I32(v)))
    };
    let err_code = i32g(&mut module, 0);
    let err_site = i32g(&mut module, 0);
    module.exports.add("err_code", err_code);
    module.exports.add("err_site", err_site);

    // fail(site): record the error and trap.
    let mut fb = FunctionBuilder::new(&mut module.types, &[ValType::I32], &[]);
    let site = module.locals.add(ValType::I32);
    fb.func_body()
        .i32_const(super::ErrorCode::Site as i32)
        .global_set(err_code)
        .local_get(site)
        .global_set(err_site)
        .unreachable();
    let fail_fn = fb.finish(vec![site], &mut module.funcs);

    let (arena, alloc_fn) = super::arena::build(&mut module, mem, err_code, err_site, opts.threads);

    let in_place = crate::ir::inplace::in_place(prog);
    let mut g = Gen {
        prog,
        opts: *opts,
        module,
        mem,
        alloc_fn,
        fail_fn,
        arena,
        in_par: false,
        par_fn: None,
        par_count: 0,
        funs: vec![[None; 2]; prog.funs.len()],
        active: vec![false; prog.funs.len()],
        sites: Vec::new(),
        errors: Vec::new(),
        imports: HashMap::new(),
        helpers: HashMap::new(),
        vars: HashMap::new(),
        pending: None,
        slots: crate::ir::inplace::slot_results(prog, &in_place),
        unfilled: crate::ir::inplace::overwritten_replicates(prog, &in_place),
        add_into: Default::default(),
        adding: Default::default(),
        ranges: prog.funs.iter().flat_map(|f| crate::ir::ranges::index_ranges(&f.body)).collect(),
        in_place,
        here_in_place: false,
        dests: HashMap::new(),
        placed: Default::default(),
        summed: HashMap::new(),
        pool: Vec::new(),
        pool_addr: HashMap::new(),
    };
    let mut entries = Vec::new();
    for ep in &prog.entries {
        if let Some(abi) = g.entry(ep) {
            entries.push(abi);
        }
    }
    if !g.errors.is_empty() {
        return Err(g.errors);
    }
    if !g.pool.is_empty() {
        let bytes = g.pool.iter().flat_map(|c| c.to_le_bytes()).collect();
        let at = ConstExpr::Value(walrus::ir::Value::I32(super::CONST_POOL as i32));
        g.module.data.add(walrus::DataKind::Active { memory: g.mem, offset: at }, bytes);
    }
    Ok((g.module, Manifest { entries, sites: g.sites, threads: opts.threads }))
}

impl<'p> Gen<'p> {
    /// A construct that earlier checks rule out (an error, never silently wrong code).
    pub(super) fn internal(&mut self, span: Span, what: &str) {
        self.errors.push(Diagnostic::new(
            Phase::Lower,
            span,
            format!("internal error: unexpected {what} in the wasm backend"),
        ));
    }

    pub(super) fn unsupported(&mut self, span: Span, what: &str) {
        if self.errors.len() < 20 {
            self.errors.push(Diagnostic::new(
                Phase::Lower,
                span,
                format!("unsupported: {what} in the wasm backend"),
            ));
        }
    }

    /// `[] -> [v128]`: the constant `bits`. V8 builds a general `v128.const` from two 64-bit
    /// immediates in three instructions wherever it is used, inside loops too (where a softmax's
    /// `exp` has fifteen of them), so constants other than all zeros or all ones are loaded
    /// from a pool in memory instead: one instruction, which can also take the place of a
    /// register spilled under pressure.
    pub(super) fn v128_const(&mut self, b: &mut InstrSeqBuilder, bits: u128) {
        let cap = ((super::HEAP_BASE - super::CONST_POOL) / 16) as usize;
        let addr = match self.pool_addr.get(&bits) {
            _ if bits == 0 || bits == u128::MAX => None,
            Some(a) => Some(*a),
            None if self.pool.len() < cap => {
                let a = super::CONST_POOL + 16 * self.pool.len() as u32;
                self.pool.push(bits);
                self.pool_addr.insert(bits, a);
                Some(a)
            }
            None => None,
        };
        match addr {
            Some(a) => {
                let arg = walrus::ir::MemArg { align: 16, offset: u64::from(a) };
                b.i32_const(0).load(self.mem, walrus::ir::LoadKind::V128, arg);
            }
            None => {
                b.const_(walrus::ir::Value::V128(bits));
            }
        }
    }

    pub(super) fn site(&mut self, span: Span, msg: String, args: Vec<PrimType>) -> i32 {
        self.sites.push(Site { span, msg, args });
        (self.sites.len() - 1) as i32
    }

    pub(super) fn bind(&mut self, p: &Param, span: Span) -> LocalId {
        let _ = span;
        let vt = match p.ty {
            Type::Prim(t) => val_type(t),
            Type::Array { .. } => ValType::I32,
        };
        let l = self.module.locals.add(vt);
        self.vars.insert(p.var, (l, p.ty.clone()));
        l
    }

    pub(super) fn local(&mut self, v: Var) -> LocalId {
        match self.vars.get(&v) {
            Some((l, _)) => *l,
            None => {
                // Unbound variable: inconsistent IR. Report it and keep going with a dummy.
                self.errors.push(Diagnostic::new(
                    Phase::Lower,
                    Span::DUMMY,
                    format!("internal error: variable `{}` is not bound", self.prog.name(v)),
                ));
                let l = self.module.locals.add(ValType::I32);
                self.vars.insert(v, (l, Type::Prim(PrimType::I32)));
                l
            }
        }
    }

    pub(super) fn var_type(&self, v: Var) -> Type {
        self.vars.get(&v).map_or(Type::Prim(PrimType::I32), |(_, t)| t.clone())
    }

    pub(super) fn atom_type(&self, a: &Atom) -> PrimType {
        match a {
            Atom::Const(c) => c.ty(),
            Atom::Var(v) => self.var_type(*v).elem(),
        }
    }

    pub(super) fn shape(&self, v: Var) -> Vec<Dim> {
        match self.var_type(v) {
            Type::Array { shape, .. } => shape,
            Type::Prim(_) => Vec::new(),
        }
    }

    pub(super) fn push_atom(&mut self, b: &mut InstrSeqBuilder, a: &Atom) {
        match a {
            Atom::Var(v) => {
                let l = self.local(*v);
                b.local_get(l);
            }
            Atom::Const(c) => super::scalar::push_const(b, *c),
        }
    }

    /// An atom as an i64 (sign- or zero-extended by its type).
    fn push_i64(&mut self, b: &mut InstrSeqBuilder, a: &Atom) {
        let t = self.atom_type(a);
        self.push_atom(b, a);
        super::scalar::to_i64(b, t);
    }

    pub(super) fn i64_local(&mut self, b: &mut InstrSeqBuilder, a: &Atom) -> LocalId {
        if let Atom::Var(v) = a {
            if self.atom_type(a) == PrimType::I64 {
                return self.local(*v);
            }
        }
        let l = self.tmp(ValType::I64);
        self.push_i64(b, a);
        b.local_set(l);
        l
    }

    fn push_dim(&mut self, b: &mut InstrSeqBuilder, d: &Dim) {
        match d {
            Dim::Const(c) => {
                b.i64_const(*c);
            }
            Dim::Var(v) => {
                let l = self.local(*v);
                b.local_get(l);
            }
        }
    }

    pub(super) fn dim_locals(&mut self, b: &mut InstrSeqBuilder, ds: &[Dim]) -> Vec<LocalId> {
        ds.iter()
            .map(|d| match d {
                Dim::Var(v) => self.local(*v),
                Dim::Const(_) => {
                    let l = self.tmp(ValType::I64);
                    self.push_dim(b, d);
                    b.local_set(l);
                    l
                }
            })
            .collect()
    }

    /// The product of some dims (1 for none), in a fresh i64 local.
    pub(super) fn product(&mut self, b: &mut InstrSeqBuilder, ds: &[LocalId]) -> LocalId {
        let l = self.tmp(ValType::I64);
        b.i64_const(1);
        for d in ds {
            b.local_get(*d).binop(B::I64Mul);
        }
        b.local_set(l);
        l
    }

    /// Allocate `count * size(elem)` bytes; the pointer in a fresh local.
    fn alloc_elems(&mut self, b: &mut InstrSeqBuilder, count: LocalId, elem: PrimType) -> LocalId {
        let p = self.tmp(ValType::I32);
        b.local_get(count).i64_const(elem_size(elem) as i64).binop(B::I64Mul);
        self.alloc_bytes(b);
        b.local_set(p);
        p
    }

    /// `[i64 element count] -> [i32 bytes]`
    fn elems_to_bytes(&self, b: &mut InstrSeqBuilder, elem: PrimType) {
        b.unop(U::I32WrapI64).i32_const(elem_size(elem) as i32).binop(B::I32Mul);
    }

    /// `dst <- src`, `n` elements (an i64 local); `dst` and `src` are i32 address computations.
    fn copy_elems(
        &self,
        b: &mut InstrSeqBuilder,
        dst: impl FnOnce(&mut InstrSeqBuilder),
        src: impl FnOnce(&mut InstrSeqBuilder),
        n: LocalId,
        elem: PrimType,
    ) {
        dst(b);
        src(b);
        b.local_get(n);
        self.elems_to_bytes(b, elem);
        b.memory_copy(self.mem, self.mem);
    }

    /// Fill `out` (`total` = `n * m` elements) with `n` copies of `value`, a scalar (`m` = 1)
    /// or an array of `m` elements: zero bits by `memory.fill`, anything else by storing the
    /// first copy and then copying what is filled onto the rest, doubling it each time (about
    /// log2 n copies at memcpy speed, instead of one store per element).
    #[allow(clippy::too_many_arguments)]
    fn fill(
        &mut self,
        b: &mut InstrSeqBuilder,
        out: LocalId,
        value: &Atom,
        n: LocalId,
        m: LocalId,
        total: LocalId,
        t: PrimType,
    ) {
        let zero_bits = match value {
            Atom::Const(c) => match c.as_f64() {
                Some(x) if matches!(t, PrimType::Float(_)) => x.to_bits() == 0,
                _ => c.as_i128() == Some(0) || c.as_bool() == Some(false),
            },
            Atom::Var(_) => false,
        };
        if zero_bits {
            b.local_get(out).i32_const(0).local_get(total);
            self.elems_to_bytes(b, t);
            b.memory_fill(self.mem);
            return;
        }
        b.local_get(n).i64_const(0).binop(B::I64GtS);
        let then = {
            let mut f = b.dangling_instr_seq(None);
            match value {
                Atom::Var(v) if self.var_type(*v).rank() > 0 => {
                    let src = self.local(*v);
                    self.copy_elems(
                        &mut f,
                        |f| {
                            f.local_get(out);
                        },
                        |f| {
                            f.local_get(src);
                        },
                        m,
                        t,
                    );
                }
                _ => {
                    f.local_get(out);
                    self.push_atom(&mut f, value);
                    self.store(&mut f, t);
                }
            }
            // `done` elements filled; copy min(done, total - done) more after them.
            let (done, more) = (self.tmp(ValType::I64), self.tmp(ValType::I64));
            f.local_get(m).local_set(done);
            f.block(None, |blk| {
                let exit = blk.id();
                blk.loop_(None, |lp| {
                    let top = lp.id();
                    lp.local_get(done).local_get(total).binop(B::I64GeS).br_if(exit);
                    lp.local_get(total).local_get(done).binop(B::I64Sub).local_tee(more);
                    lp.local_get(done).local_get(more).local_get(done).binop(B::I64LtS);
                    lp.select(None).local_set(more);
                    self.copy_elems(
                        lp,
                        |lp| self.elem_addr(lp, out, done, t),
                        |lp| {
                            lp.local_get(out);
                        },
                        more,
                        t,
                    );
                    lp.local_get(done).local_get(more).binop(B::I64Add).local_set(done).br(top);
                });
            });
            f.id()
        };
        let none = b.dangling_instr_seq(None).id();
        b.instr(walrus::ir::IfElse { consequent: then, alternative: none });
    }

    /// A shape as a message fragment `[{}][{}]` with its values.
    fn shape_msg(dims: &[LocalId], msg: &mut String, args: &mut Vec<(LocalId, PrimType)>) {
        for d in dims {
            msg.push_str("[{}]");
            args.push((*d, PrimType::I64));
        }
    }

    /// Fail at a new site unless the i32 on the stack is nonzero.
    fn check(
        &mut self,
        b: &mut InstrSeqBuilder,
        span: Span,
        msg: String,
        args: Vec<(LocalId, PrimType)>,
    ) {
        let tys = args.iter().map(|a| a.1).collect();
        let site = self.site(span, msg, tys);
        b.unop(U::I32Eqz).if_else(None, |t| self.fail(t, site, &args), |_| {});
    }

    /// Fail with `negative size: cannot create an array of shape ...` if a dim is negative.
    fn check_nonneg(&mut self, b: &mut InstrSeqBuilder, dims: &[LocalId], span: Span) {
        if dims.is_empty() {
            return;
        }
        b.i32_const(1);
        for d in dims {
            b.local_get(*d).i64_const(0).binop(B::I64GeS).binop(B::I32And);
        }
        let mut msg = "negative size: cannot create an array of shape ".to_string();
        let mut args = Vec::new();
        Self::shape_msg(dims, &mut msg, &mut args);
        self.check(b, span, msg, args);
    }

    // ---- functions ----

    fn fun(&mut self, k: usize, span: Span) -> Option<FunctionId> {
        let variant = usize::from(self.in_par);
        if let Some(f) = self.funs.get(k).and_then(|f| f[variant]) {
            return Some(f);
        }
        let prog = self.prog;
        let Some(f) = prog.funs.get(k) else {
            self.errors.push(Diagnostic::new(
                Phase::Lower,
                span,
                "internal error: no such function",
            ));
            return None;
        };
        if self.active[k] {
            self.unsupported(span, "recursion");
            return None;
        }
        self.active[k] = true;
        let args: Vec<LocalId> = f.params.iter().map(|p| self.bind(p, f.span)).collect();
        let params: Vec<ValType> = args.iter().map(|l| self.module.locals.get(*l).ty()).collect();
        let results: Vec<ValType> = f.ret.iter().map(ty_val).collect();
        let mut fb = FunctionBuilder::new(&mut self.module.types, &params, &results);
        fb.name(if self.in_par { format!("{}.serial", f.name) } else { f.name.clone() });
        {
            let mut b = fb.func_body();
            self.body(&mut b, &f.body);
            for a in &f.body.result {
                self.push_atom(&mut b, a);
            }
        }
        let id = fb.finish(args, &mut self.module.funcs);
        self.active[k] = false;
        self.funs[k][variant] = Some(id);
        Some(id)
    }

    /// The export of one entry point: calls its function and writes the result record.
    fn entry(&mut self, ep: &ir::EntryPoint) -> Option<EntryAbi> {
        let prog = self.prog;
        let f = prog.funs.get(ep.fun)?;
        let fid = self.fun(ep.fun, ep.span)?;
        let args: Vec<LocalId> =
            f.params.iter().map(|p| self.module.locals.add(ty_val(&p.ty))).collect();
        let params: Vec<ValType> = f.params.iter().map(|p| ty_val(&p.ty)).collect();
        let mut fb = FunctionBuilder::new(&mut self.module.types, &params, &[ValType::I32]);
        let res: Vec<LocalId> = f.ret.iter().map(|t| self.module.locals.add(ty_val(t))).collect();
        // Dims of the result types name parameters or the existentials the body returns.
        let mut dim_of: HashMap<Var, LocalId> = HashMap::new();
        for (p, l) in f.params.iter().zip(&args) {
            dim_of.insert(p.var, *l);
        }
        for (j, a) in f.body.result.iter().take(f.existentials).enumerate() {
            if let (Atom::Var(v), Some(l)) = (a, res.get(j)) {
                dim_of.insert(*v, *l);
            }
        }
        let slots: usize = f
            .ret
            .iter()
            .skip(f.existentials)
            .map(|t| if t.rank() == 0 { 1 } else { 1 + t.rank() })
            .sum();
        let rec = self.tmp(ValType::I32);
        {
            let mut b = fb.func_body();
            for a in &args {
                b.local_get(*a);
            }
            b.call(fid);
            for l in res.iter().rev() {
                b.local_set(*l);
            }
            b.i64_const(8 * slots as i64);
            self.alloc_bytes(&mut b);
            b.local_set(rec);
            let mut slot = 0u32;
            for (t, l) in f.ret.iter().zip(&res).skip(f.existentials) {
                let at = |b: &mut InstrSeqBuilder, slot: u32| {
                    b.local_get(rec).i32_const(8 * slot as i32).binop(B::I32Add);
                };
                match t {
                    Type::Prim(p) => {
                        at(&mut b, slot);
                        b.local_get(*l);
                        self.store(&mut b, *p);
                        slot += 1;
                    }
                    Type::Array { shape, .. } => {
                        at(&mut b, slot);
                        b.local_get(*l).unop(U::I64ExtendUI32);
                        self.store(&mut b, PrimType::I64);
                        slot += 1;
                        for d in shape {
                            at(&mut b, slot);
                            match d {
                                Dim::Const(c) => {
                                    b.i64_const(*c);
                                }
                                Dim::Var(v) => match dim_of.get(v) {
                                    Some(l) => {
                                        b.local_get(*l);
                                    }
                                    None => {
                                        self.unsupported(
                                            ep.span,
                                            "an entry result whose size is not returned",
                                        );
                                        b.i64_const(0);
                                    }
                                },
                            }
                            self.store(&mut b, PrimType::I64);
                            slot += 1;
                        }
                    }
                }
            }
            b.local_get(rec);
        }
        let id = fb.finish(args, &mut self.module.funcs);
        let export = format!("{}{}", super::ENTRY_PREFIX, ep.name);
        self.module.exports.add(&export, id);
        Some(EntryAbi {
            name: ep.name.clone(),
            export,
            params: ep.params.clone(),
            results: ep.results.clone(),
            span: ep.span,
        })
    }

    // ---- bodies and statements ----

    pub(super) fn body(&mut self, b: &mut InstrSeqBuilder, body: &Body) {
        let mut skip = false;
        // Statements a fused map stood for.
        let mut done: std::collections::HashSet<usize> = Default::default();
        for (k, s) in body.stms.iter().enumerate() {
            if std::mem::take(&mut skip) || done.contains(&k) {
                continue;
            }
            let sums = summed_results(body, k);
            if !sums.is_empty() {
                self.map_summed(b, s, &sums, body);
                continue;
            }
            if let Exp::Map { lam, .. } = &s.exp {
                // On one thread only: the threads' additions would race.
                let parallel = self.opts.threads && !self.in_par && super::par::heavy(&lam.body);
                // Variables bound after the map are not generated yet: their types are in
                // their patterns.
                let ty = |v: Var| {
                    let bound = body.stms.iter().flat_map(|t| &t.pat).find(|p| p.var == v);
                    bound.map_or_else(|| self.var_type(v), |p| p.ty.clone())
                };
                let fusion = (!parallel).then(|| super::hist_fusion::hist_fusion(body, k, &ty));
                if let Some(Some(f)) = fusion {
                    self.map_into_hists(b, body, k, &f);
                    done.extend(f.covered());
                    continue;
                }
            }
            if let Some(n) = body.stms.get(k + 1).filter(|n| self.scans_only(body, k, n)) {
                self.scanomap(b, s, n);
                skip = true;
                continue;
            }
            // A map whose result the next statement reduces: fuse the two vector loops.
            let fuse = match (&s.exp, body.stms.get(k + 1).map(|n| &n.exp)) {
                (Exp::Map { w, .. }, Some(Exp::Reduce { w: w2, lam, neutral, arrs, .. }))
                    if w == w2
                        && s.pat.len() == 1
                        && arrs.as_slice() == [s.pat[0].var]
                        && neutral.len() == 1 =>
                {
                    super::simd::simple_reduce(lam).map(|(op, _)| (op, neutral[0]))
                }
                _ => None,
            };
            // Vector accumulators left by the previous statement (a map fused with this
            // reduction) are only valid for this statement.
            let pending = self.pending.take();
            if let (Exp::Map { w, lam, arrs }, Some(_)) = (&s.exp, fuse) {
                if !used_after(body, k + 2, s.pat[0].var) {
                    // Only the reduction reads the mapped values: never store them.
                    self.redomap(b, w, lam, arrs, &body.stms[k + 1], s.span);
                    skip = true;
                    continue;
                }
            }
            if let (Exp::Map { w, lam, arrs }, Some(f)) = (&s.exp, fuse) {
                let pat: Vec<LocalId> = s.pat.iter().map(|p| self.bind(p, s.span)).collect();
                self.map(b, w, lam, arrs, &s.pat, &pat, s.span, Some((f.0, &f.1)));
            } else {
                self.pending = pending;
                self.stm(b, s);
                self.pending = None;
            }
        }
        self.pending = None;
    }

    /// Whether `body.stms[k]` is a map of scalars whose results only the scan `n` after it
    /// reads, and that would run on this thread anyway: `scanomap` computes them in the scan.
    fn scans_only(&self, body: &Body, k: usize, n: &ir::Stm) -> bool {
        let s = &body.stms[k];
        let (Exp::Map { w, lam, .. }, Exp::Scan { w: w2, arrs, .. }) = (&s.exp, &n.exp) else {
            return false;
        };
        let parallel = self.opts.threads && !self.in_par && super::par::heavy(&lam.body);
        w == w2
            && !parallel
            && !s.pat.is_empty()
            && lam.ret.iter().all(|t| matches!(t, Type::Prim(_)))
            && s.pat.iter().all(|p| {
                let reads = arrs.iter().filter(|a| **a == p.var).count();
                reads > 0 && uses_after(body, k + 1, p.var) == reads
            })
    }

    /// `scan op ne (map f xs)` (the statements `m` and `s`) when only the scan reads the mapped
    /// values: each is computed by `f` where the scan reads it, and never stored (a
    /// reverse-mode scan reads its elements in reverse order through such a map).
    fn scanomap(&mut self, b: &mut InstrSeqBuilder, m: &ir::Stm, s: &ir::Stm) {
        let (Exp::Map { w, lam: f, arrs: fxs }, Exp::Scan { lam, neutral, arrs, .. }) =
            (&m.exp, &s.exp)
        else {
            return self.internal(s.span, "a scan of a map");
        };
        let wl = self.i64_local(b, w);
        self.check_width(b, wl, w, fxs, "map", m.span);
        let pat: Vec<LocalId> = s.pat.iter().map(|p| self.bind(p, s.span)).collect();
        let outs = self.soac_outputs(b, &s.pat, &pat);
        let fps: Vec<LocalId> = f.params.iter().map(|p| self.bind(p, m.span)).collect();
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, s.span)).collect();
        let (acc, xs) = ps.split_at(neutral.len().min(ps.len()));
        self.assign(b, acc, neutral);
        // The map's result that each of the scan's arrays is; the scan's other arrays are read.
        let (mut mapped, mut from, mut read, mut direct) = (vec![], vec![], vec![], vec![]);
        for (x, a) in xs.iter().zip(arrs) {
            match m.pat.iter().position(|p| p.var == *a) {
                Some(i) => {
                    mapped.push(*x);
                    from.push(f.body.result[i]);
                }
                None => {
                    read.push(*x);
                    direct.push(*a);
                }
            }
        }
        self.check_width(b, wl, w, &direct, "scan", s.span);
        let arena = self.arena;
        self.for_step(b, None, wl, 1, |g, b, j| {
            let mark = arena.mark(&mut g.module, b);
            g.bind_rows(b, &fps, fxs, j);
            g.body(b, &f.body);
            g.assign(b, &mapped, &from);
            // The values are scalars: what the map's function allocated is dead.
            arena.restore(b, mark);
            g.bind_rows(b, &read, &direct, j);
            g.body(b, &lam.body);
            g.assign(b, acc, &lam.body.result);
            for ((out, row, elem), p) in outs.iter().zip(&lam.params) {
                g.store_row(b, *out, j, &Atom::Var(p.var), *elem, *row);
            }
        });
    }

    /// Push `results`, then pop them into `into` (so a result may name one of `into`).
    fn assign(&mut self, b: &mut InstrSeqBuilder, into: &[LocalId], results: &[Atom]) {
        for a in results {
            self.push_atom(b, a);
        }
        for l in into.iter().rev() {
            b.local_set(*l);
        }
    }

    /// Whether `stm` may update its destination in place (`here_in_place`).
    pub(super) fn set_here_in_place(&mut self, stm: &ir::Stm) {
        self.here_in_place = stm.pat.first().is_some_and(|p| self.in_place.contains(&p.var));
    }

    pub(super) fn stm(&mut self, b: &mut InstrSeqBuilder, stm: &ir::Stm) {
        let span = stm.span;
        let pat: Vec<LocalId> = stm.pat.iter().map(|p| self.bind(p, span)).collect();
        self.set_here_in_place(stm);
        let first = pat.first().copied();
        let set_one = |b: &mut InstrSeqBuilder| {
            if let Some(l) = first {
                b.local_set(l);
            }
        };
        match &stm.exp {
            Exp::Atom(a) => {
                self.push_atom(b, a);
                set_one(b);
            }
            Exp::UnOp(..)
            | Exp::BinOp(..)
            | Exp::Cmp(..)
            | Exp::Convert { .. }
            | Exp::Math(..)
            | Exp::Select(..) => {
                self.scalar(b, &stm.exp, span);
                // f16 arithmetic happens in f32; round each result to f16.
                if stm
                    .pat
                    .first()
                    .is_some_and(|p| p.ty == Type::Prim(PrimType::Float(FloatType::F16)))
                {
                    let f = self.f16_import("round");
                    b.call(f);
                }
                set_one(b);
            }
            Exp::Index { arr, idx } => self.index(b, *arr, idx, &stm.pat, &pat, span),
            Exp::Update { arr, idx, value } => self.update(b, *arr, idx, value, &pat, span),
            Exp::Iota { n, start, step, it } => {
                let n = self.i64_local(b, n);
                self.check_nonneg(b, &[n], span);
                let t = PrimType::Int(*it);
                let out = self.alloc_elems(b, n, t);
                let (start, step) = (*start, *step);
                self.for_range(b, n, |g, b, j| {
                    g.elem_addr(b, out, j, t);
                    b.local_get(j);
                    super::scalar::from_i64(b, t);
                    g.push_atom(b, &step);
                    super::scalar::int_arith(b, B::I32Mul, t);
                    g.push_atom(b, &start);
                    super::scalar::int_arith(b, B::I32Add, t);
                    g.store(b, t);
                });
                b.local_get(out);
                set_one(b);
            }
            Exp::Replicate { shape, value } => {
                let outer = self.dim_locals(b, shape);
                let t = self.atom_type(value);
                let inner = match value {
                    Atom::Var(v) => self.shape(*v),
                    Atom::Const(_) => Vec::new(),
                };
                let inner = self.dim_locals(b, &inner);
                let all: Vec<LocalId> = outer.iter().chain(&inner).copied().collect();
                self.check_nonneg(b, &all, span);
                let n = self.product(b, &outer);
                let m = self.product(b, &inner);
                let total = self.product(b, &[n, m]);
                let out = self.alloc_elems(b, total, t);
                if !stm.pat.first().is_some_and(|p| self.unfilled.contains(&p.var)) {
                    self.fill(b, out, value, n, m, total, t);
                }
                b.local_get(out);
                set_one(b);
            }
            Exp::Rearrange { arr, perm } => self.rearrange(b, *arr, perm, &pat, span),
            Exp::Reshape { arr, shape } => {
                let old = self.shape(*arr);
                let old = self.dim_locals(b, &old);
                let new = self.dim_locals(b, shape);
                let n_old = self.product(b, &old);
                let n_new = self.product(b, &new);
                b.local_get(n_old).local_get(n_new).binop(B::I64Eq);
                for d in &new {
                    b.local_get(*d).i64_const(0).binop(B::I64GeS).binop(B::I32And);
                }
                let mut msg = "size mismatch: cannot reshape an array of shape ".to_string();
                let mut args = Vec::new();
                Self::shape_msg(&old, &mut msg, &mut args);
                msg.push_str(" to ");
                Self::shape_msg(&new, &mut msg, &mut args);
                self.check(b, span, msg, args);
                let l = self.local(*arr);
                b.local_get(l);
                set_one(b);
            }
            Exp::Concat { axis, arrs, len } => self.concat(b, *axis, arrs, len, &pat, span),
            Exp::ArrayLit { elems, elem_ty } => self.array_lit(b, elems, elem_ty, &pat, span),
            Exp::Copy(v) => {
                let t = self.var_type(*v);
                let dims = self.shape(*v);
                let dims = self.dim_locals(b, &dims);
                let n = self.product(b, &dims);
                let out = self.alloc_elems(b, n, t.elem());
                let src = self.local(*v);
                self.copy_elems(
                    b,
                    |b| {
                        b.local_get(out);
                    },
                    |b| {
                        b.local_get(src);
                    },
                    n,
                    t.elem(),
                );
                b.local_get(out);
                set_one(b);
            }
            Exp::Apply { fun, args } => {
                let Some(fid) = self.fun(*fun, span) else { return };
                for a in args {
                    self.push_atom(b, a);
                }
                b.call(fid);
                for l in pat.iter().rev() {
                    b.local_set(*l);
                }
            }
            Exp::If { cond, then_body, else_body, .. } => {
                self.push_atom(b, cond);
                let consequent = {
                    let mut t = b.dangling_instr_seq(None);
                    self.body(&mut t, then_body);
                    self.assign(&mut t, &pat, &then_body.result);
                    t.id()
                };
                let alternative = {
                    let mut e = b.dangling_instr_seq(None);
                    self.body(&mut e, else_body);
                    self.assign(&mut e, &pat, &else_body.result);
                    e.id()
                };
                b.instr(walrus::ir::IfElse { consequent, alternative });
            }
            Exp::Loop { params, form, body } => self.do_loop(b, params, form, body, &pat, span),
            Exp::Map { w, lam, arrs } => self.map(b, w, lam, arrs, &stm.pat, &pat, span, None),
            Exp::Reduce { w, neutral, lam, .. } if self.summed.contains_key(&stm.pat[0].var) => {
                // Summed by the map that computed its rows: the neutral element, and the sum
                // of the rows if there are any (`ne op sum`, as the interpreter folds it).
                let (acc, n, elem) = self.summed[&stm.pat[0].var];
                let ne = self.tmp(ValType::I32);
                self.push_atom(b, &neutral[0]);
                b.local_set(ne).local_get(ne).local_set(pat[0]);
                self.push_i64(b, w);
                b.i64_const(0).binop(B::I64GtS);
                let fold = {
                    let mut t = b.dangling_instr_seq(None);
                    let no = self.tmp(ValType::I32);
                    t.i32_const(0).local_set(no);
                    self.sum_row(&mut t, lam, [acc, ne, acc], n, elem, no, span);
                    t.local_get(acc).local_set(pat[0]);
                    t.id()
                };
                let none = b.dangling_instr_seq(None).id();
                b.instr(walrus::ir::IfElse { consequent: fold, alternative: none });
            }
            Exp::Reduce { w, lam, neutral, arrs, .. } => {
                self.fold(b, w, lam, neutral, arrs, None, &pat, span)
            }
            Exp::Scan { w, lam, neutral, arrs } => {
                self.fold(b, w, lam, neutral, arrs, Some(&stm.pat), &pat, span)
            }
            Exp::Scatter { dest, idx, vals, w } => {
                self.scatter(b, *dest, idx, *vals, w, &pat, span)
            }
            Exp::Hist { dest, lam, is, vs, w, .. } => {
                self.hist(b, dest, lam, *is, vs, w, &pat, span)
            }
            // `ad::differentiate` removes these before any backend runs.
            Exp::Ad { .. } => self.unsupported(span, "an undifferentiated `jvp`/`vjp`"),
            Exp::Assert { cond, msg, vals } => {
                let mut args = Vec::new();
                let mut text =
                    if msg.is_empty() { "assertion failed".to_string() } else { msg.clone() };
                for (k, a) in vals.iter().enumerate() {
                    let t = self.atom_type(a);
                    let is_arr = matches!(a, Atom::Var(v) if self.var_type(*v).rank() > 0);
                    if is_arr {
                        // Arrays in messages are not transferred: name them instead.
                        text = replace_nth_hole(&text, args.len(), "(an array)");
                        let _ = k;
                        continue;
                    }
                    let l = self.module.locals.add(val_type(t));
                    self.push_atom(b, a);
                    b.local_set(l);
                    args.push((l, t));
                }
                self.push_atom(b, cond);
                self.check(b, span, text, args);
            }
        }
    }

    // ---- indexing ----

    fn ixs(&mut self, b: &mut InstrSeqBuilder, idx: &[DimIndex]) -> Vec<Ix> {
        idx.iter()
            .map(|ix| match ix {
                DimIndex::Fix(a) => Ix::Fix(self.i64_local(b, a)),
                DimIndex::Slice { start, len, stride } => Ix::Slice {
                    start: self.i64_local(b, start),
                    len: self.i64_local(b, len),
                    stride: self.i64_local(b, stride),
                },
            })
            .collect()
    }

    fn bounds_check(&mut self, b: &mut InstrSeqBuilder, dims: &[LocalId], ixs: &[Ix], span: Span) {
        let mut msg = "index [".to_string();
        let mut args = Vec::new();
        b.i32_const(1);
        for (k, (ix, d)) in ixs.iter().zip(dims).enumerate() {
            if k > 0 {
                msg.push_str(", ");
            }
            match *ix {
                Ix::Fix(i) => {
                    b.local_get(i).local_get(*d).binop(B::I64LtU).binop(B::I32And);
                    msg.push_str("{}");
                    args.push((i, PrimType::I64));
                }
                Ix::Slice { start, len, stride } => {
                    // len == 0 || (len > 0 && 0 <= start < d && 0 <= last < d)
                    let last = self.tmp(ValType::I64);
                    b.local_get(start)
                        .local_get(len)
                        .i64_const(1)
                        .binop(B::I64Sub)
                        .local_get(stride)
                        .binop(B::I64Mul)
                        .binop(B::I64Add)
                        .local_set(last);
                    b.local_get(len).unop(U::I64Eqz);
                    b.local_get(len).i64_const(0).binop(B::I64GtS);
                    b.local_get(start).local_get(*d).binop(B::I64LtU).binop(B::I32And);
                    b.local_get(last).local_get(*d).binop(B::I64LtU).binop(B::I32And);
                    b.binop(B::I32Or).binop(B::I32And);
                    let end = self.tmp(ValType::I64);
                    let site_end = |b: &mut InstrSeqBuilder| {
                        b.local_get(start)
                            .local_get(len)
                            .local_get(stride)
                            .binop(B::I64Mul)
                            .binop(B::I64Add)
                            .local_set(end);
                    };
                    site_end(b);
                    msg.push_str("{}:{}:{}");
                    args.extend([
                        (start, PrimType::I64),
                        (end, PrimType::I64),
                        (stride, PrimType::I64),
                    ]);
                }
            }
        }
        msg.push_str("] out of bounds for array of shape ");
        Self::shape_msg(dims, &mut msg, &mut args);
        self.check(b, span, msg, args);
    }

    /// Row-major strides (in elements) of a shape.
    fn strides(&mut self, b: &mut InstrSeqBuilder, dims: &[LocalId]) -> Vec<LocalId> {
        let mut st = vec![self.tmp(ValType::I64); dims.len()];
        let mut acc = self.tmp(ValType::I64);
        b.i64_const(1).local_set(acc);
        for k in (0..dims.len()).rev() {
            st[k] = acc;
            if k > 0 {
                let next = self.tmp(ValType::I64);
                b.local_get(acc).local_get(dims[k]).binop(B::I64Mul).local_set(next);
                acc = next;
            }
        }
        st
    }

    /// Call `f` with the element offset of each contiguous block an index selects, in row-major
    /// order of the result.
    fn walk(
        &mut self,
        b: &mut InstrSeqBuilder,
        ixs: &[Ix],
        st: &[LocalId],
        off: LocalId,
        f: &mut dyn FnMut(&mut Self, &mut InstrSeqBuilder, LocalId),
    ) {
        let Some((ix, rest)) = ixs.split_first() else {
            f(self, b, off);
            return;
        };
        let (s, st_rest) = (st[0], &st[1..]);
        match *ix {
            Ix::Fix(i) => {
                let o = self.tmp(ValType::I64);
                b.local_get(off)
                    .local_get(i)
                    .local_get(s)
                    .binop(B::I64Mul)
                    .binop(B::I64Add)
                    .local_set(o);
                self.walk(b, rest, st_rest, o, f);
            }
            Ix::Slice { start, len, stride } => {
                self.for_range(b, len, |g, b, j| {
                    let o = g.tmp(ValType::I64);
                    b.local_get(off)
                        .local_get(j)
                        .local_get(stride)
                        .binop(B::I64Mul)
                        .local_get(start)
                        .binop(B::I64Add)
                        .local_get(s)
                        .binop(B::I64Mul)
                        .binop(B::I64Add)
                        .local_set(o);
                    g.walk(b, rest, st_rest, o, f);
                });
            }
        }
    }

    /// Bounds-check an index; return the strides, the per-block element count and the ixs.
    fn prepare_index(
        &mut self,
        b: &mut InstrSeqBuilder,
        arr: Var,
        idx: &[DimIndex],
        span: Span,
    ) -> (Vec<LocalId>, LocalId, Vec<Ix>) {
        let shape = self.shape(arr);
        let dims = self.dim_locals(b, &shape);
        let ixs = self.ixs(b, idx);
        // Indices that are iota elements or loop counters below their dimensions are in
        // bounds (`ir::ranges`).
        let proven = idx.iter().zip(&shape).all(
            |(ix, d)| matches!(ix, DimIndex::Fix(Atom::Var(v)) if self.ranges.get(v) == Some(d)),
        );
        if !proven {
            self.bounds_check(b, &dims, &ixs, span);
        }
        let st = self.strides(b, &dims);
        let block = self.product(b, &dims[ixs.len().min(dims.len())..]);
        (st, block, ixs)
    }

    fn index(
        &mut self,
        b: &mut InstrSeqBuilder,
        arr: Var,
        idx: &[DimIndex],
        pat_params: &[Param],
        pat: &[LocalId],
        span: Span,
    ) {
        let Some(&res) = pat.first() else { return };
        let elem = self.var_type(arr).elem();
        let base = self.local(arr);
        let (st, block, ixs) = self.prepare_index(b, arr, idx, span);
        let zero = self.tmp(ValType::I64);
        b.i64_const(0).local_set(zero);
        if pat_params.first().is_some_and(|p| p.ty.rank() == 0) {
            self.walk(b, &ixs, &st, zero, &mut |g, b, off| {
                g.elem_addr(b, base, off, elem);
                g.load(b, elem);
                b.local_set(res);
            });
            return;
        }
        if idx.iter().all(|d| matches!(d, DimIndex::Fix(_))) {
            // A row (or a block of rows' rows) is contiguous: the result points into `arr`
            // instead of copying it. Arrays change only by in-place updates, which
            // `ir::inplace` allows only when nothing derived from the array by indexing is
            // used afterwards.
            self.walk(b, &ixs, &st, zero, &mut |g, b, off| {
                g.elem_addr(b, base, off, elem);
                b.local_set(res);
            });
            return;
        }
        let rshape = pat_params.first().map(|p| match &p.ty {
            Type::Array { shape, .. } => shape.clone(),
            Type::Prim(_) => Vec::new(),
        });
        let rdims = self.dim_locals(b, &rshape.unwrap_or_default());
        let n = self.product(b, &rdims);
        let out = self.alloc_elems(b, n, elem);
        let cursor = self.tmp(ValType::I64);
        b.i64_const(0).local_set(cursor);
        self.walk(b, &ixs, &st, zero, &mut |g, b, off| {
            g.copy_elems(
                b,
                |b| g.elem_addr(b, out, cursor, elem),
                |b| g.elem_addr(b, base, off, elem),
                block,
                elem,
            );
            b.local_get(cursor).local_get(block).binop(B::I64Add).local_set(cursor);
        });
        b.local_get(out).local_set(res);
    }

    fn update(
        &mut self,
        b: &mut InstrSeqBuilder,
        arr: Var,
        idx: &[DimIndex],
        value: &Atom,
        pat: &[LocalId],
        span: Span,
    ) {
        let Some(&res) = pat.first() else { return };
        let elem = self.var_type(arr).elem();
        let base = self.local(arr);
        let (st, block, ixs) = self.prepare_index(b, arr, idx, span);
        let shape = self.shape(arr);
        let dims = self.dim_locals(b, &shape);
        let out = if self.here_in_place {
            base
        } else {
            let n = self.product(b, &dims);
            let out = self.alloc_elems(b, n, elem);
            self.copy_elems(
                b,
                |b| {
                    b.local_get(out);
                },
                |b| {
                    b.local_get(base);
                },
                n,
                elem,
            );
            out
        };
        let zero = self.tmp(ValType::I64);
        b.i64_const(0).local_set(zero);
        let value = *value;
        let scalar = match value {
            Atom::Const(_) => true,
            Atom::Var(v) => self.var_type(v).rank() == 0,
        };
        if scalar {
            self.walk(b, &ixs, &st, zero, &mut |g, b, off| {
                g.elem_addr(b, out, off, elem);
                g.push_atom(b, &value);
                g.store(b, elem);
            });
        } else {
            let src = match value {
                Atom::Var(v) => self.local(v),
                Atom::Const(_) => return,
            };
            let cursor = self.tmp(ValType::I64);
            b.i64_const(0).local_set(cursor);
            // A value computed in its slot (`slot_addr`) is there already, unless the indices
            // were out of bounds (then the checks above have failed) .
            let in_slot =
                matches!(value, Atom::Var(v) if self.here_in_place && self.slots.contains_key(&v));
            self.walk(b, &ixs, &st, zero, &mut |g, b, off| {
                let copy = |g: &mut Self, b: &mut InstrSeqBuilder| {
                    g.copy_elems(
                        b,
                        |b| g.elem_addr(b, out, off, elem),
                        |b| g.elem_addr(b, src, cursor, elem),
                        block,
                        elem,
                    );
                };
                if in_slot {
                    g.elem_addr(b, out, off, elem);
                    g.elem_addr(b, src, cursor, elem);
                    b.binop(B::I32Ne);
                    let differ = {
                        let mut t = b.dangling_instr_seq(None);
                        copy(g, &mut t);
                        t.id()
                    };
                    let same = b.dangling_instr_seq(None).id();
                    b.instr(walrus::ir::IfElse { consequent: differ, alternative: same });
                } else {
                    copy(g, b);
                }
                b.local_get(cursor).local_get(block).binop(B::I64Add).local_set(cursor);
            });
        }
        b.local_get(out).local_set(res);
    }

    fn rearrange(
        &mut self,
        b: &mut InstrSeqBuilder,
        arr: Var,
        perm: &[usize],
        pat: &[LocalId],
        span: Span,
    ) {
        let Some(&res) = pat.first() else { return };
        let elem = self.var_type(arr).elem();
        let base = self.local(arr);
        let shape = self.shape(arr);
        if perm.len() != shape.len() || perm.iter().any(|&p| p >= shape.len()) {
            self.errors.push(Diagnostic::new(
                Phase::Lower,
                span,
                "internal error: bad permutation",
            ));
            return;
        }
        let dims = self.dim_locals(b, &shape);
        let st = self.strides(b, &dims);
        let n = self.product(b, &dims);
        let out = self.alloc_elems(b, n, elem);
        // Walk the result in order: result dim i steps through input dim perm[i].
        let ixs: Vec<Ix> = perm
            .iter()
            .map(|&p| {
                let zero = self.tmp(ValType::I64);
                let one = self.tmp(ValType::I64);
                b.i64_const(0).local_set(zero).i64_const(1).local_set(one);
                Ix::Slice { start: zero, len: dims[p], stride: one }
            })
            .collect();
        let pst: Vec<LocalId> = perm.iter().map(|&p| st[p]).collect();
        let zero = self.tmp(ValType::I64);
        b.i64_const(0).local_set(zero);
        let cursor = self.tmp(ValType::I64);
        b.i64_const(0).local_set(cursor);
        self.walk(b, &ixs, &pst, zero, &mut |g, b, off| {
            g.elem_addr(b, out, cursor, elem);
            g.elem_addr(b, base, off, elem);
            g.load(b, elem);
            g.store(b, elem);
            b.local_get(cursor).i64_const(1).binop(B::I64Add).local_set(cursor);
        });
        b.local_get(out).local_set(res);
    }

    fn concat(
        &mut self,
        b: &mut InstrSeqBuilder,
        axis: usize,
        arrs: &[Var],
        len: &Dim,
        pat: &[LocalId],
        span: Span,
    ) {
        let (Some(&res), Some(&first)) = (pat.first(), arrs.first()) else { return };
        let elem = self.var_type(first).elem();
        let fshape = self.shape(first);
        if axis >= fshape.len() {
            self.errors.push(Diagnostic::new(
                Phase::Lower,
                span,
                "internal error: bad concat axis",
            ));
            return;
        }
        let fdims = self.dim_locals(b, &fshape);
        let axis_l = self.tmp(ValType::I64);
        b.i64_const(axis as i64).local_set(axis_l);
        let total = self.tmp(ValType::I64);
        b.i64_const(0).local_set(total);
        let mut adims = Vec::new();
        for a in arrs {
            let sh = self.shape(*a);
            let ds = self.dim_locals(b, &sh);
            b.i32_const(1);
            for (k, (x, y)) in ds.iter().zip(&fdims).enumerate() {
                if k != axis {
                    b.local_get(*x).local_get(*y).binop(B::I64Eq).binop(B::I32And);
                }
            }
            let mut msg = "size mismatch: cannot concatenate arrays of shapes ".to_string();
            let mut args = Vec::new();
            Self::shape_msg(&fdims, &mut msg, &mut args);
            msg.push_str(" and ");
            Self::shape_msg(&ds, &mut msg, &mut args);
            msg.push_str(" along dimension {}");
            args.push((axis_l, PrimType::I64));
            self.check(b, span, msg, args);
            if let Some(d) = ds.get(axis) {
                b.local_get(total).local_get(*d).binop(B::I64Add).local_set(total);
            }
            adims.push(ds);
        }
        let len_l = self.dim_locals(b, &[*len])[0];
        b.local_get(total).local_get(len_l).binop(B::I64Eq);
        self.check(
            b,
            span,
            "size mismatch: concatenation has length {} along dimension {}, but its type says {}"
                .into(),
            vec![(total, PrimType::I64), (axis_l, PrimType::I64), (len_l, PrimType::I64)],
        );
        let outer = self.product(b, &fdims[..axis]);
        let inner = self.product(b, &fdims[axis + 1..]);
        let n = self.product(b, &[outer, total, inner]);
        let out = self.alloc_elems(b, n, elem);
        let cursor = self.tmp(ValType::I64);
        b.i64_const(0).local_set(cursor);
        let parts: Vec<(LocalId, LocalId)> = arrs
            .iter()
            .zip(&adims)
            .map(|(a, ds)| {
                let chunk = self.product(b, &[ds[axis], inner]);
                (self.local(*a), chunk)
            })
            .collect();
        self.for_range(b, outer, |g, b, o| {
            for &(src, chunk) in &parts {
                let off = g.tmp(ValType::I64);
                b.local_get(o).local_get(chunk).binop(B::I64Mul).local_set(off);
                g.copy_elems(
                    b,
                    |b| g.elem_addr(b, out, cursor, elem),
                    |b| g.elem_addr(b, src, off, elem),
                    chunk,
                    elem,
                );
                b.local_get(cursor).local_get(chunk).binop(B::I64Add).local_set(cursor);
            }
        });
        b.local_get(out).local_set(res);
    }

    fn array_lit(
        &mut self,
        b: &mut InstrSeqBuilder,
        elems: &[Atom],
        elem_ty: &Type,
        pat: &[LocalId],
        span: Span,
    ) {
        let Some(&res) = pat.first() else { return };
        let t = elem_ty.elem();
        let n = self.tmp(ValType::I64);
        b.i64_const(elems.len() as i64).local_set(n);
        match elem_ty {
            Type::Prim(_) => {
                let out = self.alloc_elems(b, n, t);
                for (k, a) in elems.iter().enumerate() {
                    b.local_get(out).i32_const((k as u32 * elem_size(t)) as i32).binop(B::I32Add);
                    self.push_atom(b, a);
                    self.store(b, t);
                }
                b.local_get(out).local_set(res);
            }
            Type::Array { shape, .. } => {
                let want = self.dim_locals(b, shape);
                let m = self.product(b, &want);
                let total = self.product(b, &[n, m]);
                let out = self.alloc_elems(b, total, t);
                let cursor = self.tmp(ValType::I64);
                b.i64_const(0).local_set(cursor);
                let mut first: Option<Vec<LocalId>> = None;
                for a in elems {
                    let Atom::Var(v) = a else { continue };
                    let sh = self.shape(*v);
                    let ds = self.dim_locals(b, &sh);
                    let reference = first.clone().unwrap_or_else(|| want.clone());
                    b.i32_const(1);
                    for (x, y) in ds.iter().zip(&reference) {
                        b.local_get(*x).local_get(*y).binop(B::I64Eq).binop(B::I32And);
                    }
                    let mut msg = "size mismatch: array literal elements have shapes ".to_string();
                    let mut args = Vec::new();
                    Self::shape_msg(&reference, &mut msg, &mut args);
                    msg.push_str(" and ");
                    Self::shape_msg(&ds, &mut msg, &mut args);
                    self.check(b, span, msg, args);
                    first.get_or_insert(ds);
                    let src = self.local(*v);
                    self.copy_elems(
                        b,
                        |b| self.elem_addr(b, out, cursor, t),
                        |b| {
                            b.local_get(src);
                        },
                        m,
                        t,
                    );
                    b.local_get(cursor).local_get(m).binop(B::I64Add).local_set(cursor);
                }
                b.local_get(out).local_set(res);
            }
        }
    }

    // ---- loops and SOACs ----

    fn do_loop(
        &mut self,
        b: &mut InstrSeqBuilder,
        params: &[(Param, Atom)],
        form: &LoopForm,
        body: &Body,
        pat: &[LocalId],
        span: Span,
    ) {
        let ls: Vec<LocalId> = params.iter().map(|(p, _)| self.bind(p, span)).collect();
        let inits: Vec<Atom> = params.iter().map(|(_, a)| *a).collect();
        self.assign(b, &ls, &inits);
        let arena = self.arena;
        let outer = arena.mark(&mut self.module, b);
        match form {
            LoopForm::For { i, it, bound } => {
                let t = PrimType::Int(*it);
                let il = self.bind(&Param { var: *i, ty: Type::Prim(t) }, span);
                super::scalar::push_const(b, crate::prim::PrimValue::zero(t));
                b.local_set(il);
                let bound = *bound;
                b.block(None, |exit| {
                    let exit_id = exit.id();
                    exit.loop_(None, |lp| {
                        let lp_id = lp.id();
                        lp.local_get(il);
                        self.push_atom(lp, &bound);
                        super::scalar::cmp_int(lp, crate::ir::CmpOp::Ge, *it);
                        lp.br_if(exit_id);
                        let iter = arena.mark(&mut self.module, lp);
                        self.body(lp, body);
                        self.keep_loop_results(lp, &body.result, outer, iter);
                        self.assign(lp, &ls, &body.result);
                        lp.local_get(il);
                        super::scalar::push_const(lp, crate::prim::PrimValue::int(*it, 1));
                        super::scalar::int_arith(lp, B::I32Add, t);
                        lp.local_set(il).br(lp_id);
                    });
                });
            }
            LoopForm::While(c) => {
                let cl = self.local(*c);
                b.block(None, |exit| {
                    let exit_id = exit.id();
                    exit.loop_(None, |lp| {
                        let lp_id = lp.id();
                        lp.local_get(cl).unop(U::I32Eqz).br_if(exit_id);
                        let iter = arena.mark(&mut self.module, lp);
                        self.body(lp, body);
                        self.keep_loop_results(lp, &body.result, outer, iter);
                        self.assign(lp, &ls, &body.result);
                        lp.br(lp_id);
                    });
                });
            }
        }
        for (p, l) in pat.iter().zip(&ls) {
            b.local_get(*l).local_set(*p);
        }
    }

    /// The end of a loop iteration: free what the loop's iterations allocated, except the
    /// arrays this one returns. Those it allocated are copied above everything, then moved down
    /// as one block to the loop's mark (`outer`), or to the iteration's (`iter`) when a result
    /// still lives in what earlier iterations allocated (an array updated in place stays where it
    /// is, at no cost). A loop's memory is then that of one iteration, not of all of them. If the
    /// thread took a new chunk meanwhile, nothing is moved or freed.
    fn keep_loop_results(
        &mut self,
        b: &mut InstrSeqBuilder,
        results: &[Atom],
        outer: super::arena::Mark,
        iter: super::arena::Mark,
    ) {
        let arena = self.arena;
        let mut arrays: Vec<Var> = Vec::new();
        for r in results {
            if let Atom::Var(v) = r {
                if self.var_type(*v).rank() > 0 && !arrays.contains(v) {
                    arrays.push(*v);
                }
            }
        }
        let same_chunk = |b: &mut InstrSeqBuilder| {
            arena.push_base(b);
            b.local_get(outer.base()).binop(B::I32Eq);
        };
        // For each array: its address, its size in bytes and rounded up to 16, whether it moves.
        let info: Vec<(LocalId, LocalId, LocalId, LocalId)> = arrays
            .iter()
            .map(|v| {
                let elem = self.var_type(*v).elem();
                let sh = self.shape(*v);
                let ds = self.dim_locals(b, &sh);
                let n = self.product(b, &ds);
                let (bytes, room) = (self.tmp(ValType::I32), self.tmp(ValType::I32));
                b.local_get(n);
                self.elems_to_bytes(b, elem);
                b.local_tee(bytes).i32_const(15).binop(B::I32Add);
                b.i32_const(!15).binop(B::I32And).local_set(room);
                (self.local(*v), bytes, room, self.tmp(ValType::I32))
            })
            .collect();
        let (top, to, total, block, off) = (
            self.tmp(ValType::I32),
            self.tmp(ValType::I32),
            self.tmp(ValType::I32),
            self.tmp(ValType::I32),
            self.tmp(ValType::I32),
        );
        let within = |b: &mut InstrSeqBuilder, addr: LocalId, lo: LocalId, hi: LocalId| {
            b.local_get(addr).local_get(lo).binop(B::I32GeU);
            b.local_get(addr).local_get(hi).binop(B::I32LtU).binop(B::I32And);
        };
        same_chunk(b);
        b.if_else(
            None,
            |b| {
                arena.push_hp(b);
                b.local_set(top);
                // Down to the loop's mark, unless a result lies in earlier iterations' space.
                b.local_get(outer.hp()).local_set(to);
                for (addr, ..) in &info {
                    within(b, *addr, outer.hp(), iter.hp());
                    b.if_else(
                        None,
                        |b| {
                            b.local_get(iter.hp()).local_set(to);
                        },
                        |_| {},
                    );
                }
                b.i32_const(0).local_set(total);
                for (addr, _, room, moves) in &info {
                    within(b, *addr, to, top);
                    b.local_tee(*moves).if_else(
                        None,
                        |b| {
                            b.local_get(total).local_get(*room).binop(B::I32Add).local_set(total);
                        },
                        |_| {},
                    );
                }
                b.local_get(total).i32_const(0).binop(B::I32Eq).if_else(
                    None,
                    |b| {
                        b.local_get(to);
                        arena.set_hp(b);
                    },
                    |b| {
                        b.local_get(total).unop(U::I64ExtendUI32);
                        self.alloc_bytes(b);
                        b.local_set(block);
                        same_chunk(b);
                        b.if_else(
                            None,
                            |b| {
                                b.i32_const(0).local_set(off);
                                for (addr, bytes, room, moves) in &info {
                                    b.local_get(*moves).if_else(
                                        None,
                                        |b| {
                                            b.local_get(block).local_get(off).binop(B::I32Add);
                                            b.local_get(*addr).local_get(*bytes);
                                            b.memory_copy(self.mem, self.mem);
                                            b.local_get(to).local_get(off).binop(B::I32Add);
                                            b.local_set(*addr);
                                            b.local_get(off).local_get(*room).binop(B::I32Add);
                                            b.local_set(off);
                                        },
                                        |_| {},
                                    );
                                }
                                b.local_get(to).local_get(block).local_get(total);
                                b.memory_copy(self.mem, self.mem);
                                b.local_get(to).local_get(total).binop(B::I32Add);
                                arena.set_hp(b);
                            },
                            |_| {},
                        );
                    },
                );
            },
            |_| {},
        );
    }

    /// Check that each array has outer size `w`, as the interpreter does.
    pub(super) fn check_width(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: LocalId,
        w_atom: &Atom,
        arrs: &[Var],
        what: &str,
        span: Span,
    ) {
        b.local_get(w).i64_const(0).binop(B::I64GeS);
        self.check(b, span, "negative size: {} elements".into(), vec![(w, PrimType::I64)]);
        for a in arrs {
            let sh = self.shape(*a);
            let same = match (sh.first(), w_atom) {
                (Some(Dim::Var(x)), Atom::Var(y)) => x == y,
                (Some(Dim::Const(x)), Atom::Const(c)) => c.as_i64() == Some(*x),
                _ => false,
            };
            if same {
                continue;
            }
            let ds = self.dim_locals(b, &sh);
            let Some(&outer) = ds.first() else { continue };
            b.local_get(outer).local_get(w).binop(B::I64Eq);
            let mut msg = format!(
                "size mismatch: `{what}` of width {{}} applied to `{}` of shape ",
                self.prog.name(*a).replace('{', "(").replace('}', ")")
            );
            let mut args = vec![(w, PrimType::I64)];
            Self::shape_msg(&ds, &mut msg, &mut args);
            self.check(b, span, msg, args);
        }
    }

    /// Bind `p` to row `j` of array `arr`: a scalar load, or a pointer to the row.
    pub(super) fn bind_row(&mut self, b: &mut InstrSeqBuilder, p: LocalId, arr: Var, j: LocalId) {
        let t = self.var_type(arr);
        let base = self.local(arr);
        let elem = t.elem();
        if t.rank() <= 1 {
            self.elem_addr(b, base, j, elem);
            self.load(b, elem);
            b.local_set(p);
        } else {
            let sh = self.shape(arr);
            let row = self.dim_locals(b, &sh[1..]);
            let m = self.product(b, &row);
            let off = self.tmp(ValType::I64);
            b.local_get(j).local_get(m).binop(B::I64Mul).local_set(off);
            self.elem_addr(b, base, off, elem);
            b.local_set(p);
        }
    }

    /// Bind each of `ps` to row `j` of the array beside it in `arrs` (a map's iteration `j`).
    pub(super) fn bind_rows(
        &mut self,
        b: &mut InstrSeqBuilder,
        ps: &[LocalId],
        arrs: &[Var],
        j: LocalId,
    ) {
        for (p, a) in ps.iter().zip(arrs) {
            self.bind_row(b, *p, *a, j);
        }
    }

    /// Store `val` (a scalar or an array of `row` elements) as row `j` of `out`.
    pub(super) fn store_row(
        &mut self,
        b: &mut InstrSeqBuilder,
        out: LocalId,
        j: LocalId,
        val: &Atom,
        elem: PrimType,
        row: Option<LocalId>,
    ) {
        match row {
            None => {
                self.elem_addr(b, out, j, elem);
                if self.adding.contains(&out) {
                    self.elem_addr(b, out, j, elem);
                    self.load(b, elem);
                    self.push_atom(b, val);
                    b.binop(float_add(elem));
                } else {
                    self.push_atom(b, val);
                }
                self.store(b, elem);
            }
            Some(m) => {
                let Atom::Var(v) = val else { return };
                let src = self.local(*v);
                let off = self.tmp(ValType::I64);
                b.local_get(j).local_get(m).binop(B::I64Mul).local_set(off);
                self.copy_elems(
                    b,
                    |b| self.elem_addr(b, out, off, elem),
                    |b| {
                        b.local_get(src);
                    },
                    m,
                    elem,
                );
            }
        }
    }

    /// Allocate each pattern array `[w]...` of a SOAC; return (pointer, element count per row or
    /// `None` for scalar rows).
    pub(super) fn soac_outputs(
        &mut self,
        b: &mut InstrSeqBuilder,
        params: &[Param],
        pat: &[LocalId],
    ) -> Vec<(LocalId, Option<LocalId>, PrimType)> {
        params
            .iter()
            .zip(pat)
            .map(|(p, l)| {
                let elem = p.ty.elem();
                let shape = match &p.ty {
                    Type::Array { shape, .. } => shape.clone(),
                    Type::Prim(_) => Vec::new(),
                };
                let ds = self.dim_locals(b, &shape);
                let n = self.product(b, &ds);
                let out = match self.dests.remove(&p.var) {
                    Some(at) => {
                        self.placed.insert(p.var);
                        if self.add_into.remove(&p.var) {
                            self.adding.insert(at);
                        }
                        at
                    }
                    None => match self.slots.get(&p.var).cloned() {
                        Some(slot) => self.slot_addr(b, &slot, n, elem),
                        None => self.alloc_elems(b, n, elem),
                    },
                };
                b.local_get(out).local_set(*l);
                let row = (ds.len() > 1).then(|| self.product(b, &ds[1..]));
                (out, row, elem)
            })
            .collect()
    }

    /// Where a map result with a slot (`slots`) is computed: the slot's address if its indices
    /// are in bounds, else a fresh block of `n` elements (the update then fails with its
    /// message, after the map, as without the slot).
    fn slot_addr(
        &mut self,
        b: &mut InstrSeqBuilder,
        slot: &Slot,
        n: LocalId,
        elem: PrimType,
    ) -> LocalId {
        let base = self.local(slot.arr);
        let shape = self.shape(slot.arr);
        let dims = self.dim_locals(b, &shape);
        let (off, ok) = (self.tmp(ValType::I64), self.tmp(ValType::I32));
        b.i64_const(0).local_set(off).i32_const(1).local_set(ok);
        for (k, d) in slot.idx.iter().zip(&dims) {
            let k = self.i64_local(b, k);
            // 0 <= k < d, as one unsigned comparison.
            b.local_get(k).local_get(*d).binop(B::I64LtU).local_get(ok).binop(B::I32And);
            b.local_set(ok);
            b.local_get(off).local_get(*d).binop(B::I64Mul).local_get(k).binop(B::I64Add);
            b.local_set(off);
        }
        b.local_get(off).local_get(n).binop(B::I64Mul).local_set(off);
        let at = self.tmp(ValType::I32);
        b.local_get(ok);
        let inside = {
            let mut t = b.dangling_instr_seq(None);
            self.elem_addr(&mut t, base, off, elem);
            t.local_set(at);
            t.id()
        };
        let outside = {
            let mut t = b.dangling_instr_seq(None);
            let fresh = self.alloc_elems(&mut t, n, elem);
            t.local_get(fresh).local_set(at);
            t.id()
        };
        b.instr(walrus::ir::IfElse { consequent: inside, alternative: outside });
        at
    }

    #[allow(clippy::too_many_arguments)]
    fn map(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: &Atom,
        lam: &Lambda,
        arrs: &[Var],
        pat_params: &[Param],
        pat: &[LocalId],
        span: Span,
        fuse: Option<(ir::BinOp, &Atom)>,
    ) {
        let wl = self.i64_local(b, w);
        self.check_width(b, wl, w, arrs, "map", span);
        let outs = self.soac_outputs(b, pat_params, pat);
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        if self.opts.threads && !self.in_par && fuse.is_none() && super::par::heavy(&lam.body) {
            return self.par_map(b, wl, lam, arrs, &ps, &outs);
        }
        let mut start = None;
        let mut fused = None;
        if outs.iter().all(|o| o.1.is_none()) {
            let ptrs: Vec<LocalId> = outs.iter().map(|o| o.0).collect();
            let blocked = match (ptrs.as_slice(), ps.as_slice()) {
                ([out], [param]) if fuse.is_none() && !self.adding.contains(out) => {
                    self.simd_blocked_map(b, wl, lam, arrs, *out, *param, span)
                }
                _ => None,
            };
            if blocked.is_some() {
                start = blocked;
            } else if let Some((nvec, acc)) = self.simd_map(b, wl, lam, arrs, &ptrs, fuse) {
                start = Some(nvec);
                if let (Some(acc), Some(p)) = (acc, pat_params.first()) {
                    fused = Some((p.var, nvec, acc));
                }
            }
        }
        // Each iteration's results are copied into the outputs, so whatever its body allocated
        // is dead afterwards: the arena goes back to where the iteration started.
        self.for_step(b, start, wl, 1, |g, b, j| g.map_iteration(b, j, lam, arrs, &ps, &outs));
        // Set after the scalar tail, whose body generation clears it.
        self.pending = fused;
    }

    /// One iteration `j` of a map: bind the rows, run the body, store its results.
    pub(super) fn map_iteration(
        &mut self,
        b: &mut InstrSeqBuilder,
        j: LocalId,
        lam: &Lambda,
        arrs: &[Var],
        ps: &[LocalId],
        outs: &[(LocalId, Option<LocalId>, PrimType)],
    ) {
        let arena = self.arena;
        let mark = arena.mark(&mut self.module, b);
        self.bind_rows(b, ps, arrs, j);
        // An array result computed by a map of the body is written straight into its row.
        for ((out, row, elem), r) in outs.iter().zip(&lam.body.result) {
            let (Some(m), Atom::Var(v)) = (row, r) else { continue };
            let by_map = lam
                .body
                .stms
                .iter()
                .any(|s| matches!(s.exp, Exp::Map { .. }) && s.pat.iter().any(|p| p.var == *v));
            if by_map && !self.dests.contains_key(v) {
                let off = self.tmp(ValType::I64);
                b.local_get(j).local_get(*m).binop(B::I64Mul).local_set(off);
                let at = self.tmp(ValType::I32);
                self.elem_addr(b, *out, off, *elem);
                b.local_set(at);
                self.dests.insert(*v, at);
            }
        }
        self.body(b, &lam.body);
        for ((out, row, elem), r) in outs.iter().zip(&lam.body.result) {
            // A destination the body did not take (its map was compiled another way).
            if let Atom::Var(v) = r {
                self.dests.remove(v);
            }
            if matches!(r, Atom::Var(v) if self.placed.remove(v)) {
                continue;
            }
            self.store_row(b, *out, j, r, *elem, *row);
        }
        arena.restore(b, mark);
    }

    /// `let r = reduce op ne (map f arrs)` (the statement `red`) when nothing else reads the
    /// mapped array: the vector loop folds `f`'s lanes into accumulators, the scalar tail folds
    /// each `f x` into `r`, and the array is never allocated.
    fn redomap(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: &Atom,
        lam: &Lambda,
        arrs: &[Var],
        red: &ir::Stm,
        span: Span,
    ) {
        let Exp::Reduce { lam: rlam, neutral, .. } = &red.exp else {
            return self.stm(b, red);
        };
        let acc = self.bind(&red.pat[0], red.span);
        let wl = self.i64_local(b, w);
        self.check_width(b, wl, w, arrs, "map", span);
        self.assign(b, &[acc], neutral);
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        let rps: Vec<LocalId> = rlam.params.iter().map(|p| self.bind(p, red.span)).collect();
        if let Type::Prim(elem) = red.pat[0].ty {
            if self.opts.threads && !self.in_par && super::par::heavy(&lam.body) {
                let f = Fold { lam, arrs, ps: &ps, op: rlam, rps: &rps, acc, elem };
                return self.par_redomap(b, wl, &f);
            }
        }
        let mut start = None;
        if let Some((op, l)) = super::simd::simple_reduce(rlam) {
            if let Some((nvec, Some(vacc))) =
                self.simd_map(b, wl, lam, arrs, &[], Some((op, &neutral[0])))
            {
                self.hfold_lanes(b, vacc, acc, super::simd::Fold::new(op, l, &neutral[0]));
                start = Some(nvec);
            }
        }
        let arena = self.arena;
        self.for_step(b, start, wl, 1, |g, b, j| {
            let mark = arena.mark(&mut g.module, b);
            g.bind_rows(b, &ps, arrs, j);
            g.body(b, &lam.body);
            b.local_get(acc).local_set(rps[0]);
            g.push_atom(b, &lam.body.result[0]);
            b.local_set(rps[1]);
            g.body(b, &rlam.body);
            g.assign(b, &[acc], &rlam.body.result);
            arena.restore(b, mark);
        });
    }

    /// The parallel form of [`Gen::redomap`], for a map worth running in parallel: its rows are
    /// cut into [`SUM_CHUNKS`] chunks, the threads fold each chunk into a partial result of its
    /// own, and the partial results of the chunks with rows are folded in order afterwards. The
    /// chunks do not depend on the number of threads, and neither does the result.
    fn par_redomap(&mut self, b: &mut InstrSeqBuilder, wl: LocalId, f: &Fold) {
        let chunks = self.tmp(ValType::I64);
        b.i64_const(SUM_CHUNKS).local_set(chunks);
        let parts = self.alloc_elems(b, chunks, f.elem);
        let arena = self.arena;
        // One step of the fold: `acc <- acc op (the result of f's body)`, then the arena back.
        let step = |g: &mut Self,
                    b: &mut InstrSeqBuilder,
                    acc: LocalId,
                    x: &dyn Fn(&mut Self, &mut InstrSeqBuilder)| {
            b.local_get(acc).local_set(f.rps[0]);
            x(g, b);
            b.local_set(f.rps[1]);
            g.body(b, &f.op.body);
            g.assign(b, &[acc], &f.op.body.result);
        };
        self.par_loop(b, chunks, |g, b, c| {
            let (lo, hi) = g.chunk_bounds(b, c, wl, chunks);
            let acc = g.tmp(val_type(f.elem));
            b.local_get(f.acc).local_set(acc);
            g.for_step(b, Some(lo), hi, 1, |g, b, j| {
                let mark = arena.mark(&mut g.module, b);
                g.bind_rows(b, f.ps, f.arrs, j);
                g.body(b, &f.lam.body);
                step(g, b, acc, &|g, b| g.push_atom(b, &f.lam.body.result[0]));
                arena.restore(b, mark);
            });
            g.elem_addr(b, parts, c, f.elem);
            b.local_get(acc);
            g.store(b, f.elem);
        });
        // `acc` holds the neutral element; chunks without rows (fewer rows than chunks) are
        // skipped.
        self.for_step(b, None, chunks, 1, |g, b, c| {
            let (lo, hi) = g.chunk_bounds(b, c, wl, chunks);
            b.local_get(lo).local_get(hi).binop(B::I64LtS);
            let nonempty = {
                let mut t = b.dangling_instr_seq(None);
                step(g, &mut t, f.acc, &|g, b| {
                    g.elem_addr(b, parts, c, f.elem);
                    g.load(b, f.elem);
                });
                t.id()
            };
            let empty = b.dangling_instr_seq(None).id();
            b.instr(walrus::ir::IfElse { consequent: nonempty, alternative: empty });
        });
    }

    /// The rows `[lo, hi)` of chunk `c` of `chunks` over `w` rows: `[c * w / chunks, (c + 1) *
    /// w / chunks)`.
    fn chunk_bounds(
        &mut self,
        b: &mut InstrSeqBuilder,
        c: LocalId,
        w: LocalId,
        chunks: LocalId,
    ) -> (LocalId, LocalId) {
        let (lo, hi) = (self.tmp(ValType::I64), self.tmp(ValType::I64));
        b.local_get(c).local_get(w).binop(B::I64Mul).local_get(chunks).binop(B::I64DivS);
        b.local_set(lo);
        b.local_get(c).i64_const(1).binop(B::I64Add).local_get(w).binop(B::I64Mul);
        b.local_get(chunks).binop(B::I64DivS).local_set(hi);
        (lo, hi)
    }

    /// The map `s` whose results `sums` (result index, index of the reducing statement in
    /// `body`) are each read only by an array `reduce` of the same width: each of their rows is
    /// folded into a sum as soon as it is computed, and the arena goes back after every
    /// iteration, so the [w]-row arrays are never stored (a gradient's per-sample adjoints of
    /// a weight matrix, summed over the samples, need one matrix, not one per sample). The other
    /// results are stored as by `map`. With threads, a map worth running in parallel keeps a sum
    /// per chunk of [`SUM_CHUNKS`] rows' ranges, the chunks run in parallel, and their sums are
    /// folded in order afterwards.
    fn map_summed(
        &mut self,
        b: &mut InstrSeqBuilder,
        s: &ir::Stm,
        sums: &[(usize, usize)],
        body: &Body,
    ) {
        let Exp::Map { w, lam, arrs } = &s.exp else { return };
        let span = s.span;
        let pat: Vec<LocalId> = s.pat.iter().map(|p| self.bind(p, span)).collect();
        let wl = self.i64_local(b, w);
        self.check_width(b, wl, w, arrs, "map", span);
        let stored: Vec<usize> =
            (0..s.pat.len()).filter(|k| !sums.iter().any(|(i, _)| i == k)).collect();
        let stored_params: Vec<Param> = stored.iter().map(|&k| s.pat[k].clone()).collect();
        let stored_pat: Vec<LocalId> = stored.iter().map(|&k| pat[k]).collect();
        let outs = self.soac_outputs(b, &stored_params, &stored_pat);
        let parallel = self.opts.threads && !self.in_par && super::par::heavy(&lam.body);
        let chunks = self.tmp(ValType::I64);
        b.i64_const(if parallel { SUM_CHUNKS } else { 1 }).local_set(chunks);
        // Each sum: the chunks' sums (one after another), the result, its element count.
        let mut accs = Vec::new();
        for &(k, r) in sums {
            // `summed_results` chose arrays of rank 2 or more read by array reductions.
            let (Type::Array { elem, shape }, Exp::Reduce { lam: op, .. }) =
                (&s.pat[k].ty, &body.stms[r].exp)
            else {
                self.internal(span, "a summed map");
                return;
            };
            let ds = self.dim_locals(b, &shape[1..]);
            let n = self.product(b, &ds);
            let total = self.tmp(ValType::I64);
            b.local_get(n).local_get(chunks).binop(B::I64Mul).local_set(total);
            let parts = self.alloc_elems(b, total, *elem);
            let acc = if parallel { self.alloc_elems(b, n, *elem) } else { parts };
            self.summed.insert(body.stms[r].pat[0].var, (acc, n, *elem));
            accs.push((k, parts, acc, n, *elem, op));
        }
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        let arena = self.arena;
        let bounds =
            |g: &mut Self, b: &mut InstrSeqBuilder, c: LocalId| g.chunk_bounds(b, c, wl, chunks);
        // Rows an inner map of the body computes, summed by `+`, are added into the chunk's
        // sum as they are computed (the sum starts at zero) instead of being stored and then
        // added.
        let added: Vec<bool> = accs
            .iter()
            .map(|&(k, _, _, _, elem, op)| {
                let adds = elementwise(op).is_some_and(|f| {
                    matches!((f.body.stms.as_slice(), elem),
                        ([s], PrimType::Float(FloatType::F32 | FloatType::F64))
                        if matches!(s.exp, Exp::BinOp(ir::BinOp::Add, ..)))
                });
                // The row is only the result: its destination holds the sum, not the row.
                let by_light_map = match lam.body.result[k] {
                    Atom::Var(row) if uses_after(&lam.body, 0, row) == 1 => lam.body.stms.iter().any(|s| {
                        s.pat.iter().any(|p| p.var == row && p.ty.rank() == 1)
                            && matches!(&s.exp, Exp::Map { lam, .. } if !super::par::heavy(&lam.body))
                    }),
                    _ => false,
                };
                adds && by_light_map
            })
            .collect();
        let never_first = self.tmp(ValType::I32);
        b.i32_const(0).local_set(never_first);
        let chunk = |g: &mut Self, b: &mut InstrSeqBuilder, c: LocalId| {
            let (lo, hi) = bounds(g, b, c);
            let one = g.tmp(ValType::I64);
            b.i64_const(1).local_set(one);
            let mut adds_at = Vec::new();
            for (&(_, parts, _, n, elem, _), _) in accs.iter().zip(&added).filter(|(_, a)| **a) {
                let at = g.tmp(ValType::I64);
                b.local_get(c).local_get(n).binop(B::I64Mul).local_set(at);
                let sum = g.tmp(ValType::I32);
                g.elem_addr(b, parts, at, elem);
                b.local_set(sum);
                g.fill(b, sum, &Atom::Const(crate::prim::PrimValue::zero(elem)), n, one, n, elem);
                adds_at.push(sum);
            }
            g.for_step(b, Some(lo), hi, 1, |g, b, j| {
                let mark = arena.mark(&mut g.module, b);
                g.bind_rows(b, &ps, arrs, j);
                let mut adds_at = adds_at.iter();
                for (&(k, ..), _) in accs.iter().zip(&added).filter(|(_, a)| **a) {
                    if let (Atom::Var(row), Some(sum)) = (lam.body.result[k], adds_at.next()) {
                        g.dests.insert(row, *sum);
                        g.add_into.insert(row);
                    }
                }
                g.body(b, &lam.body);
                g.adding.clear();
                for ((out, row, elem), &k) in outs.iter().zip(&stored) {
                    g.store_row(b, *out, j, &lam.body.result[k], *elem, *row);
                }
                let first = g.tmp(ValType::I32);
                b.local_get(j).local_get(lo).binop(B::I64Eq).local_set(first);
                for (&(k, parts, _, n, elem, op), &added) in accs.iter().zip(&added) {
                    // An array result is a variable.
                    let Atom::Var(row) = lam.body.result[k] else { continue };
                    g.add_into.remove(&row);
                    if g.placed.remove(&row) {
                        continue;
                    }
                    g.dests.remove(&row);
                    let row = g.local(row);
                    let at = g.tmp(ValType::I64);
                    b.local_get(c).local_get(n).binop(B::I64Mul).local_set(at);
                    let sum = g.tmp(ValType::I32);
                    g.elem_addr(b, parts, at, elem);
                    b.local_set(sum);
                    // A sum that started at zero is never the first row's copy.
                    let first = if added { never_first } else { first };
                    g.sum_row(b, op, [sum, sum, row], n, elem, first, span);
                }
                arena.restore(b, mark);
            });
        };
        if parallel {
            self.par_loop(b, chunks, chunk);
            // The chunks' sums in order; chunks without rows (fewer rows than chunks) are
            // skipped.
            let have = self.tmp(ValType::I32);
            b.i32_const(0).local_set(have);
            self.for_step(b, None, chunks, 1, |g, b, c| {
                let (lo, hi) = bounds(g, b, c);
                b.local_get(lo).local_get(hi).binop(B::I64LtS);
                let nonempty = {
                    let mut t = b.dangling_instr_seq(None);
                    let first = g.tmp(ValType::I32);
                    t.local_get(have).unop(U::I32Eqz).local_set(first);
                    for &(_, parts, acc, n, elem, op) in &accs {
                        let at = g.tmp(ValType::I64);
                        t.local_get(c).local_get(n).binop(B::I64Mul).local_set(at);
                        let part = g.tmp(ValType::I32);
                        g.elem_addr(&mut t, parts, at, elem);
                        t.local_set(part);
                        g.sum_row(&mut t, op, [acc, acc, part], n, elem, first, span);
                    }
                    t.i32_const(1).local_set(have);
                    t.id()
                };
                let empty = b.dangling_instr_seq(None).id();
                b.instr(walrus::ir::IfElse { consequent: nonempty, alternative: empty });
            });
        } else {
            let zero = self.tmp(ValType::I64);
            b.i64_const(0).local_set(zero);
            chunk(self, b, zero);
        }
    }

    /// `[sum, left, row]` (addresses of arrays of `n` elements): `sum <- row` if `first` (an
    /// i32), else `sum <- op left row`.
    #[allow(clippy::too_many_arguments)]
    fn sum_row(
        &mut self,
        b: &mut InstrSeqBuilder,
        op: &Lambda,
        [sum, left, row]: [LocalId; 3],
        n: LocalId,
        elem: PrimType,
        first: LocalId,
        span: Span,
    ) {
        b.local_get(first);
        let copy = {
            let mut t = b.dangling_instr_seq(None);
            self.copy_elems(
                &mut t,
                |t| {
                    t.local_get(sum);
                },
                |t| {
                    t.local_get(row);
                },
                n,
                elem,
            );
            t.id()
        };
        let fold = {
            let mut e = b.dangling_instr_seq(None);
            match elementwise(op) {
                // `map2 (... (map2 f))`: each element of the sum updated in place.
                Some(f) => {
                    let (x, y) = (self.bind(&f.params[0], span), self.bind(&f.params[1], span));
                    let r = match f.body.result[0] {
                        Atom::Var(v) => v,
                        Atom::Const(_) => f.params[0].var,
                    };
                    let start = self.simd_zip(&mut e, f, [sum, left, row], n, elem);
                    self.for_step(&mut e, start, n, 1, |g, e, i| {
                        g.elem_addr(e, left, i, elem);
                        g.load(e, elem);
                        e.local_set(x);
                        g.elem_addr(e, row, i, elem);
                        g.load(e, elem);
                        e.local_set(y);
                        g.body(e, &f.body);
                        g.elem_addr(e, sum, i, elem);
                        let r = g.local(r);
                        e.local_get(r);
                        g.store(e, elem);
                    });
                }
                None => {
                    let pa = self.bind(&op.params[0], span);
                    let pb = self.bind(&op.params[1], span);
                    e.local_get(left).local_set(pa);
                    e.local_get(row).local_set(pb);
                    self.body(&mut e, &op.body);
                    let res = match op.body.result[0] {
                        Atom::Var(v) => self.local(v),
                        Atom::Const(_) => pa,
                    };
                    self.copy_elems(
                        &mut e,
                        |e| {
                            e.local_get(sum);
                        },
                        |e| {
                            e.local_get(res);
                        },
                        n,
                        elem,
                    );
                }
            }
            e.id()
        };
        b.instr(walrus::ir::IfElse { consequent: copy, alternative: fold });
    }

    /// `reduce` (no `scan_pat`) or `scan` (an output array per value).
    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        b: &mut InstrSeqBuilder,
        w: &Atom,
        lam: &Lambda,
        neutral: &[Atom],
        arrs: &[Var],
        scan_pat: Option<&[Param]>,
        pat: &[LocalId],
        span: Span,
    ) {
        let wl = self.i64_local(b, w);
        let what = if scan_pat.is_some() { "scan" } else { "reduce" };
        self.check_width(b, wl, w, arrs, what, span);
        let outs = scan_pat.map(|pp| self.soac_outputs(b, pp, pat));
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        let k = neutral.len();
        let (acc, xs) = ps.split_at(k.min(ps.len()));
        let (acc, xs) = (acc.to_vec(), xs.to_vec());
        self.assign(b, &acc, neutral);
        let mut start = None;
        if scan_pat.is_none() && neutral.len() == 1 && arrs.len() == 1 {
            match self.pending.take() {
                Some((xs, nvec, vacc)) if xs == arrs[0] => {
                    if let Some((op, l)) = super::simd::simple_reduce(lam) {
                        let f = super::simd::Fold::new(op, l, &neutral[0]);
                        self.hfold_lanes(b, vacc, acc[0], f);
                        start = Some(nvec);
                    }
                }
                _ => start = self.simd_reduce(b, wl, lam, &neutral[0], arrs[0], acc[0]),
            }
        }
        self.for_step(b, start, wl, 1, |g, b, j| {
            g.bind_rows(b, &xs, arrs, j);
            g.body(b, &lam.body);
            g.assign(b, &acc, &lam.body.result);
            if let Some(outs) = &outs {
                for ((out, row, elem), (pp, l)) in outs.iter().zip(lam.params.iter().zip(&acc)) {
                    let v = Atom::Var(pp.var);
                    let _ = l;
                    g.store_row(b, *out, j, &v, *elem, *row);
                }
            }
        });
        if scan_pat.is_none() {
            for (p, l) in pat.iter().zip(&acc) {
                b.local_get(*l).local_set(*p);
            }
        }
    }

    /// A fresh copy of array `v` (or `v` itself when the statement updates in place):
    /// (pointer, dims).
    pub(super) fn copy_of(&mut self, b: &mut InstrSeqBuilder, v: Var) -> (LocalId, Vec<LocalId>) {
        let elem = self.var_type(v).elem();
        let sh = self.shape(v);
        let ds = self.dim_locals(b, &sh);
        if self.here_in_place {
            return (self.local(v), ds);
        }
        let n = self.product(b, &ds);
        let out = self.alloc_elems(b, n, elem);
        let src = self.local(v);
        self.copy_elems(
            b,
            |b| {
                b.local_get(out);
            },
            |b| {
                b.local_get(src);
            },
            n,
            elem,
        );
        (out, ds)
    }

    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &mut self,
        b: &mut InstrSeqBuilder,
        dest: Var,
        idx: &[Var],
        vals: Var,
        w: &Atom,
        pat: &[LocalId],
        span: Span,
    ) {
        let Some(&res) = pat.first() else { return };
        let wl = self.i64_local(b, w);
        let mut all = idx.to_vec();
        all.push(vals);
        self.check_width(b, wl, w, &all, "scatter", span);
        let elem = self.var_type(dest).elem();
        let (out, ds) = self.copy_of(b, dest);
        let st = self.strides(b, &ds);
        let k = idx.len().min(ds.len());
        let row = self.product(b, &ds[k..]);
        let ils: Vec<LocalId> = idx.iter().map(|v| self.local(*v)).collect();
        let vl = self.local(vals);
        self.for_range(b, wl, |g, b, j| {
            let off = g.tmp(ValType::I64);
            b.i64_const(0).local_set(off);
            b.i32_const(1);
            for (q, il) in ils.iter().enumerate().take(k) {
                let i = g.tmp(ValType::I64);
                g.elem_addr(b, *il, j, PrimType::I64);
                g.load(b, PrimType::I64);
                b.local_tee(i).local_get(ds[q]).binop(B::I64LtU).binop(B::I32And);
                b.local_get(off)
                    .local_get(i)
                    .local_get(st[q])
                    .binop(B::I64Mul)
                    .binop(B::I64Add)
                    .local_set(off);
            }
            b.if_else(
                None,
                |t| {
                    let src_off = g.tmp(ValType::I64);
                    t.local_get(j).local_get(row).binop(B::I64Mul).local_set(src_off);
                    g.copy_elems(
                        t,
                        |t| g.elem_addr(t, out, off, elem),
                        |t| g.elem_addr(t, vl, src_off, elem),
                        row,
                        elem,
                    );
                },
                |_| {},
            );
        });
        b.local_get(out).local_set(res);
    }

    #[allow(clippy::too_many_arguments)]
    fn hist(
        &mut self,
        b: &mut InstrSeqBuilder,
        dest: &[Var],
        lam: &Lambda,
        is: Var,
        vs: &[Var],
        w: &Atom,
        pat: &[LocalId],
        span: Span,
    ) {
        let wl = self.i64_local(b, w);
        let mut all = vs.to_vec();
        all.push(is);
        self.check_width(b, wl, w, &all, "hist", span);
        let mut outs = Vec::new();
        for (d, l) in dest.iter().zip(pat) {
            let elem = self.var_type(*d).elem();
            let (out, ds) = self.copy_of(b, *d);
            let row = (ds.len() > 1).then(|| self.product(b, &ds[1..]));
            b.local_get(out).local_set(*l);
            outs.push((out, ds, row, elem));
        }
        let Some(bins) = outs.first().map(|o| o.1[0]) else { return };
        for o in &outs[1..] {
            b.local_get(o.1[0]).local_get(bins).binop(B::I64Eq);
            let mut msg = "size mismatch: histogram destinations of shapes ".to_string();
            let mut args = Vec::new();
            Self::shape_msg(&outs[0].1, &mut msg, &mut args);
            msg.push_str(" and ");
            Self::shape_msg(&o.1, &mut msg, &mut args);
            self.check(b, span, msg, args);
        }
        let ps: Vec<LocalId> = lam.params.iter().map(|p| self.bind(p, span)).collect();
        let k = dest.len();
        let isl = self.local(is);
        self.for_range(b, wl, |g, b, j| {
            let bin = g.tmp(ValType::I64);
            g.elem_addr(b, isl, j, PrimType::I64);
            g.load(b, PrimType::I64);
            b.local_tee(bin).local_get(bins).binop(B::I64LtU);
            b.if_else(
                None,
                |t| {
                    for (q, (out, _, row, elem)) in outs.iter().enumerate() {
                        let Some(&p) = ps.get(q) else { continue };
                        match row {
                            None => {
                                g.elem_addr(t, *out, bin, *elem);
                                g.load(t, *elem);
                                t.local_set(p);
                            }
                            Some(m) => {
                                let off = g.tmp(ValType::I64);
                                t.local_get(bin).local_get(*m).binop(B::I64Mul).local_set(off);
                                g.elem_addr(t, *out, off, *elem);
                                t.local_set(p);
                            }
                        }
                    }
                    for (p, v) in ps[k.min(ps.len())..].iter().zip(vs) {
                        g.bind_row(t, *p, *v, j);
                    }
                    g.body(t, &lam.body);
                    for ((out, _, row, elem), r) in outs.iter().zip(&lam.body.result) {
                        g.store_row(t, *out, bin, r, *elem, *row);
                    }
                },
                |_| {},
            );
        });
    }
}

/// The wasm type of an IR value.
pub(super) fn ty_val(t: &Type) -> ValType {
    match t {
        Type::Prim(p) => val_type(*p),
        Type::Array { .. } => ValType::I32,
    }
}

/// Replace the `n`th `{}` of `s` by `with`.
fn replace_nth_hole(s: &str, n: usize, with: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    let mut k = 0;
    while let Some(p) = rest.find("{}") {
        out.push_str(&rest[..p]);
        if k == n {
            out.push_str(with);
        } else {
            out.push_str("{}");
        }
        k += 1;
        rest = &rest[p + 2..];
    }
    out.push_str(rest);
    out
}

/// The results of `body.stms[k]`, if it is a map, that are each read exactly once afterwards,
/// by an array `reduce` of the same width over that result alone: (result index, index of the
/// reduction).
fn summed_results(body: &Body, k: usize) -> Vec<(usize, usize)> {
    let s = &body.stms[k];
    let Exp::Map { w, .. } = &s.exp else { return Vec::new() };
    let mut out = Vec::new();
    for (i, p) in s.pat.iter().enumerate() {
        if !matches!(&p.ty, Type::Array { shape, .. } if shape.len() >= 2) {
            continue;
        }
        let red = body.stms.iter().enumerate().skip(k + 1).find(|(_, r)| {
            matches!(&r.exp, Exp::Reduce { w: w2, arrs, neutral, lam, .. }
                if w2 == w && arrs.as_slice() == [p.var] && neutral.len() == 1
                    && lam.params.len() == 2 && lam.body.result.len() == 1
                    && r.pat.len() == 1 && matches!(r.pat[0].ty, Type::Array { .. }))
        });
        if let Some((r, _)) = red {
            if uses_after(body, k + 1, p.var) == 1 {
                out.push((i, r));
            }
        }
    }
    out
}

/// The addition of two values of the float type `t` (f32 or f64).
pub(super) fn float_add(t: PrimType) -> B {
    match t {
        PrimType::Float(FloatType::F32) => B::F32Add,
        _ => B::F64Add,
    }
}

/// How many sums a map summed in parallel keeps per result (`Gen::map_summed`): chunks of its
/// rows, which the threads share out.
const SUM_CHUNKS: i64 = 16;

/// A `reduce op ne (map f arrs)` being generated: `f` with its parameters' locals `ps`, the
/// operator `op` with its parameters' locals `rps`, and the accumulator `acc`, which holds the
/// neutral element to start with.
struct Fold<'a> {
    lam: &'a Lambda,
    arrs: &'a [Var],
    ps: &'a [LocalId],
    op: &'a Lambda,
    rps: &'a [LocalId],
    acc: LocalId,
    elem: PrimType,
}

/// How often `v` is read by the statements of `body` from index `from` on and by its result.
fn uses_after(body: &Body, from: usize, v: Var) -> usize {
    let mut rest = Body {
        stms: body.stms.get(from..).unwrap_or_default().to_vec(),
        result: body.result.clone(),
    };
    let mut n = 0;
    crate::ad::walk::body_vars(&mut rest, &mut |x, binder| n += usize::from(!binder && *x == v));
    n
}

/// Is `v` read by the statements of `body` from index `from` on, or by its result?
fn used_after(body: &Body, from: usize, v: Var) -> bool {
    let mut rest = Body {
        stms: body.stms.get(from..).unwrap_or_default().to_vec(),
        result: body.result.clone(),
    };
    let mut used = false;
    crate::ad::walk::body_vars(&mut rest, &mut |x, binder| used |= !binder && *x == v);
    used
}
