//! Dead reads and updates become their bounds checks. Dead-code removal keeps an `Index` or
//! `Update` whose result nothing uses, since it may fail (out of bounds), and with it the array
//! it reads: in derivative code that can be a whole adjoint array built per element. With fixed
//! indices the bounds check is all that can fail, so the check replaces the statement, with the
//! message the interpreter gives for the failing access; indices that are constants inside
//! constant dimensions need no check at all. Likewise an element of a `replicate` (or of a
//! `map` result that is the same for every element) is its value after the check, so the array
//! need not exist for it.

use std::collections::{HashMap, HashSet};

use crate::ir::lower::rewrite::mentioned;
use crate::ir::*;
use crate::prim::{PrimType, PrimValue};

/// Rewrite the dead fixed-index reads and updates of every function of `prog`; whether any
/// was.
pub fn dead_bounds(prog: &mut Program) -> bool {
    let mut changed = false;
    for f in &mut prog.funs {
        let mut types: HashMap<Var, Type> =
            f.params.iter().map(|p| (p.var, p.ty.clone())).collect();
        crate::ad::walk::body_types(&f.body, &mut types);
        let mut reps = HashMap::new();
        replicates(&f.body, &mut reps);
        let ranges = crate::ir::ranges::index_ranges(&f.body);
        let cx = Cx { types: &types, reps: &reps, ranges: &ranges, first_new: prog.names.len() };
        body(&mut f.body, &cx, &mut prog.names, &mut changed);
    }
    changed
}

/// What the rewrite of a function knows: every variable's type, the rank and value of every
/// `replicate`, and the first variable it made.
struct Cx<'a> {
    types: &'a HashMap<Var, Type>,
    reps: &'a HashMap<Var, (usize, Atom)>,
    /// Variables known to lie in `[0, d)` (`ir::ranges`).
    ranges: &'a HashMap<Var, Dim>,
    first_new: usize,
}

/// The arrays bound by a `replicate`, anywhere in `b`, with the number of dimensions it adds
/// and its value; and the results of `map`s whose function returns the same scalar for every
/// element (a constant or a variable bound outside it: `map (\x -> (r, x)) xs` pairs each
/// element with `r`), which are replicates of that scalar.
fn replicates(b: &Body, out: &mut HashMap<Var, (usize, Atom)>) {
    for s in &b.stms {
        if let ([p], Exp::Replicate { shape, value }) = (s.pat.as_slice(), &s.exp) {
            out.insert(p.var, (shape.len(), *value));
        }
        if let Exp::Map { lam, .. } = &s.exp {
            let mut inner: HashSet<Var> = lam.params.iter().map(|p| p.var).collect();
            let mut body = lam.body.clone();
            crate::ad::walk::body_vars(&mut body, &mut |v, binder| {
                if binder {
                    inner.insert(*v);
                }
            });
            for ((p, r), t) in s.pat.iter().zip(&lam.body.result).zip(&lam.ret) {
                let invariant = match r {
                    Atom::Const(_) => true,
                    Atom::Var(v) => !inner.contains(v),
                };
                if invariant && matches!(t, Type::Prim(_)) {
                    out.insert(p.var, (1, *r));
                }
            }
        }
        crate::ir::lower::rewrite::for_each_body(&s.exp, &mut |b| replicates(b, out));
    }
}

fn body(b: &mut Body, cx: &Cx, names: &mut Vec<String>, changed: &mut bool) {
    let types = cx.types;
    let mut used: HashSet<Var> = b.result.iter().filter_map(Atom::as_var).collect();
    let mut out: Vec<Stm> = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms).into_iter().rev() {
        let dead = !s.pat.is_empty() && s.pat.iter().all(|p| !used.contains(&p.var));
        let rep = match (&s.exp, s.pat.as_slice()) {
            (Exp::Index { arr, idx }, [p]) => cx.reps.get(arr).copied().and_then(|(rank, v)| {
                (rank == idx.len() && atom_type(&v, types).as_ref() == Some(&p.ty)).then_some(v)
            }),
            _ => None,
        };
        if dead || rep.is_some() {
            if let Some(mut checks) = bounds_check(&s, types, cx.ranges, names) {
                *changed = true;
                if let (false, Some(v)) = (dead, rep) {
                    checks.push(Stm { pat: s.pat.clone(), exp: Exp::Atom(v), span: s.span });
                }
                for c in checks.into_iter().rev() {
                    used.extend(mentioned(&c));
                    out.push(c);
                }
                continue;
            }
        }
        match &mut s.exp {
            Exp::If { then_body, else_body, .. } => {
                body(then_body, cx, names, changed);
                body(else_body, cx, names, changed);
            }
            Exp::Loop { body: lb, .. } => body(lb, cx, names, changed),
            Exp::Map { lam, .. }
            | Exp::Reduce { lam, .. }
            | Exp::Scan { lam, .. }
            | Exp::Hist { lam, .. } => body(&mut lam.body, cx, names, changed),
            _ => {}
        }
        used.extend(mentioned(&s));
        out.push(s);
    }
    out.reverse();
    // A check made here like one before it in the same body always passes (the values cannot
    // change); the variables from `cx.first_new` on are the conditions made here.
    let mut seen: Vec<(&String, &Vec<Atom>)> = Vec::new();
    let keep: Vec<bool> = out
        .iter()
        .map(|s| match &s.exp {
            Exp::Assert { cond: Atom::Var(c), msg, vals } if c.0 as usize >= cx.first_new => {
                let dup = seen.contains(&(msg, vals));
                seen.push((msg, vals));
                !dup
            }
            _ => true,
        })
        .collect();
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(true));
    b.stms = out;
}

