-- Run-time error: replicate with a negative count.
-- ==
-- input { 2i64 }
-- output { [7i32, 7i32] }
-- input { -2i64 }
-- error: negative|invalid

def main (n: i64) : []i32 =
  replicate n 7
