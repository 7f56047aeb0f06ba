-- AUTOMAP: a matrix-vector product without a single `map`: `A * x` multiplies every row by `x`,
-- and `sum` is lifted over the rows.
-- ==
-- input { [[1.0, 2.0], [3.0, 4.0]] [10.0, 100.0] }
-- output { [210.0, 430.0] }

def matvec [n][m] (a: [n][m]f64) (x: [m]f64) : [n]f64 =
  f64.sum (a * x)

def main (a: [][]f64) (x: []f64) : []f64 = matvec a x
