-- Logistic regression: the negative log-likelihood and its gradient by vjp, and a few steps of
-- gradient descent.
def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))

def nll [n][d] (xs: [n][d]f64) (ys: [n]f64) (w: [d]f64, b: f64) : f64 =
  f64.sum (map2 (\x y ->
                   let z = f64.sum (map2 (*) x w) + b
                   let p = sigmoid z
                   in -(y * f64.log p + (1 - y) * f64.log (1 - p)))
                xs ys)

-- ==
-- entry: grad
-- input { [[1.0, 2.0], [2.0, 0.5], [-1.0, -1.5], [0.5, -2.0]] [1.0, 1.0, 0.0, 0.0] [0.1, -0.2] 0.05 }
-- output { [-1.7382636454831695f64, -3.443821492832127f64] 0.1598891765456043f64 }
entry grad [n][d] (xs: [n][d]f64) (ys: [n]f64) (w: [d]f64) (b: f64) = vjp (nll xs ys) (w, b) 1

-- ==
-- entry: train
-- input { [[1.0, 2.0], [2.0, 0.5], [-1.0, -1.5], [0.5, -2.0]] [1.0, 1.0, 0.0, 0.0] 0.1 100i64 }
-- output { [1.4755842677863247f64, 2.3953407861747555f64] -8.622466946540605e-2f64
--   4.0692104582911864e-2f64 }
entry train [n][d] (xs: [n][d]f64) (ys: [n]f64) (lr: f64) (steps: i64) =
  let (w, b) = loop (w, b) = (replicate d 0, 0) for _i < steps do
    let (gw, gb) = vjp (nll xs ys) (w, b) 1
    in (map2 (\a g -> a - lr * g) w gw, b - lr * gb)
  in (w, b, nll xs ys (w, b))

-- The negative log-likelihood alone: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [20000][16]f64 [20000]f64 [16]f64 0.0f64 }
entry objective [n][d] (xs: [n][d]f64) (ys: [n]f64) (w: [d]f64) (b: f64) : f64 = nll xs ys (w, b)
