-- Descriptive statistics with the numeric modules: sum, product, minimum, maximum, min, max, abs, sgn,
-- highest/lowest as neutral elements, and NaN for the mean of nothing.

-- ==
-- entry: summary
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] }
-- output { 10.0f32 24.0f32 1.0f32 4.0f32 2.5f32 }
-- input { [-1.5f32, 0.5f32, 2.0f32] }
-- output { 1.0f32 -1.5f32 -1.5f32 2.0f32 0.33333334f32 }
-- input { empty([0]f32) }
-- output { 0.0f32 1.0f32 f32.inf -f32.inf f32.nan }
-- random input { [1000]f32 }
entry summary [n] (xs: [n]f32) : (f32, f32, f32, f32, f32) =
  let mean = if n == 0 then f32.nan else f32.sum xs / f32.i64 n
  in (f32.sum xs, f32.product xs, f32.minimum xs, f32.maximum xs, mean)

-- The minimum of no integers is the type's highest value, and the maximum its lowest.
-- ==
-- entry: int_summary
-- input { [3i64, -2i64, 7i64] }
-- output { 8i64 -42i64 -2i64 7i64 }
-- input { [5i64] }
-- output { 5i64 5i64 5i64 5i64 }
-- input { empty([0]i64) }
-- output { 0i64 1i64 9223372036854775807i64 -9223372036854775808i64 }
entry int_summary (xs: []i64) : (i64, i64, i64, i64) =
  (i64.sum xs, i64.product xs, i64.minimum xs, i64.maximum xs)

-- Both extremes in one pass; the operator is commutative, so reduce_comm may reorder.
-- ==
-- entry: extremes
-- input { [4i32, -9i32, 2i32, 17i32] }
-- output { -9i32 17i32 }
-- input { empty([0]i32) }
-- output { 2147483647i32 -2147483648i32 }
-- input { [3i32] }
-- output { 3i32 3i32 }
entry extremes (xs: []i32) : (i32, i32) =
  reduce_comm (\(lo1, hi1) (lo2, hi2) -> (i32.min lo1 lo2, i32.max hi1 hi2))
              (i32.highest, i32.lowest)
              (map (\x -> (x, x)) xs)

-- ==
-- entry: signs
-- input { [-2.0f32, 0.0f32, 3.5f32, -0.25f32] }
-- output { [2.0f32, 0.0f32, 3.5f32, 0.25f32] [-1.0f32, 0.0f32, 1.0f32, -1.0f32] [-2.0f32, 0.0f32, 1.0f32, -0.25f32] [1.0f32, 1.0f32, 3.5f32, 1.0f32] }
entry signs [n] (xs: [n]f32) : ([n]f32, [n]f32, [n]f32, [n]f32) =
  (map f32.abs xs, map f32.sgn xs, map (f32.min 1) xs, map (f32.max 1) xs)

-- ==
-- entry: variance
-- input { [2.0f64, 4.0f64, 4.0f64, 4.0f64, 5.0f64, 5.0f64, 7.0f64, 9.0f64] }
-- output { 5.0f64 4.0f64 2.0f64 }
-- input { [1.0f64, 1.0f64] }
-- output { 1.0f64 0.0f64 0.0f64 }
-- input { [3.0f64] }
-- output { 3.0f64 0.0f64 0.0f64 }
entry variance [n] (xs: [n]f64) : (f64, f64, f64) =
  let mean = f64.sum xs / f64.i64 n
  let var = f64.sum (map (\x -> (x - mean) ** 2) xs) / f64.i64 n
  in (mean, var, f64.sqrt var)
