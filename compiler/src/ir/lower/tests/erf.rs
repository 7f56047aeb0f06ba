//! `erf` and `erfc` against values computed to 40 digits (mpmath), in the reference
//! interpreter: within 3 ulp for `f32` and 2 ulp for `f64` (the fits in erf_tables.rs are 30
//! times more accurate than that; the rest is the rounding of their evaluation and of `exp`).

use super::lower_src;
use crate::interp::run_entry;
use crate::prim::PrimValue;
use crate::value::text::parse_values;

/// (x, erf x, erfc x); every x is exact in `f32`.
#[rustfmt::skip]
const REFERENCE: &[(f64, f64, f64)] = &[
    (-12.0, -1.0, 2.0),
    (-5.5, -0.9999999999999927, 1.9999999999999927),
    (-3.0, -0.9999779095030014, 1.9999779095030015),
    (-1.25, -0.9229001282564583, 1.9229001282564582),
    (-0.6875, -0.6690846628860813, 1.6690846628860814),
    (0.0, 0.0, 1.0),
    (9.5367431640625e-07, 1.0761062308265404e-06, 0.9999989238937692),
    (0.046875, 0.052854059156443735, 0.9471459408435563),
    (0.3125, 0.341468633501595, 0.658531366498405),
    (0.484375, 0.5066621963729179, 0.49333780362708207),
    (0.5, 0.5204998778130465, 0.4795001221869535),
    (0.625, 0.623240882188418, 0.376759117811582),
    (0.875, 0.7840750610598597, 0.21592493894014034),
    (1.0, 0.8427007929497149, 0.15729920705028513),
    (1.3125, 0.9365685747113888, 0.06343142528861129),
    (1.6875, 0.982989716601978, 0.01701028339802197),
    (2.1875, 0.9980225088163892, 0.001977491183610797),
    (2.5, 0.999593047982555, 0.0004069520174449589),
    (2.875, 0.9999521451602562, 4.785483974377341e-05),
    (3.5, 0.9999992569016276, 7.430983723414128e-07),
    (4.5, 0.9999999998033839, 1.9661604415428876e-10),
    (5.25, 0.9999999999998869, 1.1310313266887154e-13),
    (6.0, 1.0, 2.1519736712498913e-17),
    (7.5, 1.0, 2.776649386030569e-26),
    (9.5, 1.0, 3.7692144856548797e-41),
    (10.5, 1.0, 7.035928090177523e-50),
    (15.0, 1.0, 7.212994172451207e-100),
    (22.0, 1.0, 1.6219058609334726e-212),
    (27.0, 1.0, 5.23705e-319),
];

/// The two results of `entry` on the reference's arguments, as f64s.
fn results(ty: &str) -> Vec<Vec<f64>> {
    let src =
        format!("entry main (xs: []{ty}) : ([]{ty}, []{ty}) = (map {ty}.erf xs, map {ty}.erfc xs)");
    let prog = lower_src(&src).expect("lowered").expect("compiles");
    let xs: Vec<String> = REFERENCE.iter().map(|(x, _, _)| format!("{x:?}{ty}")).collect();
    let args = parse_values(&format!("[{}]", xs.join(", "))).expect("arguments");
    let out = run_entry(&prog, "main", &args).expect("runs");
    out.iter().map(|v| v.elems().iter().map(|p| p.as_f64().expect("float")).collect()).collect()
}

/// The distance between `got` and `want` in units of the last place of `want` in a format of
/// `bits` significand bits (subnormals counted at the smallest exponent).
fn ulps(got: f64, want: f64, bits: i32, min_exp: i32) -> f64 {
    let e = if want == 0.0 { min_exp } else { (want.abs().log2().floor() as i32).max(min_exp) };
    // In two factors: 2^-1074 as one power overflows on the way.
    (got - want).abs() / (2f64.powi(e) * 2f64.powi(1 - bits))
}

#[test]
fn erf_f32_is_within_3_ulp() {
    let r = results("f32");
    for (k, &(x, erf, erfc)) in REFERENCE.iter().enumerate() {
        let (e, c) = (
            ulps(r[0][k], f64::from(erf as f32), 24, -126),
            ulps(r[1][k], f64::from(erfc as f32), 24, -126),
        );
        assert!(
            e <= 3.0 && c <= 3.0,
            "x = {x}: erf {} ({e} ulp), erfc {} ({c} ulp)",
            r[0][k],
            r[1][k]
        );
    }
}

#[test]
fn erf_f64_is_within_2_ulp() {
    let r = results("f64");
    for (k, &(x, erf, erfc)) in REFERENCE.iter().enumerate() {
        let (e, c) = (ulps(r[0][k], erf, 53, -1022), ulps(r[1][k], erfc, 53, -1022));
        assert!(
            e <= 2.0 && c <= 2.0,
            "x = {x}: erf {} ({e} ulp), erfc {} ({c} ulp)",
            r[0][k],
            r[1][k]
        );
    }
}

#[test]
fn erf_keeps_nan_signs_and_infinities() {
    let src = "entry main (xs: []f32) : ([]f32, []f32) = (map f32.erf xs, map f32.erfc xs)";
    let prog = lower_src(src).expect("lowered").expect("compiles");
    let args = parse_values("[f32.nan, f32.inf, -f32.inf, -0f32]").expect("arguments");
    let out = run_entry(&prog, "main", &args).expect("runs");
    let (erf, erfc) = (out[0].elems(), out[1].elems());
    assert!(matches!(erf[0], PrimValue::F32(v) if v.is_nan()));
    assert!(matches!(erfc[0], PrimValue::F32(v) if v.is_nan()));
    assert_eq!(&erf[1..3], &[PrimValue::F32(1.0), PrimValue::F32(-1.0)]);
    assert_eq!(&erfc[1..3], &[PrimValue::F32(0.0), PrimValue::F32(2.0)]);
    assert!(matches!(erf[3], PrimValue::F32(v) if v == 0.0 && v.is_sign_negative()));
}
