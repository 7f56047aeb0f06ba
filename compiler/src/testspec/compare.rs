//! Comparing a run's results with a test's expected values, and explaining the differences.
//!
//! The rule is `futhark test`'s (futhark-data's `compareValues` with `Tolerance 0.002`):
//! - element types and shapes must match exactly; integers and booleans compare exactly;
//! - floats (f16, f32, f64) compare with one absolute tolerance per result value,
//!   `max(0.002, 0.002 * m)`, where `m` is the largest magnitude among the expected value's finite
//!   elements, so the tolerance is 0.2% relative to the value's scale and 0.002 absolute near zero;
//! - NaN equals NaN, and infinities are equal when their signs are.
//!
//! One deliberate difference: Futhark scales by the largest *signed* expected element, so an array
//! of large negative numbers gets only the 0.002 floor; we scale by magnitude, so negating every
//! expected and actual value never changes the verdict.

use std::fmt::Write as _;

use crate::prim::PrimValue;
use crate::value::text::{format_prim, format_type, format_value_line};
use crate::value::Value;

/// The relative tolerance `futhark test` uses.
pub const DEFAULT_TOLERANCE: f64 = 0.002;

/// How many differing elements a diff lists.
const SHOWN: usize = 5;

/// One way a result differs from what was expected. `index` counts results from 0.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    Count { expected: usize, actual: usize },
    Type { index: usize, expected: Value, actual: Value },
    Shape { index: usize, expected: Value, actual: Value },
    Elements { index: usize, expected: Value, total: usize, differing: usize, first: Vec<ElemDiff> },
}

/// A differing element: its multi-dimensional index (empty for a scalar) and both values.
#[derive(Clone, Debug, PartialEq)]
pub struct ElemDiff {
    pub index: Vec<i64>,
    pub expected: PrimValue,
    pub actual: PrimValue,
}

/// Compare results with expectations; empty means equal.
pub fn compare_values(expected: &[Value], actual: &[Value], tolerance: f64) -> Vec<Mismatch> {
    if expected.len() != actual.len() {
        return vec![Mismatch::Count { expected: expected.len(), actual: actual.len() }];
    }
    expected
        .iter()
        .zip(actual)
        .enumerate()
        .filter_map(|(i, (e, a))| compare_value(i, e, a, tolerance))
        .collect()
}

fn compare_value(index: usize, e: &Value, a: &Value, tolerance: f64) -> Option<Mismatch> {
    if e.elem_type() != a.elem_type() {
        return Some(Mismatch::Type { index, expected: e.clone(), actual: a.clone() });
    }
    if e.shape() != a.shape() || e.elems().len() != a.elems().len() {
        return Some(Mismatch::Shape { index, expected: e.clone(), actual: a.clone() });
    }
    let abstol = e
        .elems()
        .iter()
        .filter_map(|p| p.as_f64())
        .filter(|x| x.is_finite())
        .fold(tolerance, |t, x| t.max(tolerance * x.abs()));
    let mut differing = 0;
    let mut first = Vec::new();
    for (k, (x, y)) in e.elems().iter().zip(a.elems()).enumerate() {
        if !prim_close(*x, *y, abstol) {
            differing += 1;
            if first.len() < SHOWN {
                first.push(ElemDiff { index: unflatten(e.shape(), k), expected: *x, actual: *y });
            }
        }
    }
    (differing > 0).then(|| Mismatch::Elements {
        index,
        expected: e.clone(),
        total: e.elems().len(),
        differing,
        first,
    })
}

/// Equal within the absolute tolerance `abstol` (floats) or exactly (everything else).
pub fn prim_close(e: PrimValue, a: PrimValue, abstol: f64) -> bool {
    match (e.as_f64(), a.as_f64()) {
        (Some(x), Some(y)) if e.ty() == a.ty() => {
            (x.is_nan() && y.is_nan())
                || (x.is_infinite() && y.is_infinite() && x.signum() == y.signum())
                || (x - y).abs() <= abstol
        }
        _ => e == a,
    }
}

