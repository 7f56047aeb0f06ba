-- Scans over the rows of arrays whose operator combines rows elementwise: each column is
-- scanned on its own (the GPU backend runs them as a segmented scan of the columns).

-- Column prefix sums.
-- ==
-- entry: sums
-- input { [[1f32, 2f32], [3f32, 4f32], [0.5f32, -1f32]] }
-- output { [[1f32, 2f32], [4f32, 6f32], [4.5f32, 5f32]] }
-- input { empty([0][3]f32) }
-- output { empty([0][3]f32) }
entry sums [n][m] (xss: [n][m]f32) : [n][m]f32 = scan (map2 (+)) (replicate m 0) xss

-- A running maximum with a neutral row from the caller, and a running minimum.
-- ==
-- entry: running
-- input { [[3, -1], [1, 5], [4, -2]] [0, -9] }
-- output { [[3, -1], [3, 5], [4, 5]] [[3, -1], [1, -1], [1, -2]] }
entry running [n][m] (xss: [n][m]i32) (ne: [m]i32) =
  (scan (map2 i32.max) ne xss, scan (map2 i32.min) (replicate m i32.highest) xss)

-- Rows of two dimensions: every element is a column.
-- ==
-- entry: cubes
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[1, 1], [1, 1]]] }
-- output { [[[1, 2], [3, 4]], [[6, 8], [10, 12]], [[7, 9], [11, 13]]] }
entry cubes [n][m][p] (xsss: [n][m][p]i32) : [n][m][p]i32 =
  scan (map2 (map2 (+))) (replicate m (replicate p 0)) xsss

-- A segmented scan of rows: a flag and a row per element, the flags scanned with each column.
-- ==
-- entry: segmented
-- input { [true, false, false, true, false]
--         [[1f32, 2f32], [3f32, 4f32], [0.5f32, -1f32], [2f32, 2f32], [1f32, 0f32]] }
-- output { [true, true, true, true, true]
--          [[1f32, 2f32], [7f32, 14f32], [11f32, -1f32], [2f32, 2f32], [5f32, 2f32]] }
entry segmented [n][m] (fs: [n]bool) (xss: [n][m]f32) =
  let op (f1: bool, x: [m]f32) (f2: bool, y: [m]f32) =
    (f1 || f2, if f2 then y else map2 (\a b -> a * b + a + b) x y)
  in unzip (scan op (false, replicate m 0) (zip fs xss))

-- Reverse mode of a histogram of rows with an operator other than +, *, min and max, which
-- scans the rows of each bin in segments.
-- ==
-- entry: hist_rows
-- input { [1i64, 0i64, 1i64] [[1f32, 2f32], [3f32, 4f32], [0.5f32, -0.5f32]] }
-- output { [[1.5f32, 1f32], [1f32, 1f32], [2f32, 6f32]] }
entry hist_rows [n] (is: [n]i64) (xss: [n][2]f32) =
  let op (x: f32) (y: f32) = x + y + x * y
  in vjp (\xss -> hist (map2 op) (replicate 2 0) 2 is xss) xss [[1, 1], [1, 2]]
