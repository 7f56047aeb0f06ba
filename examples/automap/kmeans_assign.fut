-- AUTOMAP: the assignment step of k-means. `closest` is written for one point; applied to all
-- points it is lifted, and the squared distances to every centre need no maps either.
-- ==
-- input { [[0.0, 0.0], [10.0, 10.0], [1.0, 0.0], [9.0, 9.0]] [[0.0, 0.0], [10.0, 10.0]] }
-- output { [0i64, 1i64, 0i64, 1i64] }

def closest [k][d] (cs: [k][d]f64) (p: [d]f64) : i64 =
  let ds = f64.sum ((cs - p) * (cs - p))
  let (_, i) =
    reduce (\(a, i) (b, j) -> if a <= b then (a, i) else (b, j)) (f64.inf, -1) (zip ds (iota k))
  in i

def main [n][k][d] (ps: [n][d]f64) (cs: [k][d]f64) : [n]i64 =
  closest cs ps
