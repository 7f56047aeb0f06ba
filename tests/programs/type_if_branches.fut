-- Type error: the branches of an `if` have different types.
-- ==
-- error: type mismatch

def main (b: bool) : i32 =
  if b then 1i32 else 2.0f32
