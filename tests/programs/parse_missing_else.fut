-- Parse error: an `if` without an `else` branch.
-- ==
-- error: expected .else.

def main (x: i32) : i32 =
  if x > 0 then 1

def other (y: i32) : i32 = y
