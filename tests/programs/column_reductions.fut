-- Elementwise reductions of many arrays into a small one (a gradient summed over samples):
-- the GPU folds chunks of the arrays for each element, then the chunks, when the result alone
-- has too few elements to fill the device. Results as folding every array in order.

def rows (n: i64) : [n][3]f32 =
  map (\i -> map (\j -> f32.i64 ((i * 7 + j * 5) % 11) - 5) (iota 3)) (iota n)

-- 1000 arrays of three: chunks of at least 32, and the last one short.
-- ==
-- entry: sums
-- input { 1000i64 }
-- output { [1.0f32, -4.0f32, 2.0f32] }
-- input { 7i64 }
-- output { [2.0f32, -7.0f32, 6.0f32] }
-- input { 0i64 }
-- output { [0.0f32, 0.0f32, 0.0f32] }
entry sums (n: i64) : [3]f32 = reduce (map2 (+)) (replicate 3 0) (rows n)

-- Maxima, and a reduction of matrices (the elements of [2][2]), over integers.
-- ==
-- entry: maxima
-- input { 1000i64 }
-- output { [5.0f32, 5.0f32, 5.0f32] [[999i32, 998i32], [997i32, 996i32]] }
entry maxima (n: i64) : ([3]f32, [2][2]i32) =
  let ms = map (\i -> [[i32.i64 i, i32.i64 (i - 1)], [i32.i64 (i - 2), i32.i64 (i - 3)]]) (iota n)
  in (reduce (map2 f32.max) (replicate 3 f32.lowest) (rows n),
      reduce (map2 (map2 i32.max)) (replicate 2 (replicate 2 i32.lowest)) ms)

-- Sums of the elements of a product, computed where the chunks read them.
-- ==
-- entry: weighted
-- input { [1f32, 2f32, 3f32] 200i64 }
-- output { [200.0f32, 400.0f32, 600.0f32] }
entry weighted [k] (ws: [k]f32) (n: i64) : [k]f32 =
  reduce (map2 (+)) (replicate k 0) (map (\i -> map (\w -> w * f32.i64 (i % 5 - 1)) ws) (iota n))
