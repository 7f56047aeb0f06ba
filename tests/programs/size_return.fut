-- Size error: the result has size m where the return type promises n.
-- ==
-- error: size mismatch

def main [n][m] (xs: [n]i32) (ys: [m]i32) : [n]i32 =
  map (+ 1) ys
