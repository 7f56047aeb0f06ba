-- AUTOMAP: all pairwise Euclidean distances; only the outer `map` is written.
-- ==
-- input { [[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]] }
-- output { [[0.0, 5.0, 10.0], [5.0, 0.0, 5.0], [10.0, 5.0, 0.0]] }

def main [n][d] (ps: [n][d]f64) : [n][n]f64 =
  map (\p -> f64.sqrt (f64.sum ((ps - p) * (ps - p)))) ps
