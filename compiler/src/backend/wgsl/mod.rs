//! Core IR → a GPU program: WGSL compute kernels plus a host schedule that a runtime interprets.
//!
//! * Host schedule ([`HostStm`]): the IR's control flow and scalar code stay on the host (scalar
//!   statements are IR statements, evaluated with the interpreter's scalar semantics), arrays
//!   live in GPU buffers, and every array-producing statement becomes a kernel launch. Reductions
//!   read their scalar results back, so loop conditions and sizes are host values.
//! * Kernels (`kernel`): one invocation per output element (multi-dimensional results use a
//!   flattened index). Inside a kernel, arrays are *delayed*: a map, iota, slice or transpose is
//!   an index function that is computed where it is indexed or folded, so `reduce (+) 0 (map2 (*)
//!   row col)` is one loop with no temporary array. Sequential code stays a loop.
//! * `reduce` is a two-pass workgroup reduction, `scan` a three-pass reduce-then-scan (WebGPU has
//!   no forward-progress guarantee, so no single-pass look-back); both keep element order, so
//!   non-commutative operators are fine.
//! * Types: WGSL has no 64-bit types and no 8/16-bit storage. Every element takes a 32-bit word;
//!   i8/i16/u8/u16 wrap at their own width after each operation; i64/u64 are narrowed to 32 bits
//!   (the executor checks that every i64 value crossing to the GPU fits, and reports an
//!   `unsupported on the GPU backend` error otherwise); f64 and f16 are rejected at compile time.
//! * Every kernel is validated with naga before the program is returned.
//!
//! [`exec`] runs a program against any [`exec::Device`] (the runtime provides one on wgpu).

pub mod exec;
mod host;
mod kernel;
mod print;
mod scalar;

#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::{self, Atom, Param, Var};
use crate::prim::{FloatType, PrimType};

/// Threads per workgroup in every kernel.
pub const WORKGROUP: u32 = 256;
/// The most workgroups a reduction or scan uses (its second pass folds the partial results).
pub const MAX_GROUPS: u32 = 256;

/// The WGSL helpers every kernel includes.
pub const PRELUDE: &str = include_str!("../../../../shaders/prelude.wgsl");

/// How a kernel uses one storage buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    ReadWrite,
}

/// One compute shader. Bindings 0 (scalar arguments) and 1 (error record) are always present;
/// `buffers[k]` is binding `k + 2`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub wgsl: String,
    pub buffers: Vec<Access>,
}

/// A buffer a dispatch binds: a host array, or a temporary of the statement (numbered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufRef {
    Var(Var),
    Temp(usize),
}

/// One kernel launch: the kernel, its scalar arguments (host atoms, after the kernel's reserved
/// words) and its buffers (binding 2 on).
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    pub kernel: usize,
    pub args: Vec<Atom>,
    pub bufs: Vec<BufRef>,
}

/// A host statement.
#[derive(Clone, Debug, PartialEq)]
pub enum HostStm {
    /// A scalar IR statement (`Atom`, operators, conversions, `Math`, `Select`, `Assert`).
    Scalar(ir::Stm),
    /// Allocate `outs` (fresh arrays of their types) and run one invocation per element of
    /// `shape` (the first output's shape).
    Launch {
        outs: Vec<Param>,
        shape: Vec<ir::Dim>,
        dispatch: Dispatch,
        span: Span,
    },
    /// `reduce` of `w` elements into the scalars `pat`. Temporaries: one partial buffer per value
    /// (one word per workgroup), then one result word per value, read back. Reserved argument
    /// words of both passes: `w`, the number of workgroups.
    Reduce {
        pat: Vec<Param>,
        w: Atom,
        passes: [Dispatch; 2],
        span: Span,
    },
    /// Inclusive `scan` of `w` elements into the arrays `pat`: partials per workgroup (temporaries
    /// as for `Reduce`), an exclusive scan of the partials, then each workgroup scans its block
    /// from its prefix. Reserved words as for `Reduce`.
    Scan {
        pat: Vec<Param>,
        w: Atom,
        passes: [Dispatch; 3],
        span: Span,
    },
    /// `pat = arr[idx]`, every dimension indexed: a read-back of one element (bounds-checked).
    ReadElem {
        pat: Param,
        arr: Var,
        idx: Vec<Atom>,
        span: Span,
    },
    /// `pat = arr` with another shape (same number of elements, checked): shares the buffer.
    Reshape {
        pat: Param,
        arr: Var,
        span: Span,
    },
    /// `pat = arr` (arrays are immutable on the GPU, so copies share buffers).
    Alias {
        pat: Param,
        arr: Var,
    },
    /// `pat = arr with [idx] = value` for a scalar `value`: a copy with one element written.
    UpdateElem {
        pat: Param,
        arr: Var,
        idx: Vec<Atom>,
        value: Atom,
        span: Span,
    },
    If {
        pat: Vec<Param>,
        cond: Atom,
        then_body: HostBody,
        else_body: HostBody,
        span: Span,
    },
    Loop {
        pat: Vec<Param>,
        params: Vec<(Param, Atom)>,
        form: ir::LoopForm,
        body: HostBody,
        span: Span,
    },
    Call {
        pat: Vec<Param>,
        fun: usize,
        args: Vec<Atom>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct HostBody {
    pub stms: Vec<HostStm>,
    pub result: Vec<Atom>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HostFun {
    pub name: String,
    pub params: Vec<Param>,
    pub existentials: usize,
    pub ret: Vec<ir::Type>,
    pub body: HostBody,
}

/// A place in a kernel that can fail at run time: its span and message, each `{}` filled with
/// the next value of the error record, read as the corresponding type of `args`.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub span: Span,
    pub msg: String,
    pub args: Vec<PrimType>,
}

/// A compiled GPU program.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuProgram {
    pub kernels: Vec<Kernel>,
    pub funs: Vec<HostFun>,
    pub entries: Vec<ir::EntryPoint>,
    pub sites: Vec<Site>,
    pub names: Vec<String>,
}

impl GpuProgram {
    pub fn name(&self, v: Var) -> &str {
        self.names.get(v.0 as usize).map_or("?", |s| s.as_str())
    }
}

/// The words of one kernel's argument buffer are 32-bit; this many at most per error record.
pub const MAX_ERR_ARGS: usize = 8;

pub(crate) fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("unsupported on the GPU backend: {what}"))
}

