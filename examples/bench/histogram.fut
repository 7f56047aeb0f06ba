-- Benchmark: histogram of values in [0,1) into k equal bins (values outside are clamped).
def bin (k: i64) (x: f32) : i64 =
  i64.max 0 (i64.min (k - 1) (i64.f32 (x * f32.i64 k)))

-- ==
-- input { 4i64 [0.0f32, 0.1f32, 0.3f32, 0.5f32, 0.99f32, 1.0f32, -0.5f32, 0.25f32] }
-- output { [3i32, 2i32, 1i32, 2i32] }
entry main [n] (k: i64) (xs: [n]f32) : [k]i32 =
  hist (+) 0 k (map (bin k) xs) (replicate n 1)
