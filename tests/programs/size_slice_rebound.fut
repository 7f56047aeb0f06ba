-- Size error: the two slices' bounds are different bindings of `i`, so their sizes differ.
-- ==
-- error: size mismatch

def main [n] (xs: [n]f32) (i: i64) : []f32 =
  let a = xs[i:]
  let i = i + 1
  in map2 (+) a xs[i:]
