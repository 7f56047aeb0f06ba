//! Core IR → a GPU program: WGSL compute kernels plus a host schedule that a runtime interprets.
//!
//! * Host schedule ([`HostStm`]): the IR's control flow and scalar code stay on the host (scalar
//!   statements are IR statements, evaluated with the interpreter's scalar semantics), arrays
//!   live in GPU buffers, and every array-producing statement becomes a kernel launch. Reductions
//!   read their scalar results back, so loop conditions and sizes are host values.
//! * Kernels (`kernel`): one invocation per output element (multi-dimensional results use a
//!   flattened index). Inside a kernel, arrays are *delayed*: a map, iota, slice or transpose is
//!   an index function that is computed where it is indexed or folded, so `reduce (+) 0 (map2 (*)
//!   row col)` is one loop with no temporary array. Sequential code stays a loop. Inside a
//!   kernel an `if` with array results, `hist`, `scan`, `scatter`, updates and elementwise
//!   reductions of arrays are delayed arrays too: each element is computed by a sequential loop
//!   (or the branch the condition picks) where it is demanded.
//! * A map whose function works on whole rows (maps and reductions over the row, scalar
//!   statements: softmax) is one row kernel, a workgroup or an invocation per row (`rows`).
//! * `reduce` is a two-pass workgroup reduction, `scan` a three-pass reduce-then-scan (WebGPU has
//!   no forward-progress guarantee, so no single-pass look-back); both keep element order, so
//!   non-commutative operators are fine.
//! * Types: WGSL has no 64-bit types and no 8/16-bit storage. Every element takes a 32-bit word;
//!   i8/i16/u8/u16 wrap at their own width after each operation; i64/u64 are narrowed to 32 bits
//!   (the executor checks that every i64 value crossing to the GPU fits, and a kernel reports an
//!   operation whose 64-bit result would not fit, both as errors that [`is_needs_wide`]
//!   recognises), and [`compile_wide`] makes the same program with 64-bit `vec2<u32>` values for
//!   the entries that need them; f16 is computed in f32 and rounded to f16 after every operation
//!   (WGSL's f16 is an optional extension); f64 is rejected at compile time.
//! * Every kernel is validated with naga before the program is returned.
//!
//! [`exec`] runs a program against any [`exec::Device`] (the runtime provides one on wgpu).

mod distribute;
pub mod exec;
mod host;
mod kernel;
mod prelude;
mod print;
mod rows;
mod scalar;
mod staged;
mod tile;
mod unroll;

#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::{self, Atom, Param, Var};
use crate::prim::{FloatType, PrimType};

/// Threads per workgroup in every kernel.
pub const WORKGROUP: u32 = 256;
/// The most workgroups a reduction or scan uses on a software device, and a histogram anywhere
/// (a reduction's or scan's second pass folds the partial results).
pub const MAX_GROUPS: u32 = 256;
/// The most workgroups a reduction or scan uses on a GPU.
pub const GPU_MAX_GROUPS: u32 = 1024;

pub use rows::ROW_LANES;

/// Segments shorter than this are reduced by one invocation each, longer ones by a workgroup.
pub const SEG_GROUP_MIN: i64 = 64;
/// The most bins a workgroup-private histogram holds (16 KiB of workgroup memory, WebGPU's
/// guaranteed minimum).
pub const HIST_LOCAL_BINS: i64 = 4096;

pub use prelude::PRELUDE;

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

