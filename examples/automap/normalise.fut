-- AUTOMAP: scale a vector to unit length, and every row of a matrix.

-- ==
-- entry: unit
-- input { [3.0, 4.0] }
-- output { [0.6, 0.8] }
entry unit (xs: []f64) : []f64 = xs / f64.sqrt (f64.sum (xs * xs))

-- ==
-- entry: unit_rows
-- input { [[3.0, 4.0], [0.0, 2.0]] }
-- output { [[0.6, 0.8], [0.0, 1.0]] }
entry unit_rows (xss: [][]f64) : [][]f64 = map unit xss
