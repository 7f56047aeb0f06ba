//! Generated entry points that differentiate another entry point with respect to all of its
//! parameters: `jvp`/`vjp` applied to it, written as source so that they go through the same
//! checking, lowering and differentiation as user code. Gradient checking runs them; the
//! playground's Derivative pane and `ogham show ad --vjp|--jvp` print them after AD.

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::{AdMode, EntryPoint, EntryType};
use crate::prim::PrimType;

fn src_type(t: &EntryType) -> String {
    format!("{}{}", "[]".repeat(t.rank), t.elem.name())
}

/// Can `entry` be differentiated: does it take a float parameter?
pub fn differentiable(entry: &EntryPoint) -> Result<(), Diagnostic> {
    if entry.params.iter().any(|t| matches!(t.elem, PrimType::Float(_))) {
        Ok(())
    } else {
        Err(Diagnostic::new(
            Phase::Value,
            Span::DUMMY,
            format!("entry point `{}` has no float parameters to differentiate", entry.name),
        ))
    }
}

/// A name starting with `base` that occurs nowhere in `src` (so it cannot clash with a definition).
pub fn fresh_name(src: &str, base: &str) -> String {
    let mut name = base.to_string();
    while src.contains(&name) {
        name.push('_');
    }
    name
}

/// Source for `entry NAME` computing the `mode` derivative of `entry` at its arguments: for
/// [`AdMode::Jvp`] it takes the arguments `x0..` then one tangent `t0..` per parameter, for
/// [`AdMode::Vjp`] the arguments then one result adjoint `s0..` per result. Arguments and seeds
/// are copied, since `jvp`/`vjp` may consume them and entry parameters are not unique.
pub fn wrapper_source(entry: &EntryPoint, name: &str, mode: AdMode) -> Result<String, Diagnostic> {
    differentiable(entry)?;
    let names =
        |pre: &str, n: usize| -> Vec<String> { (0..n).map(|i| format!("{pre}{i}")).collect() };
    let decl = |names: &[String], ts: &[EntryType]| -> String {
        names.iter().zip(ts).map(|(n, t)| format!(" ({n}: {})", src_type(t))).collect()
    };
    let tuple = |names: &[String]| -> String {
        let copies: Vec<String> = names.iter().map(|n| format!("copy {n}")).collect();
        if copies.len() == 1 {
            format!("({})", copies[0])
        } else {
            format!("({})", copies.join(", "))
        }
    };
    let xs = names("x", entry.params.len());
    let pat = if xs.len() == 1 { xs[0].clone() } else { format!("({})", xs.join(", ")) };
    let f = format!("(\\{pat} -> {} {})", entry.name, xs.join(" "));
    let (word, seeds, seed_types) = match mode {
        AdMode::Jvp => ("jvp", names("t", entry.params.len()), &entry.params),
        AdMode::Vjp => ("vjp", names("s", entry.results.len()), &entry.results),
    };
    Ok(format!(
        "entry {name}{}{} = {word} {f} {} {}\n",
        decl(&xs, &entry.params),
        decl(&seeds, seed_types),
        tuple(&xs),
        tuple(&seeds)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;

    fn entry(src: &str, name: &str) -> EntryPoint {
        let c = driver::compile(src).expect("compiles");
        c.ir.entry(name).expect("entry").clone()
    }

    #[test]
    fn wrappers_check_and_differentiate() {
        let src = "entry f (xs: []f32) (k: i32) : (f32, []f32) = (reduce (+) 0 xs, map (* 2) xs)\n";
        let e = entry(src, "f");
        let jvp = wrapper_source(&e, "f_jvp", AdMode::Jvp).unwrap();
        assert_eq!(
            jvp,
            "entry f_jvp (x0: []f32) (x1: i32) (t0: []f32) (t1: i32) = \
             jvp (\\(x0, x1) -> f x0 x1) (copy x0, copy x1) (copy t0, copy t1)\n"
        );
        let vjp = wrapper_source(&e, "f_vjp", AdMode::Vjp).unwrap();
        assert!(vjp.contains("(s0: f32) (s1: []f32) = vjp"), "{vjp}");
        let both = format!("{src}\n{jvp}\n{vjp}");
        let c = driver::compile(&both).expect("the wrappers check");
        assert!(c.ir.entry("f_jvp").is_some() && c.ir.entry("f_vjp").is_some());
    }

    #[test]
    fn an_entry_without_float_parameters_is_not_differentiable() {
        let e = entry("entry g (n: i64) : []f32 = replicate n 1f32\n", "g");
        let d = wrapper_source(&e, "g_vjp", AdMode::Vjp).unwrap_err();
        assert!(d.message.contains("no float parameters"), "{}", d.message);
    }

    #[test]
    fn fresh_names_avoid_the_source() {
        assert_eq!(fresh_name("entry main_vjp = 1", "main_vjp"), "main_vjp_");
        assert_eq!(fresh_name("entry main = 1", "main_vjp"), "main_vjp");
    }
}
