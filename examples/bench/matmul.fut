-- Benchmark: dense f32 matrix multiplication (rows of `a` against the rows of `b` transposed,
-- transposed once outside the loops).
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32]] [[5f32, 6f32], [7f32, 8f32]] }
-- output { [[19f32, 22f32], [43f32, 50f32]] }
-- input { [[1f32, 0f32, -1f32]] [[2f32], [3f32], [4f32]] }
-- output { [[-2f32]] }
entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\row -> map (\col -> f32.sum (map2 (*) row col)) bt) a
