-- A costly array of each row (an element costs a division, an exponential or a branch) that a
-- nested map reads once per element of its own rows: the GPU backend computes it once per row
-- instead of where each element is read. Every backend must give the same values.

-- Read as an array the inner map maps over.
-- ==
-- entry: scaled
-- input { [[1f32, 2f32], [4f32, 0.5f32]] [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] }
-- output { [[[1f32, 2f32, 3f32], [2f32, 2.5f32, 3f32]], [[0.25f32, 0.5f32, 0.75f32], [8f32, 10f32, 12f32]]] }
entry scaled [n][k][d] (xs: [n][k]f32) (ys: [k][d]f32) : [n][k][d]f32 =
  map (\x -> let w = map (\v -> 1 / v) x in map2 (\wi y -> map (* wi) y) w ys) xs

-- Folded by each element of a map with scalar results (a product with a transposed matrix).
-- ==
-- entry: folded
-- input { [[1f32, 2f32], [4f32, 0.5f32]] [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] }
-- output { [[3f32, 4.5f32, 6f32], [8.25f32, 10.5f32, 12.75f32]] }
entry folded [n][k][h] (xs: [n][k]f32) (w: [k][h]f32) : [n][h]f32 =
  map (\x -> let e = map (\v -> 1 / v) x in map (\c -> f32.sum (map2 (*) e c)) (transpose w)) xs

-- Read free in the inner map's function, after a branch that updates one element (as a
-- gradient's softmax weights are, at the index of their maximum).
-- ==
-- entry: updated
-- input { [[0f32, 1f32, 2f32], [3f32, 3f32, 0f32], [1f32, 0f32, 0f32]] [10f32, 20f32] }
-- output { [[[1f32, 2f32], [2f32, 4f32], [13f32, 26f32]], [[4f32, 8f32], [4f32, 8f32], [1f32, 2f32]],
--            [[2f32, 4f32], [11f32, 22f32], [1f32, 2f32]]] }
entry updated [n][k][d] (xs: [n][k]f32) (ys: [d]f32) : [n][k][d]f32 =
  map (\x ->
         let m = i64.i32 (i32.maximum (map i32.f32 x))
         let w = map (\v -> f32.exp (v - v) + v) x
         let w = if m < k then copy w with [m] = w[m] + 10 else w
         in map (\j -> map (\y -> w[j] * y / 10) ys) (iota k))
      xs

-- Integer division (flooring), with rows of no elements.
-- ==
-- entry: halves
-- input { [[7, 8], [9, -3]] [0, 100, 200] }
-- output { [[[3, 103, 203], [4, 104, 204]], [[4, 104, 204], [-2, 98, 198]]] }
-- input { empty([2][0]i32) [1, 2] }
-- output { empty([2][0][2]i32) }
entry halves [n][k][d] (xs: [n][k]i32) (ys: [d]i32) : [n][k][d]i32 =
  map (\x -> let h = map (/ 2) x in map (\hi -> map (+ hi) ys) h) xs
