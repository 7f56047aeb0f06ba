//! The built-in functions the checker knows by signature and lowering implements directly.
//!
//! Everything else in the prelude is ordinary source (`prelude.fut`), type-checked and lowered like
//! user code. A signature is written in Futhark's `val` syntax without the `val name` part:
//! type and size parameters, then `:`, then the type (see `syntax::parse_val_spec`).
//!
//! Numeric modules (`f32.sqrt`, `i64.sum`, `f32.i64`, `f64.pi`) are generated per primitive type by
//! [`numeric_members`]; their members are named `"<module>.<member>"`, as the parser produces them.

use crate::prim::{FloatType, PrimType};

/// One built-in value: its full name and its signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    pub name: String,
    pub sig: String,
}

/// The array and higher-order built-ins, with Futhark's types. Where Futhark uses size arithmetic
/// (`[n*m]`, `[n+m]`, `[n-i]`) the result is an existentially sized `[]t` here (see
/// docs/ARCHITECTURE.md, Decisions).
pub const ARRAY_INTRINSICS: &[(&str, &str)] = &[
    ("map", "'a [n] 'x : (f: a -> x) -> (as: [n]a) -> *[n]x"),
    ("reduce", "[n] 'a : (op: a -> a -> a) -> (ne: a) -> (as: [n]a) -> a"),
    ("reduce_comm", "[n] 'a : (op: a -> a -> a) -> (ne: a) -> (as: [n]a) -> a"),
    ("scan", "[n] 'a : (op: a -> a -> a) -> (ne: a) -> (as: [n]a) -> *[n]a"),
    ("filter", "[n] 'a : (p: a -> bool) -> (as: [n]a) -> *[]a"),
    ("partition", "[n] 'a : (p: a -> bool) -> (as: [n]a) -> ([]a, []a)"),
    ("scatter", "'t [k] [n] : (dest: *[k]t) -> (is: [n]i64) -> (vs: [n]t) -> *[k]t"),
    (
        "scatter_2d",
        "'t [m] [k] [n] : (dest: *[m][k]t) -> (is: [n](i64, i64)) -> (vs: [n]t) -> *[m][k]t",
    ),
    (
        "scatter_3d",
        "'t [m] [k] [l] [n] : (dest: *[m][k][l]t) -> (is: [n](i64, i64, i64)) -> (vs: [n]t) \
         -> *[m][k][l]t",
    ),
    (
        "reduce_by_index",
        "'a [k] [n] : (dest: *[k]a) -> (f: a -> a -> a) -> (ne: a) -> (is: [n]i64) -> (as: [n]a) \
         -> *[k]a",
    ),
    (
        "hist",
        "'a [n] : (op: a -> a -> a) -> (ne: a) -> (k: i64) -> (is: [n]i64) -> (as: [n]a) -> *[k]a",
    ),
    ("zip", "[n] 'a 'b : (as: [n]a) -> (bs: [n]b) -> *[n](a, b)"),
    ("zip3", "[n] 'a 'b 'c : (as: [n]a) -> (bs: [n]b) -> (cs: [n]c) -> *[n](a, b, c)"),
    (
        "zip4",
        "[n] 'a 'b 'c 'd : (as: [n]a) -> (bs: [n]b) -> (cs: [n]c) -> (ds: [n]d) -> *[n](a, b, c, d)",
    ),
    (
        "zip5",
        "[n] 'a 'b 'c 'd 'e : (as: [n]a) -> (bs: [n]b) -> (cs: [n]c) -> (ds: [n]d) -> (es: [n]e) \
         -> *[n](a, b, c, d, e)",
    ),
    ("unzip", "[n] 'a 'b : (xs: [n](a, b)) -> ([n]a, [n]b)"),
    ("unzip3", "[n] 'a 'b 'c : (xs: [n](a, b, c)) -> ([n]a, [n]b, [n]c)"),
    ("unzip4", "[n] 'a 'b 'c 'd : (xs: [n](a, b, c, d)) -> ([n]a, [n]b, [n]c, [n]d)"),
    (
        "unzip5",
        "[n] 'a 'b 'c 'd 'e : (xs: [n](a, b, c, d, e)) -> ([n]a, [n]b, [n]c, [n]d, [n]e)",
    ),
    ("iota", "(n: i64) -> *[n]i64"),
    ("replicate", "'t : (n: i64) -> (x: t) -> *[n]t"),
    // An array whose elements the program writes before it reads them (Futhark leaves them
    // unspecified; here they are zeros, so every backend agrees).
    ("scratch", "'t : (n: i64) -> *[n]t"),
    // `replicate` at the size its context requires (what AUTOMAP inserts where a replicate is
    // not induced by a map; not in Futhark).
    ("rep", "[n] 't : (x: t) -> *[n]t"),
    ("transpose", "[n] [m] 't : (a: [n][m]t) -> *[m][n]t"),
    ("flatten", "[n] [m] 't : (a: [n][m]t) -> [n*m]t"),
    // The sizes of the result come from the type the context gives it (Futhark's
    // `unflatten [n][m] : [n*m]t -> [n][m]t`); lowering checks their product at run time.
    ("unflatten", "[p] [n] [m] 't : (a: [p]t) -> [n][m]t"),
    ("unflatten_3d", "[p] [n] [m] [l] 't : (a: [p]t) -> [n][m][l]t"),
    ("unflatten_4d", "[p] [n] [m] [l] [k] 't : (a: [p]t) -> [n][m][l][k]t"),
    ("concat", "[n] [m] 't : (xs: [n]t) -> (ys: [m]t) -> *[n+m]t"),
    ("copy", "'t : (a: t) -> *t"),
    ("jvp", "'a 'b : (f: a -> b) -> (x: a) -> (dx: a) -> b"),
    ("vjp", "'a 'b : (f: a -> b) -> (x: a) -> (dy: b) -> a"),
    ("jvp2", "'a 'b : (f: a -> b) -> (x: a) -> (dx: a) -> (b, b)"),
    ("vjp2", "'a 'b : (f: a -> b) -> (x: a) -> (dy: b) -> (b, a)"),
];

