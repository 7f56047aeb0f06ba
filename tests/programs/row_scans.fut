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
