-- Run-time error: indexing a matrix out of bounds names every index and every dimension.
-- ==
-- input { 1i64 4i64 }
-- output { 9i32 }
-- input { 2i64 7i64 }
-- error: index \[2, 7\] out of bounds for array of shape \[3\]\[5\]
-- input { 3i64 0i64 }
-- error: out of bounds

def main (i: i64) (j: i64) : i32 =
  let m = tabulate_2d 3 5 (\r c -> i32.i64 (r * 5 + c))
  in m[i, j]
