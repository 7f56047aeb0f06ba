-- Gradient descent on the Rosenbrock function and a least-squares line fit: the gradient comes
-- from vjp inside the optimiser's loop.
def rosenbrock (x: f64, y: f64) : f64 = (1 - x) ** 2 + 100 * (y - x * x) ** 2

-- ==
-- entry: rosen
-- input { -1.0 1.0 0.001 2000i64 }
-- output { 0.7279442915224894f64 0.5286317095602325f64 7.417589888289902e-2f64 }
entry rosen (x0: f64) (y0: f64) (lr: f64) (steps: i64) =
  let (x, y) = loop (x, y) = (x0, y0) for _i < steps do
    let (gx, gy) = vjp rosenbrock (x, y) 1
    in (x - lr * gx, y - lr * gy)
  in (x, y, rosenbrock (x, y))

def sq_error [n] (xs: [n]f64) (ys: [n]f64) (a: f64, b: f64) : f64 =
  f64.sum (map2 (\x y -> (a * x + b - y) ** 2) xs ys)

-- ==
-- entry: line_fit
-- input { [0.0, 1.0, 2.0, 3.0] [1.0, 3.1, 4.9, 7.0] 0.02 500i64 }
-- output { 1.9800000000010178f64 1.029999999997827f64 }
entry line_fit [n] (xs: [n]f64) (ys: [n]f64) (lr: f64) (steps: i64) =
  loop (a, b) = (0.0, 0.0) for _i < steps do
    let (ga, gb) = vjp (sq_error xs ys) (a, b) 1
    in (a - lr * ga, b - lr * gb)

-- The Rosenbrock function of many variables and the least-squares error alone: the objectives
-- whose gradients `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [100000]f64 }
entry objective [n] (xs: [n]f64) : f64 =
  f64.sum (map (\i -> rosenbrock (xs[i], xs[i + 1])) (iota (n - 1)))

-- ==
-- entry: line_objective
-- random input { [100000]f64 [100000]f64 0.5f64 0.5f64 }
entry line_objective [n] (xs: [n]f64) (ys: [n]f64) (a: f64) (b: f64) : f64 = sq_error xs ys (a, b)
