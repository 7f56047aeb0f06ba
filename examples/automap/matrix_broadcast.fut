-- AUTOMAP: a vector meets a matrix. Reps add leading dimensions, so the vector lines up with
-- the matrix's rows (trailing alignment), whichever side it is on.

-- ==
-- entry: row_plus
-- input { [[1, 2], [3, 4]] [10, 20] }
-- output { [[11, 22], [13, 24]] }
entry row_plus (xss: [][]i32) (ys: []i32) : [][]i32 = xss + ys

-- ==
-- entry: plus_row
-- input { [[1, 2], [3, 4]] [10, 20] }
-- output { [[11, 22], [13, 24]] }
entry plus_row (xss: [][]i32) (ys: []i32) : [][]i32 = ys + xss

-- ==
-- entry: three_ranks
-- input { 3 [1, 1] [[1, 2], [3, 4]] }
-- output { [[5, 6], [7, 8]] }
entry three_ranks (x: i32) (ys: []i32) (zss: [][]i32) : [][]i32 = x + ys + zss
