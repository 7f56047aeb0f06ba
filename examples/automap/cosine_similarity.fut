-- AUTOMAP: cosine similarity of one query against every row of a matrix; the dot products and
-- norms are lifted over the rows without maps.
-- ==
-- input { [[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]] [1.0, 0.0] }
-- output { [1.0, 0.0, 0.7071067811865475] }

def norm (xs: []f64) : f64 = f64.sqrt (f64.sum (xs * xs))

def main [n][d] (m: [n][d]f64) (q: [d]f64) : [n]f64 =
  f64.sum (m * q) / (norm m * norm q)
