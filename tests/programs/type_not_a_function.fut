-- Type error: applying a value that is not a function.
-- ==
-- error: not a function|type mismatch

def main (x: i32) : i32 =
  let y = 5
  in y x
