-- Type error: inside a local function, its type parameter is any type, not the one a use gives.
-- ==
-- error: expected a numeric type, found `t`

def main (x: i32) =
  let inc 't (y: t) = y + 1
  in inc x
