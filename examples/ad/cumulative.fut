-- A scan-based cumulative model: a discounted running balance b[t] = r * b[t-1] + x[t] (an
-- affine scan), a loss on the balances, and the gradients with respect to the inputs and rate.
def balances [n] (r: f64) (xs: [n]f64) : [n]f64 =
  let (_, bs) = unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0)
                            (map (\x -> (r, x)) xs))
  in bs

def loss [n] (target: [n]f64) (r: f64, xs: [n]f64) : f64 =
  f64.sum (map2 (\b t -> (b - t) * (b - t)) (balances r xs) target)

-- ==
-- entry: main
-- input { 0.9 [1.0, 2.0, -1.0, 0.5] [1.0, 3.0, 2.0, 2.0] }
-- output { [1.0f64, 2.9f64, 1.6099999999999999f64, 1.9489999999999998f64] 0.16470100000000013f64
--   -3.677060000000003f64 [-0.8861580000000007f64, -0.9846200000000007f64,
--   -0.8718000000000006f64, -0.10200000000000031f64] -3.6770600000000027f64 }
entry main [n] (r: f64) (xs: [n]f64) (target: [n]f64) =
  let (dr, dxs) = vjp (loss target) (r, xs) 1
  in (balances r xs, loss target (r, xs), dr, dxs, jvp (loss target) (r, xs) (1, replicate n 0))

-- ==
-- entry: prefix
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [40.0f64, 38.0f64, 32.0f64, 20.0f64] }
entry prefix [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (map (\s -> s * s) (scan (+) 0 xs))) xs 1

-- The loss alone, on a long series: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { 0.5f64 [10000]f64 [10000]f64 }
entry objective [n] (r: f64) (xs: [n]f64) (target: [n]f64) : f64 = loss target (r, xs)
