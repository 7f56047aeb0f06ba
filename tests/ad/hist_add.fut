-- Seed-001 §7 test 10: hist (+).
-- ==
-- input { [0i64, 2i64, 0i64, 1i64] [1.0, 2.0, 3.0, 4.0] }
-- output { [4.0, 4.0, 2.0] [10.0, 30.0, 10.0, 20.0] }
entry main (is: []i64) (as: []f64) =
  let f xs = hist (+) 0 3 is xs
  in (f as, vjp f as [10, 20, 30])
