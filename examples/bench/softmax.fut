-- Benchmark: numerically stable softmax over each row of a matrix.
def softmax [m] (xs: [m]f32) : [m]f32 =
  let mx = f32.maximum xs
  let es = map (\x -> f32.exp (x - mx)) xs
  let s = f32.sum es
  in map (/ s) es

-- ==
-- input { [[1f32, 2f32, 3f32], [0f32, 0f32, 0f32]] }
-- output { [[0.09003057f32, 0.24472846f32, 0.66524094f32], [0.33333334f32, 0.33333334f32, 0.33333334f32]] }
entry main [n][m] (xss: [n][m]f32) : [n][m]f32 =
  map softmax xss
