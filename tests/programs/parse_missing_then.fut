-- Parse error: an `if` whose `then` is missing.
-- ==
-- error: expected .then.

def main (x: i32) : i32 =
  if x > 0 x else 0
