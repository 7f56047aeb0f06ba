//! Gradient checking: compares an entry point's `jvp` and `vjp` with central finite differences
//! (f64) in a random direction. The entry is wrapped in two generated entry points, so the check
//! goes through the same lowering and differentiation as user code.

use crate::ad::wrap;
use crate::diag::{Diagnostic, Phase, Span};
use crate::driver;
use crate::ir::{AdMode, EntryType};
use crate::prim::{PrimType, PrimValue};
use crate::testspec::random::Rng;
use crate::value::{ArrayValue, Value};

/// What a gradient check measured.
#[derive(Clone, Debug)]
pub struct GradCheck {
    /// The inputs the check ran at.
    pub inputs: Vec<Value>,
    /// `max |J·u − fd| / max(1, max |fd|)`: forward mode against central differences.
    pub jvp_error: f64,
    /// `|v·fd − (vᵀJ)·u| / max(1, |v·fd|)`: reverse mode against central differences.
    pub vjp_error: f64,
    /// `|v·(J·u) − (vᵀJ)·u|` relative: the two modes against each other.
    pub modes_error: f64,
}

impl GradCheck {
    /// The largest of the three errors; NaN if any is NaN (a derivative that is NaN where the
    /// differences are not, or the reverse, is a failure, not the smallest error).
    pub fn worst(&self) -> f64 {
        max_nan(max_nan(self.jvp_error, self.vjp_error), self.modes_error)
    }
}

/// `max` that propagates NaN (`f64::max` returns the other operand).
fn max_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn err(msg: impl Into<String>) -> Vec<Diagnostic> {
    vec![Diagnostic::new(Phase::Value, Span::DUMMY, msg)]
}

fn is_f(t: PrimType) -> bool {
    matches!(t, PrimType::Float(_))
}

/// The float elements of `vs`, flattened.
fn floats(vs: &[Value]) -> Vec<f64> {
    vs.iter()
        .filter(|v| is_f(v.elem_type()))
        .flat_map(|v| v.elems().iter().map(|p| p.as_f64().unwrap_or(0.0)))
        .collect()
}

/// `vs` with its float elements replaced by `f(element, k)` (k counts float elements); other
/// values replaced by `other` (keep or zero).
fn map_floats(
    vs: &[Value],
    zero_others: bool,
    f: &mut impl FnMut(f64, usize) -> f64,
) -> Vec<Value> {
    let mut k = 0;
    vs.iter()
        .map(|v| {
            let t = v.elem_type();
            let conv = |p: &PrimValue, k: &mut usize, f: &mut dyn FnMut(f64, usize) -> f64| {
                if let PrimType::Float(ft) = t {
                    let r = PrimValue::float(ft, f(p.as_f64().unwrap_or(0.0), *k));
                    *k += 1;
                    r
                } else if zero_others {
                    PrimValue::zero(t)
                } else {
                    *p
                }
            };
            match v {
                Value::Prim(p) => Value::Prim(conv(p, &mut k, f)),
                Value::Array(a) => {
                    let data = a.data.iter().map(|p| conv(p, &mut k, f)).collect();
                    ArrayValue::new(a.elem, a.shape.clone(), data).map_or(v.clone(), Value::Array)
                }
            }
        })
        .collect()
}

/// The dimensions of a random input of type `t`: those written as constants (`[4][n]f64`) keep
/// their value, the others are `size`.
fn input_dims(t: &EntryType, size: i64) -> Vec<i64> {
    let written: Vec<Option<i64>> = t
        .display
        .split('[')
        .skip(1)
        .map(|g| g.split(']').next().unwrap_or(""))
        .map(|d| d.trim_end_matches("i64").parse::<i64>().ok())
        .collect();
    (0..t.rank).map(|k| written.get(k).copied().flatten().unwrap_or(size).max(0)).collect()
}

/// Random inputs for `params`: every dimension `size` unless written as a constant, floats
/// uniform in [-1, 1), integers 1.
pub fn random_inputs(params: &[EntryType], size: i64, rng: &mut Rng) -> Vec<Value> {
    params
        .iter()
        .map(|t| {
            let dims = input_dims(t, size);
            let n = dims.iter().product::<i64>() as usize;
            let mut elem = || match t.elem {
                PrimType::Float(ft) => PrimValue::float(ft, rng.next_f64() * 2.0 - 1.0),
                PrimType::Int(it) => PrimValue::int(it, 1),
                PrimType::Bool => PrimValue::Bool(false),
            };
            if t.rank == 0 {
                Value::Prim(elem())
            } else {
                let data = (0..n).map(|_| elem()).collect();
                ArrayValue::new(t.elem, dims, data)
                    .map_or(Value::Prim(PrimValue::Bool(false)), Value::Array)
            }
        })
        .collect()
}

