-- Run-time size error: a size coercion to a length the array does not have.
-- ==
-- input { 2i64 [1i32, 2i32] }
-- output { [1i32, 2i32] }
-- input { 3i64 [1i32, 2i32] }
-- error: size mismatch

def main (n: i64) (xs: []i32) : [n]i32 =
  xs :> [n]i32
