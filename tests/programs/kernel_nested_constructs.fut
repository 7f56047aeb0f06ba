-- Constructs nested in a parallel function: an `if` returning arrays, a histogram per row, a scan
-- per row, a scatter per row, and updates of slices.

-- ==
-- entry: scale_rows
-- input { [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32]] [0i32, 2i32, -1i32] }
-- output { [[1f32, 2f32], [1.5f32, 2f32], [-5f32, -6f32]] }
entry scale_rows [n][m] (xss: [n][m]f32) (cs: [n]i32) : [n][m]f32 =
  map2 (\xs c -> if c == 0 then xs else map (/ f32.i32 c) xs) xss cs

-- ==
-- entry: pick
-- input { [[1i32, 2i32, 3i32], [-1i32, 5i32, 6i32]] }
-- output { [10i32, 13i32] }
entry pick [n] (xss: [n][3]i32) : [n]i32 =
  map (\xs -> let (s, ys) = if xs[0] > 0 then (1, map (+ 1) xs) else (3, xs)
              in s + reduce (+) 0 ys) xss

-- ==
-- entry: row_hists
-- input { [0i64, 2i64, 2i64, 5i64, -1i64] [[1f32, 2f32, 3f32, 4f32, 5f32], [10f32, 20f32, 30f32, 40f32, 50f32]] }
-- output { [[1f32, 0f32, 5f32], [10f32, 0f32, 50f32]] }
entry row_hists [n][d] (is: [n]i64) (pts: [d][n]f32) : [d][3]f32 =
  map (\xs -> reduce_by_index (replicate 3 0f32) (+) 0 is xs) pts

-- ==
-- entry: row_scans
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] }
-- output { [[1i32, 3i32, 6i32], [4i32, 9i32, 15i32]] }
-- input { empty([0][3]i32) }
-- output { empty([0][3]i32) }
entry row_scans [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\xs -> scan (+) 0 xs) xss

-- ==
-- entry: row_scatters
-- input { [[2i64, 0i64, 7i64], [1i64, 1i64, 0i64]] }
-- output { [[2i64, 0i64, 1i64], [3i64, 2i64, 0i64]] }
entry row_scatters [n] (iss: [n][3]i64) : [n][3]i64 =
  map (\is -> scatter (replicate 3 0) is (map (+ 1) (iota 3))) iss

-- ==
-- entry: set_row
-- input { [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]] 2i64 }
-- output { [[1i32, 2i32], [3i32, 4i32], [0i32, 1i32]] }
-- input { [[1i32, 2i32]] 1i64 }
-- error: out of bounds
entry set_row [n][m] (xss: *[n][m]i32) (i: i64) : [n][m]i32 =
  xss with [i] = map i32.i64 (iota m)

-- ==
-- entry: set_heads
-- input { [[1i32, 2i32], [3i32, 4i32]] }
-- output { [[7i32, 2i32], [7i32, 4i32]] }
entry set_heads [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\xs -> copy xs with [0] = 7) xss

-- ==
-- entry: col_sums
-- input { [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32]] }
-- output { [9f32, 12f32] }
-- input { empty([0][2]f32) }
-- output { [0f32, 0f32] }
entry col_sums [n][m] (xss: [n][m]f32) : [m]f32 =
  reduce (map2 (+)) (replicate m 0) xss

-- ==
-- entry: block_sums
-- input { [[[1i32, 2i32], [3i32, 4i32]], [[5i32, 6i32], [7i32, 8i32]]] }
-- output { [[4i32, 6i32], [12i32, 14i32]] }
entry block_sums [k][n][m] (xsss: [k][n][m]i32) : [k][m]i32 =
  map (\xss -> reduce (map2 (+)) (replicate m 0) xss) xsss

-- Delayed arrays keep the values of their definition: a function inlined twice, and rows of a
-- map taken before another row is computed.
def scale [n] (s: f32) (xs: [n]f32) : [n]f32 = map (\x -> x * s) xs

-- ==
-- entry: twice_inlined
-- input { [[1f32, 2f32], [3f32, 4f32]] }
-- output { [[5f32, 10f32], [15f32, 20f32]] }
entry twice_inlined [m][n] (xss: [m][n]f32) : [m][n]f32 =
  map (\xs -> let a = scale 2 xs
              let b = scale 3 xs
              in map2 (+) a b) xss

-- ==
-- entry: rows_apart
-- input { [1f32, 2f32] [10f32, 20f32, 30f32] }
-- output { [23f32, 26f32] }
entry rows_apart [n] (xs: [n]f32) (ys: [3]f32) : [n]f32 =
  map (\x -> let m = map (\a -> let s = a * x in map (\y -> y + s) ys) [1f32, 2f32]
             let r1 = m[0]
             let r2 = m[1]
             in r1[0] + r2[0]) xs
