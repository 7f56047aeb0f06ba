-- Type error: a pattern outside `match` that fails on some values of its type.
-- ==
-- error: refutable pattern: `\(#circle _\)` is not covered

type shape = #circle f32 | #square f32

def main (r: f32) : f32 =
  let #square s = (#square r : shape)
  in s * s
