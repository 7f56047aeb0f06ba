-- Parse errors in two definitions: the parser recovers after the first and reports the second too.
-- ==
-- error: expected an expression, found .in.

def first (x: i32) : i32 =
  if x > 0 x else 0

def second (y: i32) : i32 =
  let z = in z + y
