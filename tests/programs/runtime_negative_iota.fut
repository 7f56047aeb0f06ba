-- Run-time error: iota of a negative length.
-- ==
-- input { 3i64 }
-- output { [0i64, 1i64, 2i64] }
-- input { 0i64 }
-- output { empty([0]i64) }
-- input { -1i64 }
-- error: negative|invalid

def main (n: i64) : []i64 =
  iota n
