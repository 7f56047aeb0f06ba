//! `--f64-as-f32`: the same program with every `f64` computed as `f32`.
//!
//! WebGPU has no `f64`, so a program written in `f64` (as most numerical code is) cannot run on
//! the GPU backend as written. Demoting it is what JAX does by default (without `jax_enable_x64`):
//! types, operations and conversions of `f64` become `f32`, and `f64` constants are rounded to the
//! nearest `f32` (those beyond its range become infinities). Values passed in are demoted the same
//! way ([`crate::value::Value::f64_as_f32`]). Only the reinterpretations of bits
//! (`f64.to_bits`, `f64.from_bits`) have no `f32` counterpart: they are an error at their source
//! location.

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::*;
use crate::prim::{FloatType, PrimType, PrimValue};

/// `prog` with `f64` replaced by `f32` throughout, or the first use that cannot be demoted.
pub fn f64_as_f32(prog: &Program) -> Result<Program, Diagnostic> {
    let mut prog = prog.clone();
    for f in &mut prog.funs {
        f.params.iter_mut().for_each(param);
        f.ret.iter_mut().for_each(ty);
        body(&mut f.body)?;
    }
    for e in &mut prog.entries {
        e.params.iter_mut().chain(e.results.iter_mut()).for_each(entry_type);
    }
    Ok(prog)
}

fn prim(p: &mut PrimType) {
    if *p == PrimType::Float(FloatType::F64) {
        *p = PrimType::Float(FloatType::F32);
    }
}

fn ty(t: &mut Type) {
    match t {
        Type::Prim(p) | Type::Array { elem: p, .. } => prim(p),
    }
}

fn param(p: &mut Param) {
    ty(&mut p.ty);
}

fn entry_type(t: &mut EntryType) {
    if t.elem == PrimType::Float(FloatType::F64) {
        prim(&mut t.elem);
        t.display = t.display.replace("f64", "f32");
    }
}

fn atom(a: &mut Atom) {
    if let Atom::Const(PrimValue::F64(x)) = a {
        *a = Atom::Const(PrimValue::F32(*x as f32));
    }
}

fn atoms<'a>(xs: impl IntoIterator<Item = &'a mut Atom>) {
    xs.into_iter().for_each(atom);
}

fn body(b: &mut Body) -> Result<(), Diagnostic> {
    for s in &mut b.stms {
        s.pat.iter_mut().for_each(param);
        exp(&mut s.exp, s.span)?;
    }
    atoms(&mut b.result);
    Ok(())
}

fn lambda(l: &mut Lambda) -> Result<(), Diagnostic> {
    l.params.iter_mut().for_each(param);
    l.ret.iter_mut().for_each(ty);
    body(&mut l.body)
}

fn index(i: &mut DimIndex) {
    match i {
        DimIndex::Fix(a) => atom(a),
        DimIndex::Slice { start, len, stride } => atoms([start, len, stride]),
    }
}

