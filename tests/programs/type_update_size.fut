-- Size error: the value written into a slice has a size known to differ from the slice's.
-- ==
-- error: size mismatch: expected size 2, found size 3

def main (xs: *[]i32) : []i32 =
  let xs[0:2] = [1, 2, 3]
  in xs
