-- Run-time error: a slice that reaches past the end of the array.
-- ==
-- input { [1i32, 2i32, 3i32] 1i64 3i64 }
-- output { [2i32, 3i32] }
-- input { [1i32, 2i32, 3i32] 1i64 5i64 }
-- error: out of bounds
-- input { [1i32, 2i32, 3i32] 2i64 1i64 }
-- error: out of bounds

def main (xs: []i32) (i: i64) (j: i64) : []i32 =
  xs[i:j]