fn atom_type(a: &Atom, types: &HashMap<Var, Type>) -> Option<Type> {
    match a {
        Atom::Var(v) => types.get(v).cloned(),
        Atom::Const(c) => Some(Type::Prim(c.ty())),
    }
}

/// The statements checking the bounds of `s`, a read or update with fixed `i64` indices (none
/// when they are constants inside constant dimensions); `None` for anything else, or for an
/// access that always fails (left as it is).
pub(super) fn bounds_check(
    s: &Stm,
    types: &HashMap<Var, Type>,
    ranges: &HashMap<Var, Dim>,
    names: &mut Vec<String>,
) -> Option<Vec<Stm>> {
    let (Exp::Index { arr, idx } | Exp::Update { arr, idx, .. }) = &s.exp else { return None };
    let Some(Type::Array { shape, .. }) = types.get(arr) else { return None };
    if idx.len() > shape.len() {
        return None;
    }
    let mut ix = Vec::new();
    for d in idx {
        let DimIndex::Fix(a) = d else { return None };
        let is_i64 = match a {
            Atom::Const(c) => matches!(c, PrimValue::I64(_)),
            Atom::Var(v) => types.get(v) == Some(&Type::Prim(PrimType::I64)),
        };
        if !is_i64 {
            return None;
        }
        ix.push(*a);
    }
    let span = s.span;
    let mut stms = Vec::new();
    let mut fresh = |exp: Exp, stms: &mut Vec<Stm>| {
        names.push("in_bounds".to_string());
        let v = Var(names.len() as u32 - 1);
        stms.push(Stm { pat: vec![Param { var: v, ty: Type::Prim(PrimType::Bool) }], exp, span });
        Atom::Var(v)
    };
    let mut cond: Option<Atom> = None;
    for (i, d) in ix.iter().zip(shape) {
        if matches!(i, Atom::Var(v) if ranges.get(v) == Some(d)) {
            continue;
        }
        if let (Atom::Const(c), Dim::Const(k)) = (i, d) {
            let c = c.as_i64()?;
            if (0..*k).contains(&c) {
                continue;
            }
            return None;
        }
        let dim = match d {
            Dim::Const(k) => Atom::Const(PrimValue::I64(*k)),
            Dim::Var(v) => Atom::Var(*v),
        };
        let ge = fresh(
            Exp::Cmp(CmpOp::Le, PrimType::I64, Atom::Const(PrimValue::I64(0)), *i),
            &mut stms,
        );
        let lt = fresh(Exp::Cmp(CmpOp::Lt, PrimType::I64, *i, dim), &mut stms);
        let both = fresh(Exp::BinOp(BinOp::LogAnd, PrimType::Bool, ge, lt), &mut stms);
        cond = Some(match cond {
            None => both,
            Some(c) => fresh(Exp::BinOp(BinOp::LogAnd, PrimType::Bool, c, both), &mut stms),
        });
    }
    let Some(cond) = cond else { return Some(Vec::new()) };
    let places: Vec<&str> = ix.iter().map(|_| "{}").collect();
    let msg = format!(
        "index [{}] out of bounds for array of shape {}",
        places.join(", "),
        "[{}]".repeat(shape.len())
    );
    let mut vals = ix;
    vals.extend(shape.iter().map(|d| match d {
        Dim::Const(k) => Atom::Const(PrimValue::I64(*k)),
        Dim::Var(v) => Atom::Var(*v),
    }));
    stms.push(Stm { pat: Vec::new(), exp: Exp::Assert { cond, msg, vals }, span });
    Some(stms)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{compile, run};

    // `simplify` runs on programs with derivatives, so the tests take one.

    /// A dead read keeps only its bounds check, which fails as the read would have; a second
    /// read at the same index needs no second check.
    #[test]
    fn dead_read_becomes_its_check() {
        let (c, ir) = compile(
            "entry f (xs: []f64) (i: i64) : f64 =
  vjp (\\x -> let _ = xs[i] let _ = xs[i] + 1 in x * 2) 1 1",
        );
        assert!(!ir.lines().any(|l| l.contains(": f64 = xs_")), "{ir}");
        assert_eq!(ir.matches("out of bounds").count(), 1, "{ir}");
        assert_eq!(run(&c, "f", "[1.0, 2.0] 1i64").as_deref(), Ok("2.0f64"));
        let e = run(&c, "f", "[1.0, 2.0] 2i64").expect_err("out of bounds");
        assert!(e.contains("index [2] out of bounds for array of shape [2]"), "{e}");
        let e = run(&c, "f", "[1.0, 2.0] -1i64").expect_err("out of bounds");
        assert!(e.contains("index [-1] out of bounds for array of shape [2]"), "{e}");
    }

    /// A dead update of a fresh array: the array and the update go, the check stays.
    #[test]
    fn dead_update_becomes_its_check() {
        let src = "entry g (n: i64) (i: i64) (j: i64) : f64 =
  vjp (\\x -> let a = replicate n (replicate 3 x)
              let _ = a with [i, j] = 1
              in x * 2) 1 1";
        let (c, ir) = compile(src);
        assert!(!ir.contains("replicate") && !ir.contains(" with "), "{ir}");
        assert_eq!(run(&c, "g", "2i64 1i64 2i64").as_deref(), Ok("2.0f64"));
        let e = run(&c, "g", "2i64 1i64 3i64").expect_err("out of bounds");
        assert!(e.contains("index [1, 3] out of bounds for array of shape [2][3]"), "{e}");
    }

    /// An element of a `replicate` is its value, after the bounds check.
    #[test]
    fn replicate_element_is_its_value() {
        let src = "entry r (n: i64) (i: i64) (x: f64) : f64 =
  vjp (\\x -> let zs = replicate n x in zs[i] * zs[i]) x 1";
        let (c, ir) = compile(src);
        assert!(!ir.lines().any(|l| l.contains(": f64 = zs_")), "{ir}");
        assert_eq!(run(&c, "r", "3i64 2i64 1.5").as_deref(), Ok("3.0f64"));
        let e = run(&c, "r", "3i64 3i64 1.5").expect_err("out of bounds");
        assert!(e.contains("index [3] out of bounds for array of shape [3]"), "{e}");
    }

    /// An element of a map's result that is the same for every element is that value, after
    /// the bounds check.
    #[test]
    fn an_element_of_an_invariant_map_result_is_its_value() {
        let src = "entry r [n] (xs: [n]f64) (i: i64) (x: f64) : f64 =
  vjp (\\x -> let (zs, ys) = unzip (map (\\y -> (x, y)) xs) in zs[i] * zs[i] + ys[i]) x 1";
        let (c, ir) = compile(src);
        assert!(!ir.lines().any(|l| l.contains(": f64 = zs_")), "{ir}");
        assert_eq!(run(&c, "r", "[1.0, 2.0, 3.0] 2i64 1.5").as_deref(), Ok("3.0f64"));
        let e = run(&c, "r", "[1.0, 2.0, 3.0] 3i64 1.5").expect_err("out of bounds");
        assert!(e.contains("index [3] out of bounds for array of shape [3]"), "{e}");
    }

    /// Constant indices inside constant dimensions need no check.
    #[test]
    fn reads_at_iota_elements_and_loop_counters_need_no_check() {
        // `i` takes the elements of `iota n` and `k` counts below `n`: both index `[n]`.
        let (c, ir) = compile(
            "entry h [n] (xs: [n]f64) : f64 =
               vjp (\\x -> let _ = map (\\i -> xs[i]) (iota n)
                           let _ = loop a = 0f64 for k < n do a + xs[k]
                           in x * 2) 1 1",
        );
        assert!(!ir.contains("out of bounds"), "{ir}");
        assert_eq!(run(&c, "h", "[1.0, 2.0, 3.0]").as_deref(), Ok("2.0f64"));
        // `i + 1` may be `n`: its check stays.
        let (c, ir) = compile(
            "entry h [n] (xs: [n]f64) : f64 =
               vjp (\\x -> let _ = map (\\i -> xs[i + 1]) (iota n) in x * 2) 1 1",
        );
        assert!(ir.contains("out of bounds"), "{ir}");
        assert!(run(&c, "h", "[1.0, 2.0, 3.0]").unwrap_err().contains("out of bounds"));
    }

    #[test]
    fn constant_in_bounds_read_goes() {
        let (c, ir) =
            compile("entry h (xs: [3]f64) : f64 = vjp (\\x -> let _ = xs[2] in x * 2) 1 1");
        assert!(!ir.contains("out of bounds") && !ir.contains("[2i64]"), "{ir}");
        assert_eq!(run(&c, "h", "[1.0, 2.0, 3.0]").as_deref(), Ok("2.0f64"));
    }
}
