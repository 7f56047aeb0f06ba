-- AUTOMAP: matrix-matrix product with no maps. Each row of `a` times the transposed `b` is a
-- matrix-vector product, lifted over the rows of `a` by an annotation on the helper.
-- ==
-- input { [[1, 2], [3, 4]] [[5, 6], [7, 8]] }
-- output { [[19, 22], [43, 50]] }

def dot (xs: []i32) (ys: []i32) : i32 = i32.sum (xs * ys)

def matmul [n][m][p] (a: [n][m]i32) (b: [m][p]i32) : [n][p]i32 =
  let bt = transpose b
  in dot (transpose (replicate p a)) (replicate n bt) :> [n][p]i32

def main (a: [][]i32) (b: [][]i32) : [][]i32 = matmul a b
