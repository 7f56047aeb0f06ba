-- Run-time size error: unflatten with dimensions whose product is not the array's length.
-- ==
-- input { 2i64 3i64 [1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- output { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] }
-- input { 2i64 3i64 [1i32, 2i32, 3i32, 4i32, 5i32] }
-- error: size mismatch

def main (n: i64) (m: i64) (xs: []i32) : [n][m]i32 =
  unflatten xs
