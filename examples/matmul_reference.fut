-- Matrix multiplication written exactly as in Futhark's documentation.
-- ==
-- entry: matmul
-- input { [[1.0f32, 2.0f32], [3.0f32, 4.0f32]] [[5.0f32, 6.0f32], [7.0f32, 8.0f32]] }
-- output { [[19.0f32, 22.0f32], [43.0f32, 50.0f32]] }
-- input { [[1.0f32, 2.0f32, 3.0f32]] [[1.0f32], [0.0f32], [-1.0f32]] }
-- output { [[-2.0f32]] }
-- input { [[0.5f32, -1.5f32], [2.0f32, 0.25f32], [1.0f32, 1.0f32]] [[4.0f32, 2.0f32, -2.0f32], [8.0f32, -4.0f32, 1.0f32]] }
-- output { [[-10.0f32, 7.0f32, -2.5f32], [10.0f32, 3.0f32, -3.75f32], [12.0f32, -2.0f32, -1.0f32]] }
-- input { empty([2][0]f32) empty([0][3]f32) }
-- output { [[0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32]] }
-- random input { [8][8]f32 [8][8]f32 }

def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)

entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 = map (\row -> map (\col -> dotprod row col) (transpose b)) a