/// `"<module>.<member>"` of a numeric module, split into the module's type and the member's name.
pub fn split_numeric(name: &str) -> Option<(PrimType, &str)> {
    let (module, member) = name.split_once('.')?;
    Some((PrimType::from_name(module)?, member))
}

/// Conversions every numeric module has: `t.i8 .. t.f64` and `t.bool` convert *to* `t`.
fn conversions(t: PrimType) -> Vec<Intrinsic> {
    PrimType::all()
        .map(|from| Intrinsic { name: format!("{t}.{from}"), sig: format!("(x: {from}) -> {t}") })
        .collect()
}

fn member(t: PrimType, name: &str, sig: &str) -> Intrinsic {
    Intrinsic { name: format!("{t}.{name}"), sig: sig.replace('T', t.name()) }
}

/// The members of one numeric module (`T` stands for the module's type in the templates).
pub fn numeric_members(t: PrimType) -> Vec<Intrinsic> {
    let mut out = conversions(t);
    let common: &[(&str, &str)] = &[
        ("min", "T -> T -> T"),
        ("max", "T -> T -> T"),
        ("highest", "T"),
        ("lowest", "T"),
        ("sum", "[n] : [n]T -> T"),
        ("product", "[n] : [n]T -> T"),
        ("maximum", "[n] : [n]T -> T"),
        ("minimum", "[n] : [n]T -> T"),
        ("to_i64", "T -> i64"),
    ];
    let arith: &[(&str, &str)] = &[("abs", "T -> T"), ("sgn", "T -> T"), ("neg", "T -> T")];
    let ints: &[(&str, &str)] = &[
        ("popc", "T -> i32"),
        ("clz", "T -> i32"),
        ("ctz", "T -> i32"),
        ("num_bits", "i32"),
        ("get_bit", "i32 -> T -> i32"),
        ("set_bit", "i32 -> T -> i32 -> T"),
        ("pow", "T -> T -> T"),
        ("not", "T -> T"),
        ("mul_hi", "T -> T -> T"),
        ("mad_hi", "T -> T -> T -> T"),
    ];
    let floats: &[(&str, &str)] = &[
        ("sqrt", "T -> T"),
        ("cbrt", "T -> T"),
        ("exp", "T -> T"),
        ("log", "T -> T"),
        ("log2", "T -> T"),
        ("log10", "T -> T"),
        ("log1p", "T -> T"),
        ("sin", "T -> T"),
        ("cos", "T -> T"),
        ("tan", "T -> T"),
        ("asin", "T -> T"),
        ("acos", "T -> T"),
        ("atan", "T -> T"),
        ("sinh", "T -> T"),
        ("cosh", "T -> T"),
        ("tanh", "T -> T"),
        ("asinh", "T -> T"),
        ("acosh", "T -> T"),
        ("atanh", "T -> T"),
        ("atan2", "T -> T -> T"),
        ("hypot", "T -> T -> T"),
        ("pow", "T -> T -> T"),
        ("floor", "T -> T"),
        ("ceil", "T -> T"),
        ("round", "T -> T"),
        ("trunc", "T -> T"),
        ("isnan", "T -> bool"),
        ("isinf", "T -> bool"),
        ("copysign", "T -> T -> T"),
        ("fma", "T -> T -> T -> T"),
        ("lerp", "T -> T -> T -> T"),
        ("from_fraction", "i64 -> i64 -> T"),
        ("to_f64", "T -> f64"),
        ("recip", "T -> T"),
        ("rsqrt", "T -> T"),
        ("mad", "T -> T -> T -> T"),
        ("num_bits", "i32"),
        ("get_bit", "i32 -> T -> i32"),
        ("set_bit", "i32 -> T -> i32 -> T"),
        ("erf", "T -> T"),
        ("erfc", "T -> T"),
        ("nextafter", "T -> T -> T"),
        ("ldexp", "T -> i32 -> T"),
        ("gamma", "T -> T"),
        ("lgamma", "T -> T"),
        ("inf", "T"),
        ("nan", "T"),
        ("pi", "T"),
        ("e", "T"),
        ("epsilon", "T"),
    ];
    match t {
        PrimType::Bool => {}
        PrimType::Int(_) => {
            out.extend(common.iter().chain(arith).chain(ints).map(|(n, s)| member(t, n, s)));
        }
        PrimType::Float(ft) => {
            out.extend(common.iter().map(|(n, s)| member(t, n, s)));
            out.extend(arith.iter().map(|(n, s)| member(t, n, s)));
            out.extend(floats.iter().map(|(n, s)| member(t, n, s)));
            let bits = match ft {
                FloatType::F16 => "u16",
                FloatType::F32 => "u32",
                FloatType::F64 => "u64",
            };
            out.push(member(t, "to_bits", &format!("T -> {bits}")));
            out.push(member(t, "from_bits", &format!("{bits} -> T")));
        }
    }
    out
}

/// Every intrinsic: the array built-ins, then every numeric module's members.
pub fn all() -> Vec<Intrinsic> {
    let mut out: Vec<Intrinsic> = ARRAY_INTRINSICS
        .iter()
        .map(|(n, s)| Intrinsic { name: n.to_string(), sig: s.to_string() })
        .collect();
    for t in PrimType::all() {
        out.extend(numeric_members(t));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|i| i.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn numeric_members_split() {
        assert_eq!(split_numeric("f32.sqrt"), Some((PrimType::F32, "sqrt")));
        assert_eq!(split_numeric("map"), None);
        assert!(all().iter().any(|i| i.name == "f64.i64" && i.sig == "(x: i64) -> f64"));
        assert!(all().iter().any(|i| i.name == "u8.sum" && i.sig == "[n] : [n]u8 -> u8"));
    }
}
