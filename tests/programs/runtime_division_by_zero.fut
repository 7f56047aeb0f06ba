-- Run-time error: integer division and remainder by zero, for each of the four operators.
-- ==
-- input { 7i32 2i32 }
-- output { 3i32 1i32 3i32 1i32 }
-- input { 7i32 0i32 }
-- error: division by zero

def main (a: i32) (b: i32) : (i32, i32, i32, i32) =
  (a / b, a % b, a // b, a %% b)
