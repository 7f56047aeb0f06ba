//! Inlining of the functions that a `map`'s function does nothing but call:
//! `map (\c -> dist2 p c) cs` becomes `map (\c -> <dist2's body>) cs`. A backend then sees the
//! loops inside (the wasm backend vectorises and register-blocks them) instead of a call per
//! element. Only leaf functions (no calls inside) without existential sizes are inlined, so code
//! grows by at most one copy of a small function per such `map`; their variables are renamed,
//! so every variable stays bound once in the program.

use std::collections::HashMap;

use crate::ad::walk;
use crate::ir::*;

/// Inline, in place, every call that is the whole function of a `map` (see the module's comment).
pub fn inline_map_calls(prog: &mut Program) {
    let leaves: Vec<bool> =
        prog.funs.iter().map(|f| f.existentials == 0 && !calls(&f.body)).collect();
    let callees: Vec<Option<FunDef>> =
        prog.funs.iter().zip(&leaves).map(|(f, leaf)| leaf.then(|| f.clone())).collect();
    let mut names = std::mem::take(&mut prog.names);
    for f in &mut prog.funs {
        super::rewrite_maps(&mut f.body, &mut |lam| {
            inline_lambda(lam, &callees, &mut names);
            Vec::new()
        });
    }
    prog.names = names;
}

fn calls(b: &Body) -> bool {
    b.stms.iter().any(|s| {
        let mut found = matches!(s.exp, Exp::Apply { .. });
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| found |= calls(b));
        found
    })
}

/// `\ps -> let rs = f(args) in rs` with `f` a leaf becomes `\ps -> <f's body, renamed>`.
fn inline_lambda(lam: &mut Lambda, callees: &[Option<FunDef>], names: &mut Vec<String>) {
    let [s] = lam.body.stms.as_slice() else { return };
    let Exp::Apply { fun, args } = &s.exp else { return };
    let Some(Some(callee)) = callees.get(*fun) else { return };
    let returns_call = lam.body.result.len() == s.pat.len()
        && lam.body.result.iter().zip(&s.pat).all(|(r, p)| *r == Atom::Var(p.var));
    if !returns_call || args.len() != callee.params.len() {
        return;
    }
    let fresh = |v: Var, names: &mut Vec<String>| {
        let name = names.get(v.0 as usize).cloned().unwrap_or_default();
        names.push(name);
        Var(names.len() as u32 - 1)
    };
    let mut map = HashMap::new();
    let mut stms = Vec::new();
    for (p, a) in callee.params.iter().zip(args) {
        match a {
            Atom::Var(v) => {
                map.insert(p.var, *v);
            }
            // A constant argument (a scalar: sizes are variables in types) gets a binding.
            Atom::Const(_) => {
                let v = fresh(p.var, names);
                map.insert(p.var, v);
                stms.push(Stm {
                    pat: vec![Param { var: v, ty: p.ty.clone() }],
                    exp: Exp::Atom(*a),
                    span: s.span,
                });
            }
        }
    }
    let mut inlined = callee.body.clone();
    walk::body_vars(&mut inlined, &mut |v, binder| {
        if binder && !map.contains_key(v) {
            let w = fresh(*v, names);
            map.insert(*v, w);
        }
    });
    walk::body_vars(&mut inlined, &mut |v, _| {
        if let Some(w) = map.get(v) {
            *v = *w;
        }
    });
    stms.extend(inlined.stms);
    lam.body = Body { stms, result: inlined.result };
}

#[cfg(test)]
mod tests {
    use crate::driver;
    use crate::ir::print::print_program;

    fn inlined(src: &str) -> String {
        let mut prog = driver::compile(src).unwrap().ir;
        super::inline_map_calls(&mut prog);
        print_program(&prog)
    }

    #[test]
    fn a_map_that_only_calls_a_leaf_function_gets_its_body() {
        let out = inlined(
            "def dist2 [d] (a: [d]f32) (b: [d]f32) : f32 = f32.sum (map2 (\\x y -> (x - y) * (x - y)) a b)
             entry main [k][d] (cs: [k][d]f32) (p: [d]f32) : [k]f32 = map (dist2 p) cs",
        );
        let main = &out[out.find("fun main").unwrap()..];
        assert!(!main.contains("dist2("), "not inlined:\n{out}");
        assert!(main.contains("reduce_comm"), "no reduction in main:\n{out}");
    }

    #[test]
    fn functions_that_call_others_and_calls_among_other_work_stay_calls() {
        let out = inlined(
            "def sq (x: f32) : f32 = x * x
             def f (x: f32) : f32 = sq x + 1
             entry main (xs: []f32) : ([]f32, []f32) = (map f xs, map (\\x -> sq x + 2) xs)",
        );
        let main = &out[out.find("fun main").unwrap()..];
        assert!(main.contains("f("), "a function with calls was inlined:\n{out}");
        assert!(main.contains("sq("), "a call among other statements was inlined:\n{out}");
    }

    #[test]
    fn constant_arguments_are_bound() {
        let out = inlined(
            "def scale (k: f32) (x: f32) : f32 = k * x
             entry main (xs: []f32) : []f32 = map (scale 2) xs",
        );
        let main = &out[out.find("fun main").unwrap()..];
        assert!(!main.contains("scale("), "not inlined:\n{out}");
    }
}
