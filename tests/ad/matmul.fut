-- Seed-001 §7 test 15: matrix multiplication as nested map/reduce.
def matmul [n][m][p] (A: [n][m]f64, B: [m][p]f64) : [n][p]f64 =
  map (\row -> map (\col -> f64.sum (map2 (*) row col)) (transpose B)) A

-- ==
-- input { [[1.0, 2.0], [3.0, 4.0]] [[5.0, 6.0], [7.0, 8.0]] }
-- output { [[19.0, 22.0], [43.0, 50.0]] [[11.0, 15.0], [11.0, 15.0]] [[4.0, 4.0], [6.0, 6.0]] }
entry main [n][m][p] (A: [n][m]f64) (B: [m][p]f64) =
  let (dA, dB) = vjp matmul (A, B) (replicate n (replicate p 1))
  in (matmul (A, B), dA, dB)

-- ==
-- entry: fwd
-- input { [[1.0, 2.0], [3.0, 4.0]] [[5.0, 6.0], [7.0, 8.0]] }
-- output { [[5.0, 6.0], [0.0, 0.0]] }
entry fwd [n][m][p] (A: [n][m]f64) (B: [m][p]f64) =
  jvp matmul (A, B) (map (\i -> map (\j -> f64.bool (i == 0 && j == 0)) (iota m)) (iota n), map (\r -> map (\_ -> 0) r) B)
