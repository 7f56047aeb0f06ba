-- Parse error: an array literal whose closing bracket is missing.
-- ==
-- error: expected.*\]

def main (x: i32) : []i32 =
  [x, x + 1

def other (y: i32) : i32 = y
