-- Uniqueness error: an array is used after it was consumed by an in-place update.
-- ==
-- error: consumed

def main (xs: *[]i32) : i32 =
  let ys = xs with [0] = 1
  in xs[0] + ys[0]
