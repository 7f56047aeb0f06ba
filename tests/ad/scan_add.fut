-- Seed-001 §7 test 7: scan (+), with its jvp.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [4.0, 3.0, 2.0, 1.0] [1.0, 2.0, 3.0, 4.0] }
entry main [n] (xs: [n]f64) =
  (vjp (\as -> scan (+) 0 as) xs (replicate n 1), jvp (\as -> scan (+) 0 as) xs (replicate n 1))
