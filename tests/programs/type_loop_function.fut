-- A loop cannot carry a function.
-- ==
-- error: function

def main (n: i32) (x: i32) : i32 =
  let f = loop f = (+ 1) for _i < n do (f >-> (* 2))
  in f x
