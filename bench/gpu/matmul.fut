-- GPU roofline: a 4096×4096 by 4096×4096 f32 matrix product (2·4096³ = 137 GFLOP): bound by
-- arithmetic. The same program as examples/bench/matmul.fut.
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32]] [[5f32, 6f32], [7f32, 8f32]] }
-- output { [[19f32, 22f32], [43f32, 50f32]] }
-- random input { [2048][2048]f32 [2048][2048]f32 }
-- random input { [4096][4096]f32 [4096][4096]f32 }
entry main [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\row -> map (\col -> f32.sum (map2 (*) row col)) bt) a
