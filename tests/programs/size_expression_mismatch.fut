-- Size error: the declared result size `n+1` is not the size of the body's value.
-- ==
-- error: size mismatch: expected size `n \+ 1`, found size `n`

def main [n] (xs: [n]i32) : [n+1]i32 = xs
