-- Run-time error: a failing assertion.
-- ==
-- input { 4i32 }
-- output { 2i32 }
-- input { -4i32 }
-- error: assertion failed

def main (x: i32) : i32 =
  assert (x >= 0) (x / 2)
