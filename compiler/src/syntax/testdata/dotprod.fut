-- Dot product and matrix multiplication.
-- ==
-- entry: main
-- input { [1f32, 2f32] [3f32, 4f32] } output { 11f32 }
def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)

def matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\row -> map (\col -> dotprod row col) (transpose b)) a

entry main (xs: []f32) (ys: []f32) =
  let n = length xs
  in dotprod (xs :> [n]f32) (ys :> [n]f32)
