//! Property tests: indexing, slicing, updates and permutations against a brute-force model.

use proptest::prelude::*;

use super::builder::*;
use crate::ir::{Atom, DimIndex, Exp, Type};
use crate::value::Value;

#[derive(Clone, Copy, Debug)]
enum Ix {
    Fix(i64),
    Slice(i64, i64, i64),
}

fn ix_strategy() -> impl Strategy<Value = Ix> {
    prop_oneof![
        (-2i64..6).prop_map(Ix::Fix),
        (-2i64..6, -1i64..5, -3i64..4).prop_map(|(s, l, t)| Ix::Slice(s, l, t)),
    ]
}

fn case_strategy() -> impl Strategy<Value = (Vec<i64>, Vec<Ix>)> {
    prop::collection::vec(0i64..5, 1..4).prop_flat_map(|shape| {
        let rank = shape.len();
        (Just(shape), prop::collection::vec(ix_strategy(), 0..=rank))
    })
}

fn in_bounds(shape: &[i64], idx: &[Ix]) -> bool {
    idx.iter().zip(shape).all(|(ix, &d)| match *ix {
        Ix::Fix(i) => 0 <= i && i < d,
        Ix::Slice(s, l, t) => {
            l == 0 || (l > 0 && 0 <= s && s < d && 0 <= s + (l - 1) * t && s + (l - 1) * t < d)
        }
    })
}

/// The shape of `a[idx]` and the row-major flat source positions of its elements.
fn model(shape: &[i64], idx: &[Ix]) -> (Vec<i64>, Vec<i64>) {
    let mut out_shape: Vec<i64> = idx
        .iter()
        .filter_map(|ix| if let Ix::Slice(_, l, _) = ix { Some(*l) } else { None })
        .collect();
    out_shape.extend_from_slice(&shape[idx.len()..]);
    // Coordinates per source dimension.
    let coords: Vec<Vec<i64>> = (0..shape.len())
        .map(|k| match idx.get(k) {
            Some(Ix::Fix(i)) => vec![*i],
            Some(Ix::Slice(s, l, t)) => (0..*l).map(|j| s + j * t).collect(),
            None => (0..shape[k]).collect(),
        })
        .collect();
    let mut positions = vec![0i64];
    for (k, cs) in coords.iter().enumerate() {
        let mut next = Vec::new();
        for p in &positions {
            for c in cs {
                next.push(p * shape[k] + c);
            }
        }
        positions = next;
    }
    (out_shape, positions)
}

fn ir_index(idx: &[Ix]) -> Vec<DimIndex> {
    idx.iter()
        .map(|ix| match *ix {
            Ix::Fix(i) => DimIndex::Fix(k64(i)),
            Ix::Slice(s, l, t) => DimIndex::Slice { start: k64(s), len: k64(l), stride: k64(t) },
        })
        .collect()
}

fn ty_of(shape: &[i64]) -> Type {
    if shape.is_empty() {
        t(I64)
    } else {
        arr(I64, &shape.iter().map(|&d| c(d)).collect::<Vec<_>>())
    }
}

fn message(shape: &[i64], idx: &[Ix]) -> String {
    let parts: Vec<String> = idx
        .iter()
        .map(|ix| match *ix {
            Ix::Fix(i) => i.to_string(),
            Ix::Slice(s, l, t) => format!("{s}:{}:{t}", s + l * t),
        })
        .collect();
    let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
    format!("index [{}] out of bounds for array of shape {dims}", parts.join(", "))
}

proptest! {
    #[test]
    fn indexing_matches_the_model((shape, idx) in case_strategy()) {
        let (out_shape, positions) = model(&shape, &idx);
        let mut p = Prog::new();
        let xs = p.param("xs", ty_of(&shape));
        let xv = xs.var;
        let mut b = p.body();
        let r = b.let1("r", ty_of(&out_shape), Exp::Index { arr: xv, idx: ir_index(&idx) });
        let body = b.finish(vec![v(r)]);
        p.fun("f", vec![xs], vec![ty_of(&out_shape)], body);
        let got = call(&p, 0, vec![range64(&shape)]);
        if in_bounds(&shape, &idx) {
            let want = if out_shape.is_empty() { s64(positions[0]) } else { a64(&out_shape, &positions) };
            prop_assert_eq!(got.map_err(|d| d.message), Ok(vec![want]));
        } else {
            prop_assert_eq!(got.map_err(|d| d.message), Err(message(&shape, &idx)));
        }
    }

    #[test]
    fn updates_match_the_model((shape, idx) in case_strategy()) {
        let (region, positions) = model(&shape, &idx);
        // A negative slice length has no value to write (the indexing property covers it).
        prop_assume!(region.iter().all(|&d| d >= 0));
        let n: i64 = shape.iter().product();
        let mut p = Prog::new();
        let xs = p.param("xs", ty_of(&shape));
        let val = p.param("val", ty_of(&region));
        let (xv, vv) = (xs.var, val.var);
        let mut b = p.body();
        let r = b.let1("r", ty_of(&shape), Exp::Update { arr: xv, idx: ir_index(&idx), value: Atom::Var(vv) });
        let body = b.finish(vec![v(r)]);
        p.fun("f", vec![xs, val], vec![ty_of(&shape)], body);
        let new: Vec<i64> = (0..positions.len() as i64).map(|k| -(k + 1)).collect();
        let value = if region.is_empty() { s64(new[0]) } else { a64(&region, &new) };
        let got = call(&p, 0, vec![range64(&shape), value]);
        if in_bounds(&shape, &idx) {
            let mut want: Vec<i64> = (0..n).collect();
            for (&pos, &x) in positions.iter().zip(&new) {
                want[pos as usize] = x;
            }
            prop_assert_eq!(got.map_err(|d| d.message), Ok(vec![a64(&shape, &want)]));
        } else {
            prop_assert_eq!(got.map_err(|d| d.message), Err(message(&shape, &idx)));
        }
    }

    #[test]
    fn rearrange_matches_the_model(
        (shape, perm) in prop::collection::vec(0i64..4, 1..5)
            .prop_flat_map(|s| { let r = s.len(); (Just(s), Just((0..r).collect::<Vec<usize>>()).prop_shuffle()) })
    ) {
        let out_shape: Vec<i64> = perm.iter().map(|&k| shape[k]).collect();
        let mut p = Prog::new();
        let xs = p.param("xs", ty_of(&shape));
        let xv = xs.var;
        let mut b = p.body();
        let r = b.let1("r", ty_of(&out_shape), Exp::Rearrange { arr: xv, perm: perm.clone() });
        let body = b.finish(vec![v(r)]);
        p.fun("f", vec![xs], vec![ty_of(&out_shape)], body);
        // Result element at multi-index j is source element at i with i[perm[k]] = j[k].
        let n: i64 = shape.iter().product();
        let mut want = Vec::with_capacity(n as usize);
        let mut j = vec![0i64; shape.len()];
        for _ in 0..n {
            let mut i = vec![0i64; shape.len()];
            for (k, &pk) in perm.iter().enumerate() {
                i[pk] = j[k];
            }
            want.push(i.iter().zip(&shape).fold(0, |acc, (x, d)| acc * d + x));
            for k in (0..j.len()).rev() {
                j[k] += 1;
                if j[k] < out_shape[k] { break; }
                j[k] = 0;
            }
        }
        let got = call(&p, 0, vec![range64(&shape)]).map_err(|d| d.message);
        prop_assert_eq!(got, Ok(vec![a64(&out_shape, &want)]));
        let _: Option<Value> = None;
    }
}
