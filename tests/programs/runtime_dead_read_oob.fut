-- A read whose value is never used still fails out of bounds, inside a map inside a map (which
-- the GPU backend runs inside one kernel, the inner map only for its checks).
-- ==
-- input { [1f32, 2f32, 3f32, 4f32] 1i64 }
-- output { [2f32, 3f32, 4f32, 5f32] }
-- input { [1f32, 2f32, 3f32, 4f32] 10i64 }
-- error: out of bounds
entry main (xs: []f32) (k: i64) =
  map (\x -> let ys = map (\j -> xs[j + k]) (iota 3) in x + 1) xs
