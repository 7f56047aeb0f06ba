-- Parse error: the file ends in the middle of an expression.
-- ==
-- error: expected an expression

def main (x: i32) : i32 =
  x +