pub(crate) fn internal(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Phase::Lower, span, format!("internal error in the GPU backend: {what}"))
}

/// Compile a program. f64 anywhere is an error at its first use; constructs the backend does not
/// handle yet are `unsupported on the GPU backend: ...` errors at their spans.
pub fn compile(prog: &ir::Program) -> Result<GpuProgram, Vec<Diagnostic>> {
    check_types(prog).map_err(|d| vec![d])?;
    let gp = host::generate(prog).map_err(|d| vec![d])?;
    for k in &gp.kernels {
        validate(&k.wgsl).map_err(|e| {
            vec![internal(Span::DUMMY, format!("kernel `{}` does not validate: {e}", k.name))]
        })?;
    }
    Ok(gp)
}

/// Parse and validate one WGSL module with naga.
pub fn validate(wgsl: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    );
    v.validate(&module).map_err(|e| e.emit_to_string(wgsl))?;
    Ok(())
}

/// The whole program as text: each kernel's WGSL, then each host function's schedule.
pub fn show(gp: &GpuProgram) -> String {
    print::print_program(gp)
}

/// f64 is rejected at the first place it occurs (by source position); f16 likewise.
fn check_types(prog: &ir::Program) -> Result<(), Diagnostic> {
    let mut first: Option<(Span, FloatType)> = None;
    let mut note = |span: Span, t: &ir::Type| {
        if let PrimType::Float(f @ (FloatType::F64 | FloatType::F16)) = t.elem() {
            let better = match first {
                None => true,
                Some((s, _)) => span != Span::DUMMY && (s == Span::DUMMY || span.start < s.start),
            };
            if better {
                first = Some((span, f));
            }
        }
    };
    for f in &prog.funs {
        for p in &f.params {
            note(f.span, &p.ty);
        }
        walk_body(&f.body, &mut |s: &ir::Stm| {
            for p in &s.pat {
                note(s.span, &p.ty);
            }
            for t in stm_param_types(s) {
                note(s.span, t);
            }
        });
    }
    match first {
        Some((span, FloatType::F64)) => {
            Err(Diagnostic::new(Phase::Lower, span, "f64 is not available on WebGPU")
                .with_hint("WGSL has no 64-bit floats; use f32, or run with `--backend wasm`"))
        }
        Some((span, _)) => Err(unsupported(span, "f16 (WGSL's f16 is an optional extension)")),
        None => Ok(()),
    }
}

fn stm_param_types(s: &ir::Stm) -> Vec<&ir::Type> {
    fn lam(l: &ir::Lambda) -> impl Iterator<Item = &ir::Type> {
        l.params.iter().map(|p| &p.ty).chain(l.ret.iter())
    }
    match &s.exp {
        ir::Exp::Map { lam: l, .. }
        | ir::Exp::Reduce { lam: l, .. }
        | ir::Exp::Scan { lam: l, .. }
        | ir::Exp::Hist { lam: l, .. } => lam(l).collect(),
        ir::Exp::Loop { params, .. } => params.iter().map(|(p, _)| &p.ty).collect(),
        _ => Vec::new(),
    }
}

/// Visit every statement, nested bodies included.
pub(crate) fn walk_body(b: &ir::Body, f: &mut impl FnMut(&ir::Stm)) {
    for s in &b.stms {
        f(s);
        match &s.exp {
            ir::Exp::If { then_body, else_body, .. } => {
                walk_body(then_body, f);
                walk_body(else_body, f);
            }
            ir::Exp::Loop { body, .. } => walk_body(body, f),
            ir::Exp::Map { lam, .. }
            | ir::Exp::Reduce { lam, .. }
            | ir::Exp::Scan { lam, .. }
            | ir::Exp::Hist { lam, .. }
            | ir::Exp::Ad { lam, .. } => walk_body(&lam.body, f),
            _ => {}
        }
    }
}

/// The WGSL type of values of `t` in registers and buffers.
pub(crate) fn wgsl_type(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool => "bool",
        PrimType::Int(i) if i.signed() => "i32",
        PrimType::Int(_) => "u32",
        PrimType::Float(_) => "f32",
    }
}

/// The element type of a storage buffer holding `t` (bools are stored as `u32`).
pub(crate) fn storage_type(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool => "u32",
        t => wgsl_type(t),
    }
}
