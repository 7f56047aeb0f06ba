//! Printing checked programs: each definition with its inferred type, as Futhark writes types
//! (`dotprod : [n]f32 -> [n]f32 -> f32`). This is what `ogham show types` prints.

use crate::syntax::ast::{Dec, Name};

use super::{CheckedProgram, Scheme, Size, Type};

/// Each user definition, one per line: `name : type`.
pub fn print_checked(cp: &CheckedProgram) -> String {
    print_decs(cp, cp.prelude_decs..cp.program.decs.len())
}

/// Each prelude definition, one per line (for documentation and tests).
pub fn print_prelude(cp: &CheckedProgram) -> String {
    print_decs(cp, 0..cp.prelude_decs)
}

fn print_decs(cp: &CheckedProgram, range: std::ops::Range<usize>) -> String {
    let mut out = String::new();
    for i in range {
        let (Some(Dec::Val(v)), Some(Some(s))) = (cp.program.decs.get(i), cp.schemes.get(i)) else {
            continue;
        };
        let names = scheme_names(
            s,
            v.type_params.iter().filter_map(|p| match p {
                crate::syntax::ast::TypeParam::Type { name, .. } => Some(name.clone()),
                _ => None,
            }),
        );
        let kw = if v.entry { "entry " } else { "" };
        out.push_str(&format!("{kw}{} : {}\n", v.name, show_scheme(s, &names)));
    }
    out
}

/// Names for a scheme's type variables: the declared ones first, then `a`, `b`, ...
pub(crate) fn scheme_names(s: &Scheme, declared: impl Iterator<Item = Name>) -> Vec<Name> {
    let mut names: Vec<Name> = declared.collect();
    let mut letters = ('a'..='z').map(|c| c.to_string());
    while names.len() < s.type_params.len() {
        let n = letters
            .by_ref()
            .find(|n| !names.contains(n))
            .unwrap_or_else(|| format!("t{}", names.len()));
        names.push(n);
    }
    names
}

/// A scheme's type; an existential size that occurs once is shown as `[]`, as in a declaration.
pub(crate) fn show_scheme(s: &Scheme, names: &[Name]) -> String {
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    count_sizes(&s.ty, &mut counts);
    let anon: Vec<Name> = counts
        .into_iter()
        .filter(|(n, c)| *c == 1 && super::is_invented(n) && !s.size_params.iter().any(|p| p == n))
        .map(|(n, _)| n.to_string())
        .collect();
    // The result's other existentials are quantified before it, as Futhark writes them:
    // `[n]i32 -> ?[k].([k]i32, [k]i32)`, `?[k].[2*k]i32`.
    let mut t = &s.ty;
    let mut out = String::new();
    while let Type::Arrow { param, from, to } = t {
        write_param(param.as_ref(), from, names, &anon, &mut out);
        out.push_str(" -> ");
        t = to;
    }
    let mut result = std::collections::HashMap::new();
    count_sizes(t, &mut result);
    let mut exist: Vec<&str> = result
        .into_keys()
        .filter(|n| {
            super::is_invented(n)
                && !anon.iter().any(|a| a == n)
                && !s.size_params.iter().any(|p| p == n)
        })
        .collect();
    exist.sort_unstable();
    if !exist.is_empty() {
        out.push('?');
        for n in exist {
            out.push_str(&format!("[{n}]"));
        }
        out.push('.');
    }
    write(t, names, &anon, &mut out, false);
    out
}

/// The parameter of a function type: `(n: i64)` when the result's sizes name it.
fn write_param(param: Option<&Name>, from: &Type, names: &[Name], anon: &[Name], out: &mut String) {
    match param {
        Some(p) => {
            out.push_str(&format!("({p}: "));
            write(from, names, anon, out, false);
            out.push(')');
        }
        None => write(from, names, anon, out, true),
    }
}

fn count_sizes<'t>(t: &'t Type, counts: &mut std::collections::HashMap<&'t str, usize>) {
    match t {
        Type::Array { shape, elem, .. } => {
            for d in shape {
                // A name inside a computed size is printed by name, never as `[]`.
                let weight = if d.is_computed() { 2 } else { 1 };
                for n in d.names() {
                    *counts.entry(n.as_str()).or_default() += weight;
                }
            }
            count_sizes(elem, counts);
        }
        Type::Tuple(ts) => ts.iter().for_each(|t| count_sizes(t, counts)),
        Type::Record(fs) => fs.values().for_each(|t| count_sizes(t, counts)),
        Type::Sum(cs) => cs.values().flatten().for_each(|t| count_sizes(t, counts)),
        Type::Arrow { from, to, .. } => {
            count_sizes(from, counts);
            count_sizes(to, counts);
        }
        Type::Prim(_) | Type::Var(_) => {}
    }
}

/// A type in Futhark's syntax; type variable `i` is printed as `names[i]`.
pub fn show_type(t: &Type, names: &[Name]) -> String {
    let mut out = String::new();
    write(t, names, &[], &mut out, false);
    out
}

/// `anon`: sizes to print as `[]`.
fn write(t: &Type, names: &[Name], anon: &[Name], out: &mut String, atom: bool) {
    match t {
        Type::Prim(p) => out.push_str(p.name()),
        Type::Var(v) => match names.get(v.0 as usize) {
            Some(n) => out.push_str(n),
            None => out.push_str(&format!("t{}", v.0)),
        },
        Type::Array { shape, elem, unique } => {
            if *unique {
                out.push('*');
            }
            for d in shape {
                match d {
                    Size::Const(n) => out.push_str(&format!("[{n}]")),
                    Size::Var(n) if anon.contains(n) => out.push_str("[]"),
                    Size::Var(n) => out.push_str(&format!("[{n}]")),
                    Size::Unknown(_) => out.push_str("[]"),
                    d => out.push_str(&format!("[{d}]")),
                }
            }
            write(elem, names, anon, out, true);
        }
        Type::Tuple(ts) => {
            out.push('(');
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(t, names, anon, out, false);
            }
            out.push(')');
        }
        Type::Record(fs) => {
            out.push('{');
            for (i, (n, t)) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(n);
                out.push_str(": ");
                write(t, names, anon, out, false);
            }
            out.push('}');
        }
        Type::Sum(cs) => {
            if atom {
                out.push('(');
            }
            for (i, (c, ts)) in cs.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                out.push('#');
                out.push_str(c);
                for t in ts {
                    out.push(' ');
                    write(t, names, anon, out, true);
                }
            }
            if atom {
                out.push(')');
            }
        }
        Type::Arrow { param, from, to } => {
            if atom {
                out.push('(');
            }
            write_param(param.as_ref(), from, names, anon, out);
            out.push_str(" -> ");
            write(to, names, anon, out, false);
            if atom {
                out.push(')');
            }
        }
    }
}
