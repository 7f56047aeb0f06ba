-- A type of one constructor is destructured by a pattern anywhere, not only in `match`: in a
-- `let`, a parameter, a lambda and a loop.
-- ==
-- input { 3f32 4f32 }
-- output { 5f32 7f32 [4f32, 6f32] 12f32 }

type point = #point f32 f32

def norm ((#point x y): point) = f32.sqrt (x * x + y * y)

def main (a: f32) (b: f32) =
  let p = #point a b : point
  let #point x y = p
  let moved = map (\(#point u v) -> u + v) [#point 1 3, #point 2 4 : point]
  let (#point s t) = loop (#point s t) = p for i < 2 do #point (s + 1) (t + 2)
  in (norm p, x + y, moved, s + t - 1)