fn exp(e: &mut Exp, span: Span) -> Result<(), Diagnostic> {
    match e {
        Exp::Atom(a) => atom(a),
        Exp::UnOp(_, t, a) => {
            prim(t);
            atom(a);
        }
        Exp::BinOp(_, t, a, b) | Exp::Cmp(_, t, a, b) => {
            prim(t);
            atoms([a, b]);
        }
        Exp::Convert { from, to, arg } => {
            prim(from);
            prim(to);
            atom(arg);
        }
        Exp::Math(f @ (MathFn::ToBits | MathFn::FromBits), PrimType::Float(FloatType::F64), _) => {
            let name = if *f == MathFn::ToBits { "f64.to_bits" } else { "f64.from_bits" };
            return Err(Diagnostic::new(
                Phase::Lower,
                span,
                format!("`{name}` cannot be computed in f32 (`--f64-as-f32`)"),
            )
            .with_hint("it reinterprets the 64 bits of an f64; run the program without `--f64-as-f32` (on the wasm backend or the interpreter)"));
        }
        Exp::Math(_, t, args) => {
            prim(t);
            atoms(args);
        }
        Exp::Select(c, a, b) => atoms([c, a, b]),
        Exp::Index { idx, .. } => idx.iter_mut().for_each(index),
        Exp::Update { idx, value, .. } => {
            idx.iter_mut().for_each(index);
            atom(value);
        }
        Exp::Iota { n, start, step, .. } => atoms([n, start, step]),
        Exp::Replicate { value, .. } => atom(value),
        Exp::Rearrange { .. } | Exp::Reshape { .. } | Exp::Concat { .. } | Exp::Copy(_) => {}
        Exp::ArrayLit { elems, elem_ty } => {
            atoms(elems);
            ty(elem_ty);
        }
        Exp::Apply { args, .. } => atoms(args),
        Exp::If { cond, then_body, else_body, ret } => {
            atom(cond);
            body(then_body)?;
            body(else_body)?;
            ret.iter_mut().for_each(ty);
        }
        Exp::Loop { params, form, body: b } => {
            for (p, a) in params.iter_mut() {
                param(p);
                atom(a);
            }
            if let LoopForm::For { bound, .. } = form {
                atom(bound);
            }
            body(b)?;
        }
        Exp::Map { w, lam, .. } => {
            atom(w);
            lambda(lam)?;
        }
        Exp::Reduce { w, lam, neutral, .. }
        | Exp::Scan { w, lam, neutral, .. }
        | Exp::Hist { w, lam, neutral, .. } => {
            atom(w);
            lambda(lam)?;
            atoms(neutral);
        }
        Exp::Scatter { w, .. } => atom(w),
        Exp::Assert { cond, vals, .. } => {
            atom(cond);
            atoms(vals);
        }
        Exp::Ad { lam, args, seeds, .. } => {
            lambda(lam)?;
            atoms(args.iter_mut().chain(seeds.iter_mut()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;
    use crate::value::text::parse_values;

    fn demoted(src: &str) -> Result<Program, Diagnostic> {
        f64_as_f32(&driver::compile(src).expect("compiles").ir)
    }

    fn run(src: &str, entry: &str, args: &str) -> Vec<String> {
        let prog = demoted(src).expect("demotes");
        let args: Vec<_> =
            parse_values(args).unwrap().iter().map(crate::value::Value::f64_as_f32).collect();
        crate::interp::run_entry(&prog, entry, &args)
            .expect("runs")
            .iter()
            .map(crate::value::text::format_value)
            .collect()
    }

    #[test]
    fn every_f64_becomes_f32() {
        let src = "entry main (xs: []f64) (k: i64) : (f64, []f64) =
                     (f64.sum (map (\\x -> f64.exp x * 0.1) xs) + f64.i64 k,
                      map (\\x -> x + f64.pi) xs)";
        let prog = demoted(src).unwrap();
        let text = crate::ir::print::print_program(&prog);
        assert!(!text.contains("f64"), "{text}");
        assert_eq!(prog.entries[0].params[0].display, "[]f32");
        assert_eq!(prog.entries[0].results[0].elem, PrimType::Float(FloatType::F32));
        assert!(crate::ir::validate::validate(&prog).is_ok());
        // 0.1 and pi are rounded to f32 once, as constants, and the sums are computed in f32.
        let got = run(src, "main", "[0.0f64, 1.0f64] 2i64");
        let sum: f32 = got[0].strip_suffix("f32").expect("an f32").parse().unwrap();
        assert!((sum - (0.1 + 1.0f32.exp() * 0.1 + 2.0)).abs() < 1e-6, "{sum}");
        let pi = std::f32::consts::PI;
        let f = |x: f32| crate::value::text::format_prim(PrimValue::F32(x));
        assert_eq!(got[1], format!("[{}, {}]", f(pi), f(1.0 + pi)));
    }

    #[test]
    fn derivatives_are_demoted_too() {
        let src = "def f (x: f64) = x * x * 3.0
                   entry main (x: f64) = vjp f x 1.0";
        assert_eq!(run(src, "main", "2.0f64"), ["12.0f32"]);
    }

    #[test]
    fn other_types_stay() {
        let src = "entry main (x: f32) (n: i64) (b: bool) : (f32, i64, bool) = (x * 2, n + 1, !b)";
        let prog = driver::compile(src).unwrap().ir;
        assert_eq!(f64_as_f32(&prog).unwrap(), prog);
    }

    #[test]
    fn bit_reinterpretation_is_an_error_at_its_use() {
        let src = "entry main (x: f64) : u64 =\n  f64.to_bits x";
        let e = demoted(src).unwrap_err();
        assert!(e.message.contains("`f64.to_bits` cannot be computed in f32"), "{}", e.message);
        assert_eq!(e.span.line_col(src).0, 2);
        assert!(!e.hints.is_empty());
    }
}
