-- The error function and its complement (f32.erf, f64.erfc, ...), their derivatives, and a
-- GELU built on them; every backend computes the same polynomials (see the compiler's
-- erf_tables.rs). NaN stays NaN and the infinities give the limits.

-- ==
-- entry: values
-- input { [-3f32, -0.6875f32, 0f32, 0.3125f32, 1f32, 2.5f32, 4.5f32, f32.inf, -f32.inf] }
-- output { [-0.9999779f32, -0.6690847f32, 0f32, 0.3414686f32, 0.8427008f32, 0.999593f32, 1f32, 1f32, -1f32]
--          [1.9999779f32, 1.6690847f32, 1f32, 0.6585314f32, 0.1572992f32, 4.0695202e-4f32, 1.9661604e-10f32, 0f32, 2f32] }
entry values (xs: []f32) : ([]f32, []f32) = (map f32.erf xs, map f32.erfc xs)

-- ==
-- entry: nan
-- input { [1f32, f32.nan] }
-- output { [false, true] [false, true] }
entry nan (xs: []f32) : ([]bool, []bool) =
  (map (\x -> f32.isnan (f32.erf x)) xs, map (\x -> f32.isnan (f32.erfc x)) xs)

-- The derivative is 2/sqrt(pi) exp(-x^2), also at the infinities (0).
-- ==
-- entry: derivative
-- input { [-3f32, -0.5f32, 0f32, 0.75f32, 2f32, f32.inf] }
-- output { [1.3925305e-4f32, 0.8787826f32, 1.1283792f32, 0.6429311f32, 2.0666985e-2f32, 0f32]
--          [-1.3925305e-4f32, -0.8787826f32, -1.1283792f32, -0.6429311f32, -2.0666985e-2f32, 0f32] }
entry derivative (xs: []f32) : ([]f32, []f32) =
  (map (\x -> vjp f32.erf x 1) xs, map (\x -> jvp f32.erfc x 1) xs)

-- ==
-- entry: gelu
-- input { [-3f32, -0.7f32, 0f32, 0.3f32, 2.5f32] }
-- output { [-4.0496886e-3f32, -0.16937456f32, 0f32, 0.18537344f32, 2.4844759f32] }
entry gelu (xs: []f32) : []f32 = map (\x -> 0.5 * x * (1 + f32.erf (x / f32.sqrt 2))) xs

-- ==
-- entry: doubles
-- input { [-1.25f64, 0.5f64, 6f64, 27f64] }
-- output { [-0.9229001282564582f64, 0.5204998778130465f64, 0.9999999999999999785f64, 1f64]
--          [1.9229001282564582f64, 0.4795001221869535f64, 2.1519736712498913e-17f64, 5.237048923789255685e-319f64] }
entry doubles (xs: []f64) : ([]f64, []f64) = (map f64.erf xs, map f64.erfc xs)
