-- Seed-001 §7 test 13: a gather through a map with a free array; duplicates accumulate.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 2i64, 2i64, 4i64] [1.0, 1.0, 1.0, 1.0] }
-- output { [1.0, 0.0, 2.0, 0.0, 1.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 2i64, 2i64, 4i64] [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 0.0, 5.0, 0.0, 4.0] }
entry main (as: []f64) (is: []i64) (seed: []f64) = vjp (\as -> map (\i -> as[i]) is) as seed

-- One element of a matrix per element of the map, at two computed indices (a contribution
-- that is one element with two indices).
-- ==
-- entry: two_indices
-- input { [[1f32, 2f32], [3f32, 4f32]] [0i64, 1i64, 1i64, 5i64] [1i64, 0i64, 0i64, 0i64] }
-- output { [[0f32, 1f32], [5f32, 0f32]] }
entry two_indices [n][w] (a: [n][n]f32) (is: [w]i64) (js: [w]i64) : [n][n]f32 =
  vjp (\a -> map2 (\i j -> if i < n && j < n then a[i, j] * 1 else 0) is js) a
      (map (\k -> f32.i64 k + 1) (iota w))
