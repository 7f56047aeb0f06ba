-- A function cannot be returned from an `if`.
-- ==
-- error: function

def main (b: bool) (x: i32) : i32 =
  let f = if b then (+ 1) else (* 2)
  in f x
