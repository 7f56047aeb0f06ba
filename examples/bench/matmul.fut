-- Benchmark: dense f32 matrix multiplication (rows of `a` against the columns of `b`).
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32]] [[5f32, 6f32], [7f32, 8f32]] }
-- output { [[19f32, 22f32], [43f32, 50f32]] }
-- input { [[1f32, 0f32, -1f32]] [[2f32], [3f32], [4f32]] }
-- output { [[-2f32]] }
entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\row -> map (\col -> f32.sum (map2 (*) row col)) (transpose b)) a