/// How a matrix-product nest's launch divides its result (see [`tile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Tiles {
    /// The side of the block that an invocation of the launch's dispatch computes: small, for a
    /// GPU's registers.
    pub side: u32,
    /// When the dispatch runs one workgroup per square tile of the result of this side (its
    /// invocations sharing the operands' tiles in workgroup memory) instead of one invocation
    /// per block.
    pub group: Option<u32>,
    /// The same nest with blocks of side `software_side`, which the executor runs on software
    /// devices: their invocations are CPU SIMD lanes, so a large block costs no occupancy, and
    /// each step loads `2 * side` (bounds-checked) elements for `side * side` products.
    pub software: Dispatch,
    pub software_side: u32,
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
        /// One invocation per square block of the two-dimensional `shape` instead of one per
        /// element (a matrix-product nest).
        tiled: Option<Tiles>,
        /// Every element of the one output is this scalar (a `replicate`): the executor makes a
        /// small array on the host instead, uploading it and keeping its words there for the
        /// host's reads and writes of single elements (reverse mode's saves of a loop).
        fill: Option<Atom>,
        /// For a map whose results are rows: when `shape` has no elements but its first
        /// dimension does (every row is empty), this kernel runs the map's function once per
        /// row for what may fail in it, as the interpreter does; `dispatch` has no invocations
        /// then. `None` when nothing in the function may fail.
        empty_rows: Option<Dispatch>,
        span: Span,
    },
    /// A map whose function ends in a scalar `reduce` (a segmented reduction): `group` runs one
    /// workgroup per element of `shape` (the segment), its threads folding the segment and
    /// combining their values with a tree in workgroup memory; `thread` (an ordinary launch)
    /// runs one invocation per segment. The executor takes `thread` when the segment width
    /// `seg_w` is known on the host and below [`SEG_GROUP_MIN`], and on software devices when
    /// there are many segments.
    SegReduce {
        outs: Vec<Param>,
        shape: Vec<ir::Dim>,
        seg_w: Option<Atom>,
        group: Dispatch,
        thread: Dispatch,
        span: Span,
    },
    /// A map whose function works on whole rows (see `rows`): `group` runs one workgroup of
    /// [`ROW_LANES`] invocations per row (element `j` of a row by lane `j % ROW_LANES`,
    /// reductions combined in workgroup memory), keeping the map results in `local` (host
    /// widths) in workgroup memory, at most `bound` elements each; `thread` runs one invocation
    /// per row. The executor takes `thread` for short rows (`width` below [`SEG_GROUP_MIN`])
    /// and for many rows on software devices, `group` when `local`'s widths fit, and otherwise
    /// `pieces`, the map's distributed statements, whose results are the map's.
    RowMap {
        outs: Vec<Param>,
        width: Option<Atom>,
        group: Dispatch,
        local: Vec<Atom>,
        bound: i64,
        thread: Dispatch,
        pieces: HostBody,
        span: Span,
    },
    /// `hist` with an operator that has an atomic form, into a copy of `dest`: `local` keeps a
    /// histogram per workgroup in workgroup memory (at most [`HIST_LOCAL_BINS`] bins) and adds
    /// it to the result; `global` updates the result's bins directly. Reserved argument words of
    /// both: the number of values, the number of bins.
    Hist {
        pat: Param,
        dest: Var,
        w: Atom,
        local: Dispatch,
        global: Dispatch,
        span: Span,
    },
    /// `reduce` of `w` elements into the scalars `pat`. Temporaries: one partial buffer per value
    /// (one word per workgroup), then one result word per value, read back. Reserved argument
    /// words of both passes: `w`, the number of partial values. On software devices the
    /// executor runs `flat` instead of the first pass: each thread's value is a partial (no tree
    /// of barriers in workgroup memory, which there costs three times the folding itself).
    Reduce {
        pat: Vec<Param>,
        w: Atom,
        passes: [Dispatch; 2],
        flat: Dispatch,
        span: Span,
    },
    /// Elementwise `reduce`s of `w` arrays each into the arrays `pat` (AD's sums over samples),
    /// all of one shape: `whole` folds all `w` with an invocation per element, a dispatch per
    /// result. When the results have too few elements to fill the device, the executor runs
    /// `parts` instead: each invocation folds a contiguous chunk of the arrays for one element
    /// of every result, into a temporary per result of `parts × elements` words; then `finish`
    /// folds each element's chunks in order. Reserved argument words of both: `w`, the number
    /// of chunks. Several results are sums over the same samples that one kernel folds
    /// together (see `host::joined_sums`), so what their arrays share is computed once.
    SplitReduce {
        pat: Vec<Param>,
        w: Atom,
        whole: Vec<Dispatch>,
        parts: Dispatch,
        finish: Dispatch,
        span: Span,
    },
    /// Inclusive `scan` of `w` elements into the arrays `pat`: partials per workgroup (temporaries
    /// as for `Reduce`), an exclusive scan of the partials, then each workgroup scans its block
    /// from its prefix. Reserved words as for `Reduce`.
    Scan {
        pat: Vec<Param>,
        w: Atom,
        passes: [Dispatch; 3],
        /// Passes 1 and 3 with their tiles staged in workgroup memory (`staged`), which a GPU
        /// runs instead of `passes`' (a software device runs those); `None` for elements too
        /// wide to stage.
        staged: Option<[Dispatch; 2]>,
        /// The whole scan in one pass (`staged::single_pass`), which a GPU runs instead of
        /// `staged` unless told otherwise ([`exec::Device::single_pass_scans`]); `None` for
        /// elements of more than one word per array. With it, the elements in a tile.
        single: Option<(Dispatch, u32)>,
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
    /// `pat = scatter dest idx vals` (`ranks` index arrays): `pat` is a copy of `dest` (or
    /// `dest` itself when `in_place`); `winners` marks each cell of `pat` with the last write
    /// to it in a temporary, and `write` writes the winning values (see `host::scatter`).
    Scatter {
        pat: Param,
        dest: Var,
        w: Atom,
        ranks: usize,
        winners: Dispatch,
        write: Dispatch,
        in_place: bool,
        span: Span,
    },
    /// `pat = copy arr`: a fresh buffer, for an array that is later updated in place (other
    /// copies share the buffer: arrays are immutable on the host).
    Copy {
        pat: Param,
        arr: Var,
        span: Span,
    },
    /// `pat = arr with [idx] = value` for a scalar `value`: one element written into `arr`'s
    /// buffer when `in_place` (nothing reads `arr` afterwards, see `ir::inplace`), else into a
    /// copy of it.
    UpdateElem {
        pat: Param,
        arr: Var,
        idx: Vec<Atom>,
        value: Atom,
        in_place: bool,
        span: Span,
    },
    /// `pat = arr with [idx] = value`, fewer indices than `arr` has dimensions: the row (or
    /// block) `value` copied into place by the device, in `arr`'s buffer when `in_place` (as for
    /// `UpdateElem`), else in a copy of it.
    UpdateRow {
        pat: Param,
        arr: Var,
        idx: Vec<Atom>,
        value: Var,
        in_place: bool,
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
    /// A 64-bit value that a narrow program's 32 bits cannot hold ([`is_needs_wide`]).
    pub narrowed: bool,
}

/// A compiled GPU program.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuProgram {
    pub kernels: Vec<Kernel>,
    pub funs: Vec<HostFun>,
    pub entries: Vec<ir::EntryPoint>,
    pub sites: Vec<Site>,
    pub names: Vec<String>,
    /// Entry points left out, with the reason (f64 in what they reach, or a construct the backend
    /// does not handle): running one reports it.
    pub rejected: Vec<(String, Diagnostic)>,
    /// i64/u64 values are 64 bits (`vec2<u32>` in kernels, two words in buffers and
    /// arguments) rather than 32.
    pub wide: bool,
    /// The program this one was compiled from, for [`compile_wide`] (in narrow programs).
    pub source: Option<std::rc::Rc<ir::Program>>,
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

/// Compile a program. An entry point that reaches f64, or a construct the backend does not
/// handle (an `unsupported on the GPU backend: ...` error at its span), is left out and running
/// it reports that error; if every entry is left out, the first error is the program's.
///
/// i64/u64 values are computed in 32 bits, which is fast and enough for sizes and indices; an
/// entry whose values need more (a constant, an argument or a result that does not fit) fails
/// with an error that [`needs_wide`] recognises, and runs in the program [`compile_wide`] makes.
pub fn compile(prog: &ir::Program) -> Result<GpuProgram, Vec<Diagnostic>> {
    let (prog, rejected) = without_f64_entries(prog).map_err(|d| vec![d])?;
    let mut gp = generate(&prog, rejected, false)?;
    gp.source = Some(std::rc::Rc::new(prog));
    Ok(gp)
}

/// The program `gp` was compiled from, with i64/u64 values in 64 bits: `vec2<u32>` in kernels
/// with the `ogm_w_*` helpers of the prelude, two words per element in buffers. Slower than the
/// narrow program; the executor runs an entry on it when the narrow one reports [`needs_wide`].
pub fn compile_wide(gp: &GpuProgram) -> Result<GpuProgram, Vec<Diagnostic>> {
    let Some(prog) = &gp.source else {
        return Err(vec![internal(Span::DUMMY, "a program without its source")]);
    };
    generate(prog, gp.rejected.iter().filter(|(_, d)| !is_needs_wide(d)).cloned().collect(), true)
}

/// A program whose every entry point is rejected (each runs in the wide program).
fn only_rejected(prog: &ir::Program, rejected: Vec<(String, Diagnostic)>) -> GpuProgram {
    GpuProgram {
        kernels: Vec::new(),
        funs: Vec::new(),
        entries: prog.entries.clone(),
        sites: Vec::new(),
        names: prog.names.clone(),
        rejected,
        wide: false,
        source: None,
    }
}

/// The hint that marks an error of a narrow program's 32-bit i64/u64 values.
const WIDE_HINT: &str =
    "the GPU backend computes i64/u64 in 32 bits, and in 64 bits (slower) when values need it";

/// `d` marked as an error that the wide program (see [`compile_wide`]) does not have.
pub(crate) fn needs_wide(d: Diagnostic) -> Diagnostic {
    d.with_hint(WIDE_HINT)
}

/// Is `d` an error of a 64-bit value in a narrow program, which [`compile_wide`]'s program
/// computes?
pub fn is_needs_wide(d: &Diagnostic) -> bool {
    d.hints.iter().any(|h| h == WIDE_HINT)
}

fn generate(
    prog: &ir::Program,
    mut rejected: Vec<(String, Diagnostic)>,
    wide: bool,
) -> Result<GpuProgram, Vec<Diagnostic>> {
    // Matrix-product nests written either way (a map calling `dot`, a transpose inside the
    // map's function) are found after these rewrites (see `tile`).
    let mut prog = crate::opt::for_backends(prog);
    // Sums of histograms made in a map, and of arrays with one row set, are one histogram
    // here, which adds every pair atomically (`opt::summed_histograms_as_one`,
    // `opt::summed_rows_as_histograms`).
    crate::opt::summed_histograms_as_one(&mut prog);
    crate::opt::summed_rows_as_histograms(&mut prog);
    // A map's repeated results are stored once (`opt::repeated_results_once`).
    crate::opt::repeated_results_once(&mut prog);
    // Kernels scan scalars: a scan of rows combined elementwise is a segmented scan of their
    // columns (`opt::scans_of_rows_by_columns`).
    crate::opt::scans_of_rows_by_columns(&mut prog);
    let mut gp = match host::generate(&prog, wide) {
        Ok(gp) => gp,
        Err(d) if prog.entries.len() > 1 => {
            // Find the entries that fail on their own; the others compile together.
            let mut keep = vec![false; prog.entries.len()];
            let mut first_error = None;
            let mut all_wide = true;
            for (i, e) in prog.entries.iter().enumerate() {
                let mut only = vec![false; prog.entries.len()];
                only[i] = true;
                match host::generate(&with_entries(&prog, &only), wide) {
                    Ok(_) => keep[i] = true,
                    Err(d) => {
                        all_wide &= is_needs_wide(&d);
                        first_error.get_or_insert_with(|| d.clone());
                        rejected.push((e.name.clone(), d));
                    }
                }
            }
            if !keep.contains(&true) {
                if !wide && all_wide {
                    return Ok(only_rejected(&prog, rejected));
                }
                return Err(vec![first_error.unwrap_or(d)]);
            }
            host::generate(&with_entries(&prog, &keep), wide).map_err(|d| vec![d])?
        }
        Err(d) if !wide && is_needs_wide(&d) => {
            rejected.extend(prog.entries.iter().map(|e| (e.name.clone(), d.clone())));
            return Ok(only_rejected(&prog, rejected));
        }
        Err(d) => return Err(vec![d]),
    };
    gp.rejected = rejected;
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

/// The program without the entry points that reach f64 (and the functions only they call), and
/// those entries with their f64 errors. An error if no entry point is left.
fn without_f64_entries(
    prog: &ir::Program,
) -> Result<(ir::Program, Vec<(String, Diagnostic)>), Diagnostic> {
    if prog.entries.is_empty() {
        check_types(prog, &vec![true; prog.funs.len()])?;
        return Ok((prog.clone(), Vec::new()));
    }
    let mut keep = vec![false; prog.entries.len()];
    let mut rejected = Vec::new();
    let mut first_error = None;
    for (i, e) in prog.entries.iter().enumerate() {
        match check_types(prog, &reachable(prog, e.fun)) {
            Ok(()) => keep[i] = true,
            Err(d) => {
                first_error.get_or_insert_with(|| d.clone());
                rejected.push((e.name.clone(), d));
            }
        }
    }
    if !keep.contains(&true) {
        return Err(first_error.unwrap_or_else(|| internal(Span::DUMMY, "no entry point")));
    }
    if rejected.is_empty() {
        return Ok((prog.clone(), rejected));
    }
    Ok((with_entries(prog, &keep), rejected))
}

/// The program with only the entry points `keep` marks and the functions they reach.
fn with_entries(prog: &ir::Program, keep: &[bool]) -> ir::Program {
    let mut used = vec![false; prog.funs.len()];
    let mut entries = Vec::new();
    for (e, _) in prog.entries.iter().zip(keep).filter(|(_, k)| **k) {
        let reach = reachable(prog, e.fun);
        used.iter_mut().zip(&reach).for_each(|(u, r)| *u |= *r);
        entries.push(e.clone());
    }
    let mut index = vec![usize::MAX; prog.funs.len()];
    let mut funs = Vec::new();
    for (k, f) in prog.funs.iter().enumerate() {
        if used[k] {
            index[k] = funs.len();
            funs.push(f.clone());
        }
    }
    for f in &mut funs {
        renumber_calls(&mut f.body, &index);
    }
    for e in &mut entries {
        e.fun = index[e.fun];
    }
    ir::Program { funs, entries, names: prog.names.clone() }
}

/// The functions `root` calls, directly or not (itself included), by index.
fn reachable(prog: &ir::Program, root: usize) -> Vec<bool> {
    let mut seen = vec![false; prog.funs.len()];
    let mut todo = vec![root];
    while let Some(k) = todo.pop() {
        if k >= seen.len() || seen[k] {
            continue;
        }
        seen[k] = true;
        walk_body(&prog.funs[k].body, &mut |s: &ir::Stm| {
            if let ir::Exp::Apply { fun, .. } = &s.exp {
                todo.push(*fun);
            }
        });
    }
    seen
}

fn renumber_calls(b: &mut ir::Body, index: &[usize]) {
    for s in &mut b.stms {
        match &mut s.exp {
            ir::Exp::Apply { fun, .. } => *fun = index[*fun],
            ir::Exp::If { then_body, else_body, .. } => {
                renumber_calls(then_body, index);
                renumber_calls(else_body, index);
            }
            ir::Exp::Loop { body, .. } => renumber_calls(body, index),
            ir::Exp::Map { lam, .. }
            | ir::Exp::Reduce { lam, .. }
            | ir::Exp::Scan { lam, .. }
            | ir::Exp::Hist { lam, .. }
            | ir::Exp::Ad { lam, .. } => renumber_calls(&mut lam.body, index),
            _ => {}
        }
    }
}

/// f64 is rejected at the first place it occurs (by source position) in the functions `funs`
/// marks.
fn check_types(prog: &ir::Program, funs: &[bool]) -> Result<(), Diagnostic> {
    let mut first: Option<Span> = None;
    let mut note = |span: Span, t: &ir::Type| {
        if t.elem() == PrimType::Float(FloatType::F64) {
            let better = match first {
                None => true,
                Some(s) => span != Span::DUMMY && (s == Span::DUMMY || span.start < s.start),
            };
            if better {
                first = Some(span);
            }
        }
    };
    for (f, _) in prog.funs.iter().zip(funs).filter(|(_, k)| **k) {
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
        Some(span) => Err(Diagnostic::new(Phase::Lower, span, "f64 is not available on WebGPU")
            .with_hint(
                "WGSL has no 64-bit floats: use f32, run with `--backend wasm`, or compute f64 \
                 as f32 with `--f64-as-f32`",
            )),
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

/// The WGSL type of values of `t` in registers and buffers; `wide`: in a program that computes
/// i64/u64 in 64 bits (see [`compile_wide`]).
pub(crate) fn wgsl_type(t: PrimType, wide: bool) -> &'static str {
    match t {
        t if wide && scalar::narrowed(t) => "vec2<u32>",
        PrimType::Bool => "bool",
        PrimType::Int(i) if i.signed() => "i32",
        PrimType::Int(_) => "u32",
        PrimType::Float(_) => "f32",
    }
}

/// The element type of a storage buffer holding `t` (bools are stored as `u32`).
pub(crate) fn storage_type(t: PrimType, wide: bool) -> &'static str {
    match t {
        PrimType::Bool => "u32",
        t => wgsl_type(t, wide),
    }
}
