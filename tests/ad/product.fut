-- Seed-001 §7 test 4: the product reduce with no, one and several zeros.
-- ==
-- input { [2.0, 3.0, 4.0] }
-- output { [12.0, 8.0, 6.0] }
-- input { [2.0, 0.0, 4.0] }
-- output { [0.0, 8.0, 0.0] }
-- input { [0.0, 3.0, 0.0] }
-- output { [0.0, 0.0, 0.0] }
entry main (xs: []f64) = vjp (\as -> reduce (*) 1 as) xs 1

-- ==
-- entry: fwd
-- input { [2.0, 0.0, 4.0] }
-- output { 8.0 }
entry fwd [n] (xs: [n]f64) = jvp (\as -> reduce (*) 1 as) xs (map (\i -> f64.bool (i == 1)) (iota n))

-- The same products through the general reduce rule (an operator the `*` rule does not
-- recognise: its prefix and suffix folds by scans, no division), which must agree.
-- ==
-- entry: general
-- input { [2.0, 3.0, 4.0] }
-- output { [12.0, 8.0, 6.0] }
-- input { [2.0, 0.0, 4.0] }
-- output { [0.0, 8.0, 0.0] }
-- input { [0.0, 3.0, 0.0] }
-- output { [0.0, 0.0, 0.0] }
entry general (xs: []f64) = vjp (\as -> reduce (\a b -> a * b + 0) 1 as) xs 1
