-- Run-time size error: two arrays zipped together after a coercion claims equal lengths.
-- ==
-- input { [1i32, 2i32] [3i32, 4i32] }
-- output { [4i32, 6i32] }
-- input { [1i32, 2i32, 3i32] [4i32, 5i32] }
-- error: size mismatch

def main [n][m] (xs: [n]i32) (ys: [m]i32) : [n]i32 =
  map (\(x, y) -> x + y) (zip xs (ys :> [n]i32))
