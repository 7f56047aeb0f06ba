-- Type error: the condition of an `if` must be a bool.
-- ==
-- error: type mismatch: expected .bool.

def main (x: i32) : i32 =
  if x then 1 else 2
