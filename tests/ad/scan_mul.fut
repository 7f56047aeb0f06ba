-- Seed-001 §7 test 8: scan (*) through the general rule; zeros give no NaNs.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 2.0, 6.0, 24.0] [33.0, 16.0, 10.0, 6.0] }
-- input { [1.0, 0.0, 3.0] }
-- output { [1.0, 0.0, 0.0] [1.0, 4.0, 0.0] }
entry main [n] (xs: [n]f64) =
  let f as = scan (*) 1 as
  in (f xs, vjp f xs (replicate n 1))
