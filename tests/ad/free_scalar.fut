-- Seed-001 §7 test 14: a map with a free scalar.
-- ==
-- input { [1.0, 2.0, 3.0] 2.0 }
-- output { [2.0, 2.0, 2.0] 6.0 12.0 }
entry main [n] (xs: [n]f64) (s: f64) =
  let f (xs, s) = map (\x -> x * s) xs
  let (dxs, ds) = vjp f (xs, s) (replicate n 1)
  in (dxs, ds, f64.sum (jvp f (xs, s) (replicate n 0, 2)))
