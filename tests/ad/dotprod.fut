-- Seed-001 §7 test 2: the dot product, both modes.
def dot [n] (xs: [n]f64, ys: [n]f64) : f64 = reduce (+) 0 (map2 (*) xs ys)

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [4.0, 5.0, 6.0] [1.0, 2.0, 3.0] }
entry grad [n] (xs: [n]f64) (ys: [n]f64) = vjp dot (xs, ys) 1

-- ==
-- entry: tangent
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { 4.0 }
entry tangent [n] (xs: [n]f64) (ys: [n]f64) =
  jvp dot (xs, ys) (map (\i -> if i == 0 then 1 else 0) (iota n), replicate n 0)
