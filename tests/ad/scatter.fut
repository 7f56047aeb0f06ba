-- Seed-001 §7 test 12: scatter, with a use of the destination before it.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0] [1i64, 3i64] [10.0, 20.0] }
-- output { [1.0, 10.0, 3.0, 20.0] [1.0, 0.0, 3.0, 0.0] [2.0, 4.0] }
def f (is: []i64) (xs: []f64, vs: []f64) = scatter (copy xs) is vs

entry main (xs: []f64) (is: []i64) (vs: []f64) =
  let (dxs, dvs) = vjp (f is) (xs, vs) [1, 2, 3, 4]
  in (f is (xs, vs), dxs, dvs)

-- ==
-- entry: chained
-- input { [1.0, 2.0, 3.0, 4.0] [1i64, 3i64] [10.0, 20.0] }
-- output { [3.0, 4.0, 7.0, 8.0] [1.0, 1.0] }
entry chained (xs: []f64) (is: []i64) (vs: []f64) =
  let f (xs: []f64, vs: []f64) =
    let s = f64.sum (map (\x -> x * x) xs)
    let ys = scatter (copy xs) is vs
    in s + f64.sum ys
  in vjp f (xs, vs) 1
