-- Seed-001 §7 test 21: log-sum-exp with the max shift; its gradient is the softmax.
def lse [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))

-- ==
-- input { [1.0, 2.0, 3.0] }
-- output { 3.4076060 [0.09003057, 0.24472847, 0.66524096] [0.09003057, 0.24472847, 0.66524096] }
entry main [n] (xs: [n]f64) =
  (lse xs, vjp lse xs 1, map (\i -> jvp lse xs (map (\j -> f64.bool (i == j)) (iota n))) (iota n))
