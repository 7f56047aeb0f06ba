-- A small multi-layer perceptron (one hidden tanh layer, softmax output) trained by gradient
-- descent on the cross-entropy loss: the gradient of every parameter by one vjp per step.
def matvec [m][n] (w: [m][n]f64) (v: [n]f64) : [m]f64 = map (\r -> f64.sum (map2 (*) r v)) w

def softmax [k] (xs: [k]f64) : [k]f64 =
  let m = f64.maximum xs
  let es = map (\x -> f64.exp (x - m)) xs
  let s = f64.sum es
  in map (/ s) es

def cross_entropy [n][i][h][k] (xs: [n][i]f64) (labels: [n]i64)
                               (w1: [h][i]f64, b1: [h]f64, w2: [k][h]f64, b2: [k]f64) : f64 =
  let per = map2 (\x l ->
                    let hid = map2 (\a b -> f64.tanh (a + b)) (matvec w1 x) b1
                    let p = softmax (map2 (+) (matvec w2 hid) b2)
                    in -(f64.log p[l]))
                 xs labels
  in f64.sum per / f64.i64 n

def step [n][i][h][k] (xs: [n][i]f64) (labels: [n]i64) (lr: f64)
                      (w1: [h][i]f64, b1: [h]f64, w2: [k][h]f64, b2: [k]f64) =
  let (g1, gb1, g2, gb2) = vjp (cross_entropy xs labels) (w1, b1, w2, b2) 1
  let upd a b = a - lr * b
  in (map2 (map2 upd) w1 g1, map2 upd b1 gb1, map2 (map2 upd) w2 g2, map2 upd b2 gb2)

-- ==
-- entry: main
-- input { [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]] [1i64, 1i64, 0i64, 0i64] 0.5 20i64 }
-- output { 0.6942008236848352f64 0.6742628140085906f64 }
entry main [n][i] (xs: [n][i]f64) (labels: [n]i64) (lr: f64) (steps: i64) =
  let init r c = f64.sin (f64.i64 (7 * r + 3 * c + 1))
  let w1 = map (\r -> map (\c -> init r c) (iota i)) (iota 3)
  let b1 = replicate 3 0.0
  let w2 = map (\r -> map (\c -> init (r + 5) c) (iota 3)) (iota 2)
  let b2 = replicate 2 0.0
  let before = cross_entropy xs labels (w1, b1, w2, b2)
  let (w1, b1, w2, b2) =
    loop (w1, b1, w2, b2) for _s < steps do step xs labels lr (w1, b1, w2, b2)
  in (before, cross_entropy xs labels (w1, b1, w2, b2))

-- The loss alone on a batch of 256 (labels taken modulo the number of classes): the objective
-- whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [256][64]f64 [256]i64 [64][64]f64 [64]f64 [10][64]f64 [10]f64 }
entry objective [n][i][h][k] (xs: [n][i]f64) (labels: [n]i64) (w1: [h][i]f64) (b1: [h]f64)
                             (w2: [k][h]f64) (b2: [k]f64) : f64 =
  cross_entropy xs (map (\l -> l % k) labels) (w1, b1, w2, b2)