fn unflatten(shape: &[i64], mut k: usize) -> Vec<i64> {
    let mut idx = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        let d = d.max(1) as usize;
        idx[i] = (k % d) as i64;
        k /= d;
    }
    idx
}

fn type_of(v: &Value) -> String {
    format_type(v.shape(), v.elem_type())
}

/// A value on one line, shortened to about `max` characters.
pub fn abbreviate(v: &Value, max: usize) -> String {
    let s = format_value_line(v);
    if s.chars().count() <= max {
        s
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}...")
    }
}

/// Explain mismatches: a line per result, with details indented under it.
pub fn render_mismatches(ms: &[Mismatch]) -> String {
    let mut s = String::new();
    for m in ms {
        let _ = match m {
            Mismatch::Count { expected, actual } => {
                writeln!(s, "expected {expected} result(s), got {actual}")
            }
            Mismatch::Type { index, expected, actual } => writeln!(
                s,
                "result {index}: expected type {}, got {}\n  expected: {}\n  actual:   {}",
                type_of(expected),
                type_of(actual),
                abbreviate(expected, 100),
                abbreviate(actual, 100)
            ),
            Mismatch::Shape { index, expected, actual } => writeln!(
                s,
                "result {index}: expected shape {}, got {}\n  expected: {}\n  actual:   {}",
                type_of(expected),
                type_of(actual),
                abbreviate(expected, 100),
                abbreviate(actual, 100)
            ),
            Mismatch::Elements { index, expected, first, .. } if expected.rank() == 0 => {
                let d = &first[0];
                writeln!(
                    s,
                    "result {index}: expected {}, got {}",
                    format_prim(d.expected),
                    format_prim(d.actual)
                )
            }
            Mismatch::Elements { index, expected, total, differing, first } => {
                let _ = writeln!(
                    s,
                    "result {index}: {differing} of {total} elements differ (type {})",
                    type_of(expected)
                );
                for d in first {
                    let idx: Vec<String> = d.index.iter().map(i64::to_string).collect();
                    let _ = writeln!(
                        s,
                        "  [{}]: expected {}, got {}",
                        idx.join(", "),
                        format_prim(d.expected),
                        format_prim(d.actual)
                    );
                }
                if differing > &first.len() {
                    let _ = writeln!(s, "  ... and {} more", differing - first.len());
                }
                Ok(())
            }
        };
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::text::parse_values;

    fn vals(s: &str) -> Vec<Value> {
        parse_values(s).unwrap()
    }

    fn cmp(e: &str, a: &str) -> Vec<Mismatch> {
        compare_values(&vals(e), &vals(a), DEFAULT_TOLERANCE)
    }

    #[test]
    fn exact_for_integers_and_bools() {
        assert!(cmp("[1, 2, 3] true", "[1, 2, 3] true").is_empty());
        assert_eq!(cmp("[1, 2, 3]", "[1, 2, 4]").len(), 1);
        assert_eq!(cmp("true", "false").len(), 1);
        assert_eq!(cmp("18446744073709551615u64", "18446744073709551614u64").len(), 1);
    }

    #[test]
    fn float_tolerance_is_relative_to_the_values_scale() {
        // Near zero: 0.002 absolute.
        assert!(cmp("0.0f32", "0.0019f32").is_empty());
        assert_eq!(cmp("0.0f32", "0.0021f32").len(), 1);
        // Scale 1000: 2.0 absolute, for every element of the value.
        assert!(cmp("[1000.0, 0.0]", "[1001.9, 1.9]").is_empty());
        assert_eq!(cmp("[1000.0, 0.0]", "[1002.1, 0.0]").len(), 1);
        // Negative scale counts by magnitude.
        assert!(cmp("[-1000.0]", "[-1001.5]").is_empty());
        // Each result value has its own scale.
        assert_eq!(cmp("[1000.0] [0.0]", "[1000.0] [1.0]").len(), 1);
        assert!(cmp("1.0f16", "1.001f16").is_empty());
    }

    #[test]
    fn nan_and_infinities() {
        assert!(cmp("f32.nan", "f32.nan").is_empty());
        assert!(cmp("[f64.inf, -f64.inf]", "[f64.inf, -f64.inf]").is_empty());
        assert_eq!(cmp("f64.inf", "-f64.inf").len(), 1);
        assert_eq!(cmp("f64.inf", "1e308").len(), 1);
        assert_eq!(cmp("f32.nan", "0f32").len(), 1);
        assert_eq!(cmp("1f32", "f32.nan").len(), 1);
        // Infinities in the expected value do not widen the tolerance.
        assert_eq!(cmp("[f32.inf, 1f32]", "[f32.inf, 2f32]").len(), 1);
    }

    #[test]
    fn types_shapes_and_counts_must_match() {
        assert!(matches!(cmp("[1, 2]", "[1i64, 2i64]")[..], [Mismatch::Type { index: 0, .. }]));
        assert!(matches!(cmp("1.0f32", "1.0")[..], [Mismatch::Type { .. }]));
        assert!(matches!(cmp("1 [1, 2]", "1 [1, 2, 3]")[..], [Mismatch::Shape { index: 1, .. }]));
        assert!(matches!(cmp("[[1, 2]]", "[1, 2]")[..], [Mismatch::Shape { .. }]));
        assert!(matches!(cmp("1 2", "1")[..], [Mismatch::Count { expected: 2, actual: 1 }]));
        assert!(cmp("empty([0][3]f32)", "empty([0][3]f32)").is_empty());
        assert_eq!(cmp("empty([0][3]f32)", "empty([3][0]f32)").len(), 1);
    }

    #[test]
    fn diffs_are_readable() {
        let e =
            format!("[{}]", (0..100).map(|i| format!("{i}.0f32")).collect::<Vec<_>>().join(","));
        let a = format!(
            "[{}]",
            (0..100)
                .map(|i| format!("{}.0f32", if i % 10 == 3 { i + 5 } else { i }))
                .collect::<Vec<_>>()
                .join(",")
        );
        let text = render_mismatches(&cmp(&e, &a));
        expect_test::expect![[r#"
              result 0: 10 of 100 elements differ (type [100]f32)
                [3]: expected 3.0f32, got 8.0f32
                [13]: expected 13.0f32, got 18.0f32
                [23]: expected 23.0f32, got 28.0f32
                [33]: expected 33.0f32, got 38.0f32
                [43]: expected 43.0f32, got 48.0f32
                ... and 5 more
        "#]]
        .assert_eq(&text);
        let text = render_mismatches(&cmp("[[1, 2], [3, 4]] 7i64", "[[1, 2], [3, 5]] 8i64"));
        expect_test::expect![[r#"
              result 0: 1 of 4 elements differ (type [2][2]i32)
                [1, 1]: expected 4i32, got 5i32
              result 1: expected 7i64, got 8i64
        "#]]
        .assert_eq(&text);
        let text = render_mismatches(&cmp("[1, 2, 3] 1", "[1, 2] 1.0f32"));
        expect_test::expect![[r#"
              result 0: expected shape [3]i32, got [2]i32
                expected: [1i32, 2i32, 3i32]
                actual:   [1i32, 2i32]
              result 1: expected type i32, got f32
                expected: 1i32
                actual:   1.0f32
        "#]]
        .assert_eq(&text);
        let text = render_mismatches(&cmp("1 2", "1"));
        assert_eq!(text, "expected 2 result(s), got 1\n");
    }

    #[test]
    fn long_values_are_abbreviated() {
        let v = &vals(&format!("[{}]", vec!["1"; 1000].join(",")))[0];
        let s = abbreviate(v, 30);
        assert_eq!(s.len(), 33);
        assert!(s.ends_with("..."));
    }
}
