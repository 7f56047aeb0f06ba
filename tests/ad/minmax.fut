-- Seed-001 §7 test 5: max/min reduce; the first of tied extrema gets the adjoint.
-- ==
-- entry: max
-- input { [1.0, 5.0, 3.0, 5.0] }
-- output { [0.0, 1.0, 0.0, 0.0] }
-- input { empty([0]f64) }
-- output { empty([0]f64) }
entry max (xs: []f64) = vjp f64.maximum xs 1

-- ==
-- entry: min
-- input { [4.0, 1.0, 1.0] }
-- output { [0.0, 1.0, 0.0] }
entry min (xs: []f64) = vjp (\as -> reduce f64.min f64.inf as) xs 1
