-- A size binder in `let` names a size of the pattern's type; one the type does not use is an
-- error (as in Futhark), with a hint showing where it goes.
-- ==
-- error: size \[n\] unused in pattern

def main (xs: []i32) : i64 =
  let [n] ys = filter (> 0) xs
  in n + length ys
