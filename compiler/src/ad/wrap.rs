//! Generated entry points that differentiate another entry point with respect to all of its
//! parameters: `jvp`/`vjp` applied to it, written as source so that they go through the same
//! checking, lowering and differentiation as user code. Gradient checking runs them; the
//! playground's Derivative pane and `ogham show ad --vjp|--jvp` print them after AD.

use crate::diag::{Diagnostic, Phase, Span};
use crate::ir::{AdMode, EntryPoint, EntryShape, EntryType};
use crate::prim::PrimType;

fn src_type(t: &EntryType) -> String {
    format!("{}{}", "[]".repeat(t.rank), t.elem.name())
}

/// Can `entry` be differentiated: does it take a float parameter?
pub fn differentiable(entry: &EntryPoint) -> Result<(), Diagnostic> {
    if entry.param_shapes.iter().chain([&entry.result_shape]).any(EntryShape::has_sum) {
        return Err(Diagnostic::new(
            Phase::Value,
            Span::DUMMY,
            format!(
                "entry point `{}` takes or returns a sum type: differentiating it as a whole is not supported",
                entry.name
            ),
        )
        .with_hint("differentiate a function of its float arguments with `jvp` or `vjp` in the program"));
    }
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
    // The entry's source-level arguments from the values, and its result as values.
    // An argument the entry consumes (a unique parameter) is a copy: the function's own
    // parameters are not unique.
    let mut leaves = xs.iter().cloned();
    let mut first = 0;
    let args: Vec<String> = entry
        .param_shapes
        .iter()
        .map(|s| {
            let arg = assemble(s, &mut leaves, 0);
            let values = entry.params.get(first..first + s.leaves()).unwrap_or_default();
            first += s.leaves();
            if values.iter().any(|t| t.unique) {
                format!("(copy {arg})")
            } else {
                arg
            }
        })
        .collect();
    let call = format!("{} {}", entry.name, args.join(" "));
    let body = match &entry.result_shape {
        EntryShape::Leaf => call,
        EntryShape::Tuple(ss) if ss.iter().all(|s| *s == EntryShape::Leaf) => call,
        shape => {
            let parts = flatten(shape, "r_", 0);
            let tuple =
                if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(", ")) };
            format!("let r_ = {call} in {tuple}")
        }
    };
    let f = format!("(\\{pat} -> {body})");
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

/// The source-level value of `shape` made of the next values named by `names`: tuples and
/// records built from their components, an array of them by indexing each component's array.
fn assemble(shape: &EntryShape, names: &mut dyn Iterator<Item = String>, depth: usize) -> String {
    match shape {
        EntryShape::Leaf => names.next().unwrap_or_default(),
        EntryShape::Tuple(ss) => {
            let parts: Vec<String> = ss.iter().map(|s| assemble(s, names, depth)).collect();
            format!("({})", parts.join(", "))
        }
        EntryShape::Record(fs) => {
            let parts: Vec<String> =
                fs.iter().map(|(n, s)| format!("{n} = {}", assemble(s, names, depth))).collect();
            format!("{{{}}}", parts.join(", "))
        }
        EntryShape::Array(rank, inner) => {
            let arrays: Vec<String> = names.take(inner.leaves()).collect();
            let first = arrays.first().cloned().unwrap_or_default();
            let is: Vec<String> = (0..*rank).map(|k| format!("i{}_", depth + k)).collect();
            let index = is.join(", ");
            let mut elems = arrays.iter().map(|a| format!("{a}[{index}]"));
            let mut out = assemble(inner, &mut elems, depth + rank);
            for k in (0..*rank).rev() {
                let outer =
                    if k == 0 { first.clone() } else { format!("{first}[{}]", is[..k].join(", ")) };
                out = format!("(map (\\{} -> {out}) (indices {outer}))", is[k]);
            }
            out
        }
        // `differentiable` turns these away before any source is built.
        EntryShape::Sum(_) => String::new(),
    }
}

