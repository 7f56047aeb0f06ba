-- log-sum-exp in f64, made stable by factoring out the maximum; the empty sum gives -inf.

-- ==
-- input { [0.0f64, 0.0f64] }
-- output { 0.6931471805599453f64 }
-- input { [1.0f64, 2.0f64, 3.0f64] }
-- output { 3.4076059644443806f64 }
-- input { [1000.0f64, 1000.0f64] }
-- output { 1000.6931471805599f64 }
-- input { [-2.5f64] }
-- output { -2.5f64 }
-- input { empty([0]f64) }
-- output { -f64.inf }
-- input { [-f64.inf, -f64.inf] }
-- output { -f64.inf }
-- input { [-f64.inf, 0.0f64] }
-- output { 0.0f64 }
-- random input { [1000]f64 }
entry main [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in if m == -f64.inf
     then m
     else m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))
