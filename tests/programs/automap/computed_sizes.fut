-- AUTOMAP with sizes computed from others: a `rep` of size `n+1`, maps over arrays of size `n+1`.
def s [n] (xs: [n]f32) (ys: [n+1][2]f32) = map2 (\x y -> x + y[0]) (xs ++ [0]) ys
def t [n] (xs: [n]f32) = s xs [1f32, 2f32]
def h [n] (xs: [n]f32) = (xs ++ [0]) + map f32.i64 (iota (n+1))
def u [n] (xs: [n]f32) (m: [n+1][n+1]f32) = m + (xs ++ [1])
-- ==
-- input { [1f32, 2f32] }
-- output { [2f32, 3f32, 1f32] [1f32, 3f32, 2f32] [[2f32, 3f32, 2f32], [2f32, 3f32, 2f32], [2f32, 3f32, 2f32]] }
entry main [n] (xs: [n]f32) = (t xs, h xs, u xs (replicate (n+1) (replicate (n+1) 1)))
