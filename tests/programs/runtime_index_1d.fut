-- Run-time error: indexing a one-dimensional array out of bounds (past the end and negative).
-- ==
-- input { [1i32, 2i32, 3i32] 2i64 }
-- output { 3i32 }
-- input { [1i32, 2i32, 3i32] 3i64 }
-- error: out of bounds
-- input { [1i32, 2i32, 3i32] -1i64 }
-- error: out of bounds
-- input { empty([0]i32) 0i64 }
-- error: out of bounds

def main (xs: []i32) (i: i64) : i32 =
  xs[i]
