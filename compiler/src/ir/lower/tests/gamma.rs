//! `gamma` and `lgamma` against values computed to 36 digits (mpmath), in the reference
//! interpreter: within 8 ulp (`lgamma` below 1 in magnitude, where it is the logarithm of a
//! number near 1, within 8 ulp of 1), and C's values at the poles, zeros and infinities.

use super::lower_src;
use crate::interp::run_entry;
use crate::prim::PrimValue;
use crate::value::text::parse_values;

/// (x, Γ(x), ln |Γ(x)|); every x of magnitude below 35 is exact in `f32`.
#[rustfmt::skip]
const REFERENCE: &[(f64, f64, f64)] = &[
    (-170.25, -1.6938387496514192e-307, -706.3666261465808),
    (-100.5, -3.3536908198076787e-159, -364.90096830942736),
    (-33.75, 3.6438839061103454e-38, -86.20518341379946),
    (-15.5, 6.053166840058603e-13, -28.133024629191414),
    (-4.484375, -0.0616223998575027, -2.7867298404911325),
    (-2.5, -0.9453087204829419, -0.056243716497674054),
    (-0.5, -3.544907701811032, 1.2655121234846454),
    (-0.0009765625, -1024.5781824062517, 6.932036277511308),
    (0.0009765625, 1023.4237493455678, 6.9309089024194614),
    (0.25, 3.625609908221908, 1.2880225246980774),
    (0.5, 1.772453850905516, 0.5723649429247001),
    (0.9375, 1.0401770111867672, 0.039390901734582304),
    (1.0, 1.0, 0.0),
    (1.5, 0.886226925452758, -0.12078223763524522),
    (2.0, 1.0, 0.0),
    (2.8037109375, 1.6817332484392509, 0.5198249570826807),
    (3.0, 2.0, std::f64::consts::LN_2),
    (7.990215301513672, 4941.604193548031, 8.505445293002834),
    (10.0, 362880.0, 12.801827480081469),
    (13.25, 902965985.8229319, 20.62119544270163),
    (24.5, 1.2599063430729375e+23, 53.19049452616927),
    (34.5, 5.044620868349451e+37, 86.81397094178108),
    (60.125, 2.3115103445349494e+80, 185.04470857920742),
    (100.5, 9.320963104082716e+156, 361.4355404677776),
    (150.75, 1.63154596407512e+262, 603.7668223739875),
    (171.5, 9.4833675668248e+307, 709.1431630309282),
];

/// `gamma` and `lgamma` of type `ty` at `xs`, as f64s.
fn results(ty: &str, xs: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let src = format!(
        "entry main (xs: []{ty}) : ([]{ty}, []{ty}) = (map {ty}.gamma xs, map {ty}.lgamma xs)"
    );
    let prog = lower_src(&src).expect("lowered").expect("compiles");
    let lit = |x: &f64| match *x {
        x if x.is_nan() => format!("{ty}.nan"),
        f64::INFINITY => format!("{ty}.inf"),
        f64::NEG_INFINITY => format!("-{ty}.inf"),
        x => format!("{x:?}{ty}"),
    };
    let xs: Vec<String> = xs.iter().map(lit).collect();
    let args = parse_values(&format!("[{}]", xs.join(", "))).expect("arguments");
    let out = run_entry(&prog, "main", &args).expect("runs");
    let f = |k: usize| out[k].elems().iter().map(|p| p.as_f64().expect("float")).collect();
    (f(0), f(1))
}

/// The distance between `got` and `want` in units of the last place of `want` (`bits`
/// significand bits).
fn ulps(got: f64, want: f64, bits: i32) -> f64 {
    let e = want.abs().log2().floor() as i32;
    (got - want).abs() / (2f64.powi(e) * 2f64.powi(1 - bits))
}

fn check(ty: &str, bits: i32, gamma_below: f64, zero_tolerance: f64) {
    let xs: Vec<f64> = REFERENCE.iter().map(|r| r.0).collect();
    let (g, l) = results(ty, &xs);
    let round = |v: f64| if bits == 24 { f64::from(v as f32) } else { v };
    for (k, &(x, gamma, lgamma)) in REFERENCE.iter().enumerate() {
        if x.abs() < gamma_below {
            let u = ulps(g[k], round(gamma), bits);
            assert!(u <= 8.0, "{ty}.gamma {x} = {}: {u} ulp from {gamma}", g[k]);
        }
        if lgamma == 0.0 {
            assert!(l[k].abs() <= zero_tolerance, "{ty}.lgamma {x} = {}", l[k]);
        } else {
            // Near its zeros `ln |Γ|` is the logarithm of a number near 1, so its error is
            // absolute there: ulps of 1 below 1.
            let u = if lgamma.abs() < 1.0 {
                (l[k] - round(lgamma)).abs() / 2f64.powi(1 - bits)
            } else {
                ulps(l[k], round(lgamma), bits)
            };
            assert!(u <= 8.0, "{ty}.lgamma {x} = {}: {u} ulp from {lgamma}", l[k]);
        }
    }
}

#[test]
fn gamma_and_lgamma_f64_are_within_8_ulp() {
    check("f64", 53, f64::INFINITY, 1e-15);
}

#[test]
fn gamma_and_lgamma_f32_are_within_8_ulp() {
    // Γ of larger magnitudes is outside f32's range.
    check("f32", 24, 35.0, 5e-7);
}

#[test]
fn poles_zeros_and_infinities_are_cs() {
    let (g, l) = results("f64", &[0.0, -0.0, -3.0, 172.0, f64::INFINITY, f64::NEG_INFINITY]);
    assert_eq!(&g[..2], &[f64::INFINITY, f64::NEG_INFINITY]);
    assert!(g[2].is_nan() && g[5].is_nan());
    assert_eq!((g[3], g[4]), (f64::INFINITY, f64::INFINITY));
    assert!(l.iter().enumerate().all(|(k, v)| k == 3 || *v == f64::INFINITY), "{l:?}");
    let prog = lower_src("entry main (x: f32) : (f32, f32) = (f32.gamma x, f32.lgamma x)")
        .expect("lowered")
        .expect("compiles");
    let out = run_entry(&prog, "main", &parse_values("f32.nan").expect("arguments")).expect("runs");
    assert!(out.iter().all(|v| matches!(v.elems()[0], PrimValue::F32(x) if x.is_nan())));
}
