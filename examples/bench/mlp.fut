-- Benchmark: the gradient of a two-layer perceptron's mean cross-entropy loss (tanh hidden
-- layer, softmax output, one-hot targets) with respect to every weight and bias, by one vjp.
def matvec [m][n] (w: [m][n]f32) (v: [n]f32) : [m]f32 = map (\r -> f32.sum (map2 (*) r v)) w

def log_softmax [k] (xs: [k]f32) : [k]f32 =
  let m = f32.maximum xs
  let lse = m + f32.log (f32.sum (map (\x -> f32.exp (x - m)) xs))
  in map (\x -> x - lse) xs

def loss [n][i][h][k] (xs: [n][i]f32) (ys: [n][k]f32)
                      (w1: [h][i]f32, b1: [h]f32, w2: [k][h]f32, b2: [k]f32) : f32 =
  let per = map2 (\x y ->
                    let hid = map2 (\a b -> f32.tanh (a + b)) (matvec w1 x) b1
                    let lp = log_softmax (map2 (+) (matvec w2 hid) b2)
                    in -(f32.sum (map2 (*) y lp)))
                 xs ys
  in f32.sum per / f32.i64 n

-- ==
-- input { [[0f32, 1f32], [1f32, 0f32]] [[0f32, 1f32], [1f32, 0f32]]
--         [[0.5f32, -0.5f32], [0.25f32, 0.75f32]] [0f32, 0.1f32] [[1f32, -1f32], [-0.5f32, 0.5f32]] [0f32, 0f32] }
-- output { [[-0.26718748f32, 0.08883856f32], [0.30129862f32, -0.05901384f32]] [-0.17834891f32, 0.24228477f32]
--          [[-0.13946739f32, -0.02414376f32], [0.13946740f32, 0.02414376f32]] [-0.15118521f32, 0.15118523f32] }
entry main [n][i][h][k] (xs: [n][i]f32) (ys: [n][k]f32)
                        (w1: [h][i]f32) (b1: [h]f32) (w2: [k][h]f32) (b2: [k]f32) =
  vjp (loss xs ys) (w1, b1, w2, b2) 1
