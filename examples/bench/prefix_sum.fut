-- Benchmark: inclusive prefix sum of f32s.
-- ==
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [1f32, 3f32, 6f32, 10f32] }
-- input { empty([0]f32) }
-- output { empty([0]f32) }
entry main [n] (xs: [n]f32) : [n]f32 =
  scan (+) 0 xs
