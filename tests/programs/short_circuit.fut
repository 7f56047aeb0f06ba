-- `&&` and `||` short-circuit: their right operand is not evaluated (so its index is never out of
-- bounds) when the left operand decides the result.
-- ==
-- input { [3i32, 0i32, 5i32] 1i64 }
-- output { false true }
-- input { [3i32, 0i32, 5i32] 7i64 }
-- output { false true }
-- input { empty([0]i32) 0i64 }
-- output { false true }
-- input { [4i32] 0i64 }
-- output { true false }

def main [n] (xs: [n]i32) (i: i64) : (bool, bool) =
  (i < n && xs[i] > 0, i >= n || xs[i] == 0 || xs[i] < 0)
