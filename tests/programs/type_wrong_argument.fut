-- Type error: a function applied to an argument of the wrong type.
-- ==
-- error: type mismatch

def inc (x: i32) : i32 = x + 1

def main (b: bool) : i32 =
  inc b
