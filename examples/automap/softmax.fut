-- AUTOMAP: softmax of a vector, with the scalar operations lifted, then of every row.

-- ==
-- entry: softmax
-- input { [0.0, 0.0] }
-- output { [0.5, 0.5] }
entry softmax (xs: []f64) : []f64 =
  let m = f64.maximum xs
  let es = f64.exp (xs - m)
  in es / f64.sum es

-- ==
-- entry: softmax_rows
-- input { [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]] }
-- output { [[0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]] }
entry softmax_rows (xss: [][]f64) : [][]f64 = map softmax xss
