-- Run-time size error: the flattened matrix is coerced to a length other than rows times columns.
-- ==
-- input { 4i64 [[1i32, 2i32], [3i32, 4i32]] }
-- output { [1i32, 2i32, 3i32, 4i32] }
-- input { 5i64 [[1i32, 2i32], [3i32, 4i32]] }
-- error: size mismatch

def main (k: i64) (xss: [][]i32) : [k]i32 =
  flatten xss :> [k]i32
