-- Seed-001 §7 test 11: hist (*) with a zero, and hist max.
-- ==
-- entry: mul
-- input { [0i64, 0i64, 1i64, 1i64] [2.0, 3.0, 0.0, 5.0] }
-- output { [6.0, 0.0] [3.0, 2.0, 5.0, 0.0] }
entry mul (is: []i64) (as: []f64) =
  let f xs = hist (*) 1 2 is xs
  in (f as, vjp f as [1, 1])

-- ==
-- entry: max
-- input { [0i64, 0i64, 1i64] [1.0, 4.0, 2.0] }
-- output { [4.0, 2.0] [0.0, 1.0, 1.0] }
entry max (is: []i64) (as: []f64) =
  let f xs = hist f64.max (-f64.inf) 2 is xs
  in (f as, vjp f as [1, 1])

-- ==
-- entry: min_dest
-- input { [0i64, 0i64, 1i64] [1.0, 4.0, 2.0] [3.0, 0.5] }
-- output { [1.0, 0.0, 0.0] [0.0, 1.0] }
def hmin (is: []i64) (as: []f64, d: []f64) = reduce_by_index (copy d) f64.min f64.inf is as

entry min_dest (is: []i64) (as: []f64) (d: []f64) = vjp (hmin is) (as, d) [1, 1]

-- The same histogram of products through the general hist rule (an operator the `*` rule does
-- not recognise: elements sorted by bin, the folds before and after each), which must agree.
-- ==
-- entry: mul_general
-- input { [0i64, 0i64, 1i64, 1i64] [2.0, 3.0, 0.0, 5.0] }
-- output { [6.0, 0.0] [3.0, 2.0, 5.0, 0.0] }
entry mul_general (is: []i64) (as: []f64) =
  let f xs = hist (\x y -> x * y + 0) 1 2 is xs
  in (f as, vjp f as [1, 1])
