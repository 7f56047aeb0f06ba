-- AUTOMAP: standardise the columns of a data matrix: the column means and deviations are vectors
-- that broadcast over the rows.
-- ==
-- input { [[1.0, 10.0], [3.0, 30.0]] }
-- output { [[-1.0, -1.0], [1.0, 1.0]] }

def main [n][d] (xss: [n][d]f64) : [n][d]f64 =
  let mean = f64.sum (transpose xss) / f64.i64 n
  let dev = f64.sqrt (f64.sum (transpose ((xss - mean) * (xss - mean))) / f64.i64 n)
  in (xss - mean) / dev