/// The values of `expr`, of source-level shape `shape`, as expressions: components projected,
/// an array of tuples or records mapped to one array per component.
fn flatten(shape: &EntryShape, expr: &str, depth: usize) -> Vec<String> {
    match shape {
        EntryShape::Leaf => vec![expr.to_string()],
        EntryShape::Tuple(ss) => ss
            .iter()
            .enumerate()
            .flat_map(|(i, s)| flatten(s, &format!("({expr}).{i}"), depth))
            .collect(),
        EntryShape::Record(fs) => {
            fs.iter().flat_map(|(n, s)| flatten(s, &format!("({expr}).{n}"), depth)).collect()
        }
        EntryShape::Array(rank, inner) => {
            let y = format!("y{depth}_");
            flatten(inner, &y, depth + 1)
                .into_iter()
                .map(|g| {
                    let mut f = format!("(\\{y} -> {g})");
                    for _ in 1..*rank {
                        f = format!("(map {f})");
                    }
                    // Piped, so the checker knows the element type at the projection.
                    format!("(({expr}) |> map {f})")
                })
                .collect()
        }
        EntryShape::Sum(_) => Vec::new(),
    }
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
    fn consumed_arguments_are_copies() {
        let src = "entry f (xs: *[3]f32) (p: (*[2]f32, f32)) (ys: [3]f32) : [3]f32 =
  let xs[0] = p.1 let (zs, _) = p let zs[1] = 0 in map2 (+) xs ys with [2] = zs[0]\n";
        let e = entry(src, "f");
        let jvp = wrapper_source(&e, "f_jvp", AdMode::Jvp).unwrap();
        assert!(jvp.contains("f (copy x0) (copy (x1, x2)) x3)"), "{jvp}");
        let vjp = wrapper_source(&e, "f_vjp", AdMode::Vjp).unwrap();
        let both = format!("{src}\n{jvp}\n{vjp}");
        driver::compile(&both).unwrap_or_else(|d| panic!("{d:?}\n{both}"));
    }

    #[test]
    fn wrappers_of_tuples_records_and_arrays_of_them() {
        let src = "entry f [n] (ps: [n](f32, {a: f32, b: [2](f32, i32)})) (w: {k: f32}) : ([n]f32, {s: f32, t: [n](f32, f32)}) =
  (map (\\(x, r) -> x * r.a * w.k) ps, {s = f32.sum (map (.0) ps), t = map (\\(x, r) -> (r.b[0].0, x)) ps})\n";
        let e = entry(src, "f");
        assert_eq!(e.params.len(), 5);
        assert_eq!(e.results.len(), 4);
        let jvp = wrapper_source(&e, "f_jvp", AdMode::Jvp).unwrap();
        let vjp = wrapper_source(&e, "f_vjp", AdMode::Vjp).unwrap();
        let both = format!("{src}\n{jvp}\n{vjp}");
        let c = driver::compile(&both).unwrap_or_else(|d| panic!("{d:?}\n{both}"));
        assert_eq!(c.ir.entry("f_jvp").map(|e| e.params.len()), Some(10));
        assert_eq!(c.ir.entry("f_vjp").map(|e| e.results.len()), Some(5));
    }

    #[test]
    fn an_entry_without_float_parameters_is_not_differentiable() {
        let e = entry("entry g (n: i64) : []f32 = replicate n 1f32\n", "g");
        let d = wrapper_source(&e, "g_vjp", AdMode::Vjp).unwrap_err();
        assert!(d.message.contains("no float parameters"), "{}", d.message);
    }

    #[test]
    fn an_entry_of_sum_types_is_not_differentiated_whole() {
        let src =
            "type t = #a f32 | #b\nentry g (x: t) : f32 = match x case #a y -> y case #b -> 0\n";
        let d = wrapper_source(&entry(src, "g"), "g_vjp", AdMode::Vjp).unwrap_err();
        assert!(d.message.contains("sum type"), "{}", d.message);
        let src = "entry h (x: f32) : #a f32 | #b = #a x\n";
        let d = wrapper_source(&entry(src, "h"), "h_jvp", AdMode::Jvp).unwrap_err();
        assert!(d.message.contains("sum type"), "{}", d.message);
    }

    #[test]
    fn fresh_names_avoid_the_source() {
        assert_eq!(fresh_name("entry main_vjp = 1", "main_vjp"), "main_vjp_");
        assert_eq!(fresh_name("entry main = 1", "main_vjp"), "main_vjp");
    }
}
