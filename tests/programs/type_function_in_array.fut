-- Functions cannot be stored in arrays.
-- ==
-- error: function

def main (x: i32) : i32 =
  let fs = [(+ 1), (* 2)]
  in fs[0] x
