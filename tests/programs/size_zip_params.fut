-- Size error: zip of two arrays with different size parameters.
-- ==
-- error: size mismatch

def main [n][m] (xs: [n]i32) (ys: [m]f32) : [n](i32, f32) =
  zip xs ys
