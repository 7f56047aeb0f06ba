-- `ldexp` and `nextafter` in f32, as C computes them: `ldexp` rounds once (towards zero past the
-- smallest normal, to an infinity past the largest finite), `n` beyond the exponent range
-- included; `nextafter` steps to the neighbouring float, from and to zero and the infinities
-- too. Derivatives: `2^n` for `ldexp`, and 1 in `x`, 0 in `y` for `nextafter` (Futhark's).
-- Results that would be subnormal are in ldexp_nextafter_f64.fut, since a GPU may flush f32
-- subnormals to zero.
-- ==
-- entry: ldexp
-- input { [1.5f32, -3.0f32, 1.0f32, 1e-38f32, 3e38f32, 5.0f32, -0.0f32, 1.0f32, f32.inf, 7.0f32]
--         [3i32, -2i32, 128i32, 40i32, -300i32, 2147483647i32, 7i32, -2147483648i32, -5i32, 0i32] }
-- output { [12.0f32, -0.75f32, f32.inf, 1.0995115563579263e-26f32, 0.0f32, f32.inf, -0.0f32, 0.0f32, f32.inf, 7.0f32] }

-- ==
-- entry: nextafter
-- input { [1.0f32, 1.0f32, -1.0f32, 3.4028234663852886e+38f32, f32.inf, 2.0f32, 1.0f32, -f32.inf, 16777216.0f32]
--         [2.0f32, 0.0f32, 0.0f32, f32.inf, 0.0f32, 2.0f32, f32.nan, 0.0f32, 0.0f32] }
-- output { [1.0000001192092896f32, 0.9999999403953552f32, -0.9999999403953552f32, f32.inf, 3.4028234663852886e+38f32, 2.0f32, f32.nan, -3.4028234663852886e+38f32, 16777215.0f32] }

-- ==
-- entry: derivatives
-- input { 3.0f32 -4i32 4.0f32 }
-- output { 0.0625f32 1.0f32 0.0f32 }

entry ldexp (xs: []f32) (ns: []i32) : []f32 = map2 f32.ldexp xs ns

entry nextafter (xs: []f32) (ys: []f32) : []f32 = map2 f32.nextafter xs ys

entry derivatives (x: f32) (n: i32) (y: f32) : (f32, f32, f32) =
  let d = jvp (\x -> f32.ldexp x n) x 1
  let (dx, dy) = vjp (\(x, y) -> f32.nextafter x y) (x, y) 1
  in (d, dx, dy)
