-- Type error: nothing determines the element type of the empty array.
-- ==
-- error: ambiguous

def main (x: i32) : i64 =
  length []
