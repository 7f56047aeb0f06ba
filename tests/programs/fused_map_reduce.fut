-- A map whose values only a reduction reads is compiled without storing them (vector lanes
-- folded into several accumulators, then a scalar tail): lengths around the vector and unrolled
-- block sizes, every operator of the vector path, and NaN through `max` (which, as in Futhark,
-- prefers the number).

-- ==
-- entry: dot
-- input { empty([0]f32) empty([0]f32) }
-- output { 0f32 }
-- input { [1f32, 2f32, 3f32] [4f32, 5f32, 6f32] }
-- output { 32f32 }
-- input { [1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 9f32, 10f32, 11f32, 12f32, 13f32, 14f32, 15f32, 16f32, 17f32]
--         [1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 2f32] }
-- output { 170f32 }
entry dot [n] (xs: [n]f32) (ys: [n]f32) : f32 = f32.sum (map2 (*) xs ys)

-- ==
-- entry: largest_square
-- input { [1f32, -5f32, 2f32, 3f32, 0f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 4f32, 1f32] }
-- output { 25f32 }
-- input { [1f32, 2f32, f32.nan, 3f32, 0f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 4f32, 1f32] }
-- output { 16f32 }
entry largest_square (xs: []f32) : f32 = f32.maximum (map (\x -> x * x) xs)

-- ==
-- entry: product_i32
-- input { [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19] }
-- output { 109641728 }
entry product_i32 (xs: []i32) : i32 = i32.product (map (+ 0) xs)

-- ==
-- entry: sum_f64
-- input { [0.5f64, 1.5f64, 2.5f64, 3.5f64, 4.5f64, 5.5f64, 6.5f64, 7.5f64, 8.5f64] }
-- output { 81.0f64 }
entry sum_f64 (xs: []f64) : f64 = f64.sum (map (* 2) xs)

-- The mapped array is also returned, so it is stored as well.
-- ==
-- entry: squares_and_sum
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [1i32, 4i32, 9i32, 16i32, 25i32] 55i32 }
entry squares_and_sum (xs: []i32) : ([]i32, i32) =
  let sq = map (\x -> x * x) xs
  in (sq, i32.sum sq)

-- Matrix products are register-blocked: four rows of `b` at a time, then the remaining rows;
-- each dot product's length has a vector part and a scalar tail.
-- ==
-- entry: matmul
-- input { [[1f32, 2f32, 3f32, 4f32, 5f32, 6f32], [0f32, 1f32, 0f32, 1f32, 0f32, 1f32]]
--         [[1f32, 0f32, 0f32, 0f32, 0f32], [0f32, 1f32, 0f32, 0f32, 0f32], [0f32, 0f32, 1f32, 0f32, 0f32],
--          [0f32, 0f32, 0f32, 1f32, 0f32], [0f32, 0f32, 0f32, 0f32, 1f32], [1f32, 1f32, 1f32, 1f32, 1f32]] }
-- output { [[7f32, 8f32, 9f32, 10f32, 11f32], [1f32, 2f32, 1f32, 2f32, 1f32]] }
-- input { empty([0][3]f32) [[1f32], [2f32], [3f32]] }
-- output { empty([0][1]f32) }
-- input { [[1f32, 2f32]] empty([2][0]f32) }
-- output { [empty([0]f32)] }
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\row -> map (\col -> f32.sum (map2 (*) row col)) (transpose b)) a

-- The blocked rows may appear more than once in the inner map, beside free arrays and scalars.
-- ==
-- entry: weighted_norms
-- input { [1f32, 2f32, 3f32, 4f32, 5f32] 2f32
--         [[1f32, 1f32, 1f32, 1f32, 1f32], [1f32, 0f32, 0f32, 0f32, 2f32], [0f32, 0f32, 0f32, 0f32, 0f32],
--          [1f32, 2f32, 3f32, 4f32, 5f32], [3f32, 0f32, 0f32, 0f32, 0f32], [0f32, 0f32, 1f32, 0f32, 0f32]] }
-- output { [17f32, 23f32, 2f32, 227f32, 11f32, 5f32] }
entry weighted_norms (w: []f32) (s: f32) (rows: [][]f32) : []f32 =
  map (\r -> f32.sum (map2 (\x wx -> x * x * wx + s / 5) r w)) rows

-- A reduction of an array as it is (no map) keeps several vector accumulators too, over blocks
-- of four vectors, then single vectors, then a scalar tail; NaN in every part.
-- ==
-- entry: maxima
-- input { empty([0]f32) [1f32, 2f32, 3f32] }
-- output { -f32.inf 3f32 }
-- input { [1f32, 9f32, 2f32, 3f32, 0f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 1f32, 4f32, 1f32, 8f32, 2f32, 7f32]
--         [f32.nan, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 9f32, 10f32, 11f32, 12f32, 13f32, 14f32, 15f32, 16f32, 17f32, 18f32, 19f32, 20f32, f32.nan] }
-- output { 9f32 20f32 }
-- input { [f32.nan, f32.nan, f32.nan, f32.nan, f32.nan] [1f32, 2f32, 3f32, 4f32, 5f32, 6f32, 7f32, 8f32, 9f32, 10f32, 11f32, 12f32, 13f32, 14f32, 15f32, 16f32, 17f32, 18f32, 19f32, 20f32, f32.nan, 21f32] }
-- output { -f32.inf 21f32 }
entry maxima (xs: []f32) (ys: []f32) : (f32, f32) = (f32.maximum xs, f32.maximum ys)

-- ==
-- entry: int_and_f64_reductions
-- input { [5, -3, 8, 1, 9, -7, 2, 0, 4, 4, 6, -1, 3, 3, 2, 1, -9, 5] [0.25f64, 1.5f64, 2.5f64, 3.5f64, 4.5f64, 5.5f64, 6.5f64, 7.5f64, 8.5f64] }
-- output { -9 9 40.25f64 }
entry int_and_f64_reductions (xs: []i32) (ys: []f64) : (i32, i32, f64) =
  (i32.minimum xs, i32.maximum xs, f64.sum ys)
