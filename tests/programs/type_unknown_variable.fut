-- Type error: a variable that is not in scope.
-- ==
-- error: unknown variable .y.

def main (x: i32) : i32 =
  x + y
