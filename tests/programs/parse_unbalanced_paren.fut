-- Parse error: an opening parenthesis that is never closed.
-- ==
-- error: expected.*\)

def main (xs: []i32) : []i32 =
  map (\x -> (x + 1) xs
