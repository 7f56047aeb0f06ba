-- Numerically stable softmax: subtract the maximum, exponentiate, normalise by the sum.

-- ==
-- input { [1.0f32, 2.0f32, 3.0f32] }
-- output { [0.09003057f32, 0.24472846f32, 0.66524094f32] }
-- input { [0.0f32, 0.0f32, 0.0f32, 0.0f32] }
-- output { [0.25f32, 0.25f32, 0.25f32, 0.25f32] }
-- input { [1000.0f32, 1000.0f32] }
-- output { [0.5f32, 0.5f32] }
-- input { [-1.5f32] }
-- output { [1.0f32] }
-- input { empty([0]f32) }
-- output { empty([0]f32) }
-- random input { [1000]f32 }
entry main [n] (xs: [n]f32) : [n]f32 =
  let m = f32.maximum xs
  let es = map (\x -> f32.exp (x - m)) xs
  let s = f32.sum es
  in map (/ s) es
