//! The reference interpreter on the core IR: exact Futhark semantics, with bounds and size checks
//! whose errors carry the source span of the failing statement. Every backend is tested against it.
//!
//! * `prim_ops`: scalar semantics (wrapping integers, flooring division, IEEE floats, conversions).
//! * `array`: the run-time representation (typed flat buffers, copy-on-write, allocation limits).
//! * `liveness`: last uses, so updates of arrays nobody else holds happen in place.
//! * `eval`: statements, control flow and calls; `soac`: map, reduce, scan, scatter, hist;
//!   `vector`: column-at-a-time maps of scalar functions and typed folds (same results, faster).
//!
//! Run-time checks: every index and slice is bounds-checked; every statement's pattern, every
//! function's parameters and results, every lambda's parameters and results and every loop's
//! parameters (each iteration) are checked against their declared types, so the sizes that
//! lowering asserts surface as `size mismatch` errors at the statement's span.
//!
//! Where Futhark leaves a result open, the reference picks one (details in `prim_ops` and `soac`):
//! shifts by at least the width shift every bit out; float → int conversion gives 0 for NaN and
//! ±inf and wraps other out-of-range values; `reduce` and `scan` fold left to right (backends may
//! reassociate); of duplicate `scatter` indices the last write wins. Which error is reported when
//! several elements of a `map` fail is not specified.
//!
//! Every error is a [`Diagnostic`]: `Phase::Value` for arguments that do not fit the entry point,
//! `Phase::Runtime` with the failing statement's span for everything else (messages starting
//! with `internal error` point at inconsistent IR rather than at the program).

mod array;
mod data;
mod eval;
mod liveness;
pub(crate) mod prim_ops;
mod soac;
mod vector;

use crate::diag::{Diagnostic, Phase};
use crate::ir;
use crate::prim::PrimValue;
use crate::value::Value;
use array::{Array, Meter, Val};

/// Resource limits of one run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Elements alive at once, over all arrays.
    pub max_live_elements: u64,
    /// How deeply calls, loops, branches and anonymous functions may nest at run time.
    pub max_depth: usize,
    /// Statements executed before the run is stopped (`None`: no limit).
    pub max_steps: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // 2^31 elements (16 GiB of f64) on 64-bit hosts; 2^27 in a 32-bit (wasm) address space.
            max_live_elements: if usize::BITS >= 64 { 1 << 31 } else { 1 << 27 },
            max_depth: 200,
            max_steps: None,
        }
    }
}

/// Run entry point `entry` of `prog` on `args` (one value per entry parameter).
pub fn run_entry(
    prog: &ir::Program,
    entry: &str,
    args: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    run_entry_with(prog, entry, args, &Limits::default())
}

/// [`run_entry`] with explicit resource limits.
pub fn run_entry_with(
    prog: &ir::Program,
    entry: &str,
    args: &[Value],
    limits: &Limits,
) -> Result<Vec<Value>, Diagnostic> {
    let Some(ep) = prog.entry(entry) else {
        return Err(ir::unknown_entry(entry, prog.entries.iter().map(|e| e.name.as_str())));
    };
    ir::check_entry_args(entry, &ep.params, ep.span, args)?;
    let value_err = |msg: String| Diagnostic::new(Phase::Value, ep.span, msg);
    let analysis = liveness::analyse(prog, limits.max_depth)?;
    let meter = Meter::new(limits.max_live_elements);
    // The entry ABI: one i64 per dimension of each array argument, then the values.
    let mut vals = Vec::new();
    for a in args {
        if let Value::Array(av) = a {
            vals.extend(av.shape.iter().map(|&d| Val::Prim(PrimValue::I64(d))));
        }
    }
    for (k, a) in args.iter().enumerate() {
        vals.push(match a {
            Value::Prim(p) => Val::Prim(*p),
            Value::Array(av) => Val::Arr(
                Array::from_value(&meter, av)
                    .map_err(|m| value_err(format!("argument {} of `{entry}`: {m}", k + 1)))?,
            ),
        });
    }
    let mut it = eval::Interp::new(prog, &analysis.funs, analysis.max_var, meter, limits.clone());
    let results = it.call(ep.fun, vals, ep.span).map_err(|d| *d)?;
    let existentials = prog.funs.get(ep.fun).map_or(0, |f| f.existentials);
    let results: Vec<Value> = results
        .iter()
        .skip(existentials)
        .map(|v| match v {
            Val::Prim(p) => Value::Prim(*p),
            Val::Arr(a) => Value::Array(a.to_value()),
        })
        .collect();
    let matches = results.len() == ep.results.len()
        && results
            .iter()
            .zip(&ep.results)
            .all(|(v, t)| v.elem_type() == t.elem && v.rank() == t.rank);
    if !matches {
        let got: Vec<String> = results.iter().map(Value::type_string).collect();
        let want: Vec<&str> = ep.results.iter().map(|t| t.display.as_str()).collect();
        return Err(Diagnostic::runtime(
            ep.span,
            format!(
                "internal error: `{entry}` returned ({}) but declares ({})",
                got.join(", "),
                want.join(", ")
            ),
        ));
    }
    Ok(results)
}

#[cfg(test)]
mod tests;
