-- scatter: of duplicate indices the last write wins, out-of-bounds writes are ignored, and a
-- write can be a whole row.

-- ==
-- entry: duplicates
-- input { [0f32, 0f32, 0f32, 0f32] [1i64, 3i64, 1i64, -1i64, 4i64, 1i64] [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- output { [0f32, 6f32, 0f32, 2f32] }
-- input { [7f32, 8f32] empty([0]i64) empty([0]f32) }
-- output { [7f32, 8f32] }
entry duplicates [n] [w] (dest: [n]f32) (is: [w]i64) (vs: [w]f32) : [n]f32 =
  scatter (copy dest) is vs

-- Many writes to few cells: each cell keeps the value of its last write.
-- ==
-- entry: crowded
-- input { 5i64 100000i64 }
-- output { [99995i64, 99996i64, 99997i64, 99998i64, 99999i64] }
entry crowded (n: i64) (w: i64) : [n]i64 =
  scatter (replicate n 0) (map (% n) (iota w)) (iota w)

-- Rows: `vals[j]` replaces row `is[j]`.
-- ==
-- entry: rows
-- input { [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]] [2i64, 0i64, 2i64, 7i64] [[10i32, 11i32], [12i32, 13i32], [14i32, 15i32], [16i32, 17i32]] }
-- output { [[12i32, 13i32], [3i32, 4i32], [14i32, 15i32]] }
entry rows [n] [m] [w] (dest: [n][m]i32) (is: [w]i64) (vs: [w][m]i32) : [n][m]i32 =
  scatter (copy dest) is vs

-- The destination is still read after the scatter: it is not written in place.
-- ==
-- entry: kept
-- input { [1f32, 2f32, 3f32] [0i64] [9f32] }
-- output { [1f32, 2f32, 3f32] [9f32, 2f32, 3f32] }
entry kept [n] [w] (dest: [n]f32) (is: [w]i64) (vs: [w]f32) : ([n]f32, [n]f32) =
  let d = copy dest
  let r = scatter d is vs
  in (dest, r)
