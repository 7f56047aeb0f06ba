-- Type error: the operands of `+` have different types.
-- ==
-- error: type mismatch

def main (x: i32) : i32 =
  x + 1.5f32
