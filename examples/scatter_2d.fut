-- scatter_2d writes values at (row, column) positions of a matrix; positions outside it are ignored.

-- ==
-- entry: permutation_matrix
-- input { [2i64, 0i64, 1i64] }
-- output { [[0i32, 0i32, 1i32], [1i32, 0i32, 0i32], [0i32, 1i32, 0i32]] }
-- input { [0i64] }
-- output { [[1i32]] }
-- input { empty([0]i64) }
-- output { empty([0][0]i32) }
entry permutation_matrix [n] (perm: [n]i64) : [n][n]i32 =
  scatter_2d (replicate n (replicate n 0)) (zip (iota n) perm) (replicate n 1)

-- ==
-- entry: sparse_to_dense
-- input { 2i64 3i64 [0i64, 1i64, 1i64] [2i64, 0i64, 1i64] [1.5f32, -2.0f32, 4.0f32] }
-- output { [[0.0f32, 0.0f32, 1.5f32], [-2.0f32, 4.0f32, 0.0f32]] }
-- input { 2i64 2i64 [0i64, 5i64, -1i64, 1i64] [0i64, 0i64, 0i64, 1i64] [1.0f32, 2.0f32, 3.0f32, 4.0f32] }
-- output { [[1.0f32, 0.0f32], [0.0f32, 4.0f32]] }
-- input { 1i64 2i64 empty([0]i64) empty([0]i64) empty([0]f32) }
-- output { [[0.0f32, 0.0f32]] }
entry sparse_to_dense [k] (n: i64) (m: i64) (rows: [k]i64) (cols: [k]i64) (vals: [k]f32) : [n][m]f32 =
  scatter_2d (replicate n (replicate m 0)) (zip rows cols) vals

-- ==
-- entry: diagonal
-- input { 3i64 7i32 }
-- output { [[7i32, 0i32, 0i32], [0i32, 7i32, 0i32], [0i32, 0i32, 7i32]] }
-- input { 0i64 1i32 }
-- output { empty([0][0]i32) }
entry diagonal (n: i64) (x: i32) : [n][n]i32 =
  scatter_2d (replicate n (replicate n 0)) (map (\i -> (i, i)) (iota n)) (replicate n x)