/// Check `entry` of `src` at `inputs` (random ones of dimension `size` if `None`).
pub fn gradcheck(
    src: &str,
    entry: &str,
    inputs: Option<Vec<Value>>,
    size: i64,
    seed: u64,
) -> Result<GradCheck, Vec<Diagnostic>> {
    let base = driver::compile(src)?;
    let Some(ep) = base.ir.entry(entry) else {
        return Err(err(format!("unknown entry point `{entry}`")));
    };
    let (params, results) = (ep.params.clone(), ep.results.clone());
    let jvp_name = wrap::fresh_name(src, "gradcheck_jvp");
    let vjp_name = wrap::fresh_name(src, "gradcheck_vjp");
    let wrapped = format!(
        "{src}\n\n{}\n{}",
        wrap::wrapper_source(ep, &jvp_name, AdMode::Jvp).map_err(|d| vec![d])?,
        wrap::wrapper_source(ep, &vjp_name, AdMode::Vjp).map_err(|d| vec![d])?,
    );
    let c = driver::compile(&wrapped)?;
    let mut rng = Rng::new(seed);
    let x = inputs.unwrap_or_else(|| random_inputs(&params, size, &mut rng));
    let run = |name: &str, args: &[Value]| driver::run_interp(&c, name, args).map_err(|d| vec![d]);
    let y = run(entry, &x)?;
    // Outside the function's domain (a square root of a negative, say) there is no derivative
    // to check, and NaN would compare as no error.
    if floats(&y).iter().any(|v| !v.is_finite()) {
        return Err(err(format!(
            "`{entry}`'s result is not finite at these inputs, so its derivatives cannot be \
             checked there; give inputs inside its domain (`--stdin`) or another `--seed`"
        )));
    }
    let mut u_of = |_: f64, _: usize| rng.next_f64() * 2.0 - 1.0;
    let u = map_floats(&x, true, &mut u_of);
    let v = map_floats(&y, true, &mut |_, _| 0.0);
    let v = map_floats(&v, true, &mut |_, k| ((k * 7919 % 13) as f64 - 6.0) / 6.0);
    let uf = floats(&u);
    let scale = floats(&x).iter().fold(1.0f64, |m, a| m.max(a.abs()));
    // Central differences lose about half the mantissa: a larger step for f32/f16 inputs.
    let low = params
        .iter()
        .chain(&results)
        .any(|t| matches!(t.elem, PrimType::Float(ft) if ft != crate::prim::FloatType::F64));
    let h = if low { 1e-2 } else { 1e-6 } * scale;
    let xp = map_floats(&x, false, &mut |a, k| a + h * uf[k]);
    let xm = map_floats(&x, false, &mut |a, k| a - h * uf[k]);
    let (yp, ym) = (floats(&run(entry, &xp)?), floats(&run(entry, &xm)?));
    let fd: Vec<f64> = yp.iter().zip(&ym).map(|(a, b)| (a - b) / (2.0 * h)).collect();
    let mut args = x.clone();
    args.extend(u.iter().cloned());
    let ju = floats(&run(&jvp_name, &args)?);
    let mut args = x.clone();
    args.extend(v.iter().cloned());
    let vj = floats(&run(&vjp_name, &args)?);
    let vf = floats(&v);
    let fd_scale = fd.iter().fold(1.0f64, |m, a| m.max(a.abs()));
    let jvp_error =
        ju.iter().zip(&fd).fold(0.0f64, |m, (a, b)| max_nan(m, (a - b).abs())) / fd_scale;
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let (v_fd, v_ju, vj_u) = (dot(&vf, &fd), dot(&vf, &ju), dot(&vj, &uf));
    let vjp_error = (v_fd - vj_u).abs() / v_fd.abs().max(1.0);
    let modes_error = (v_ju - vj_u).abs() / v_ju.abs().max(1.0);
    Ok(GradCheck { inputs: x, jvp_error, vjp_error, modes_error })
}
