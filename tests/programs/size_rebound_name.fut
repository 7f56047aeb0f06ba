-- Size error: the two `n`s are different bindings, so `iota (n+1)` has a different size each
-- time (types name sizes by their names, which the second binding would make ambiguous).
-- ==
-- error: size mismatch(.|\n)*bound again inside its scope

def main (k: i64) : [](i64, i64) =
  let n = k
  let a = iota (n+1)
  let n = k + 4
  let b = iota (n+1)
  in zip a b
