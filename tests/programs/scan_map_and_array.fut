-- A scan over a mapped array and an array read as it is (zipped together): the CPU backend
-- computes the mapped elements inside the scan's loop and reads the others.

-- ==
-- entry: mapped_second
-- input { [2f32, 0f32, 4f32, 1f32] }
-- output { [0f32, 1f32, 3f32, 6f32] }
entry mapped_second [n] (xs: [n]f32) : [n]f32 =
  let ys = map (\i -> f32.i64 i) (iota n)
  let (_, q) = unzip (scan (\(a, b) (c, d) -> (a + c, b + d)) (0, 0) (zip xs ys))
  in q

-- ==
-- entry: mapped_first
-- input { [2f32, 0f32, 4f32, 1f32] }
-- output { [0f32, 1f32, 3f32, 6f32] [2f32, 2f32, 6f32, 7f32] }
entry mapped_first [n] (xs: [n]f32) : ([n]f32, [n]f32) =
  let ys = map (\i -> f32.i64 i) (iota n)
  let (p, q) = unzip (scan (\(a, b) (c, d) -> (a + c, b + d)) (0, 0) (zip ys xs))
  in (p, q)

-- The tangent of a product scan: its seeds are a map, the values the argument.
-- ==
-- entry: product_tangent
-- input { [2f32, 0f32, 4f32] }
-- output { [0f32, 2f32, 8f32] }
-- input { [3f32, 5f32, 2f32, 1f32] }
-- output { [0f32, 3f32, 6f32, 6f32] }
entry product_tangent [n] (xs: [n]f32) : [n]f32 =
  jvp (\as -> scan (*) 1 as) xs (map (\i -> f32.bool (i == 1)) (iota n))
