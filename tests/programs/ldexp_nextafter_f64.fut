-- `ldexp` and `nextafter` in f64 and into the subnormals: `ldexp` rounds once there (1.5 *
-- 2^-1074 is 2^-1073, ties to even), and `nextafter` from zero gives the smallest subnormal with
-- the sign of its direction. Also f32's subnormals, which a GPU may flush (and f64 is not there).
-- ==
-- tags { needs_f64 }
-- entry: ldexp
-- input { [1.5f64, 1.0f64, 2.2250738585072014e-308f64, 1.7976931348623157e308f64, -1.0f64, 5e-324f64]
--         [-1074i32, -1075i32, -52i32, 1i32, 2098i32, 1074i32] }
-- output { [1e-323f64, 0.0f64, 5e-324f64, f64.inf, -f64.inf, 1.0f64] }

-- ==
-- entry: nextafter
-- input { [1.0f64, 1.0f64, 0.0f64, -0.0f64, 1.7976931348623157e308f64, -f64.inf]
--         [2.0f64, 0.0f64, -1.0f64, -0.0f64, f64.inf, 0.0f64] }
-- output { [1.0000000000000002f64, 0.9999999999999999f64, -5e-324f64, -0.0f64, f64.inf, -1.7976931348623157e308f64] }

-- ==
-- entry: subnormal32
-- input { [0.75f32, 1.0f32, 3.0f32] [-149i32, -150i32, -149i32] [0.0f32, -0.0f32, 1.401298464324817e-45f32] [-1.0f32, 1.0f32, 0.0f32] }
-- output { [1.401298464324817e-45f32, 0.0f32, 4.203895392974451e-45f32] [-1.401298464324817e-45f32, 1.401298464324817e-45f32, 0.0f32] }

entry ldexp (xs: []f64) (ns: []i32) : []f64 = map2 f64.ldexp xs ns

entry nextafter (xs: []f64) (ys: []f64) : []f64 = map2 f64.nextafter xs ys

entry subnormal32 (xs: []f32) (ns: []i32) (as: []f32) (bs: []f32) : ([]f32, []f32) =
  (map2 f32.ldexp xs ns, map2 f32.nextafter as bs)
