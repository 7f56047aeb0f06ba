-- Size error: map2 over arrays whose sizes are distinct size parameters.
-- ==
-- error: size mismatch

def main [n][m] (xs: [n]i32) (ys: [m]i32) : [n]i32 =
  map2 (+) xs ys
