-- Seed-001 §7 test 13: a gather through a map with a free array; duplicates accumulate.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 2i64, 2i64, 4i64] [1.0, 1.0, 1.0, 1.0] }
-- output { [1.0, 0.0, 2.0, 0.0, 1.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 2i64, 2i64, 4i64] [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 0.0, 5.0, 0.0, 4.0] }
entry main (as: []f64) (is: []i64) (seed: []f64) = vjp (\as -> map (\i -> as[i]) is) as seed
