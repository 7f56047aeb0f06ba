-- Benchmark: dot product of two f32 vectors (a fused map-reduce).
-- ==
-- input { [1f32, 2f32, 3f32] [4f32, 5f32, 6f32] }
-- output { 32f32 }
-- input { empty([0]f32) empty([0]f32) }
-- output { 0f32 }
entry main [n] (xs: [n]f32) (ys: [n]f32) : f32 =
  f32.sum (map2 (*) xs ys)
