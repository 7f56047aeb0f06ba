-- Seed-001 §7 test 3: the adjoint of a sum with a non-unit seed.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [2.0, 2.0, 2.0, 2.0, 2.0] }
entry main (xs: []f64) = vjp f64.sum xs 2
