-- One LSTM cell step on a batch of inputs, and the gradient of a squared loss on the new hidden
-- state with respect to the weights and biases.
def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))

def matvec [m][n] (w: [m][n]f64) (v: [n]f64) : [m]f64 = map (\r -> f64.sum (map2 (*) r v)) w

def lstm_step [h][i] (wx: [4][h][i]f64, wh: [4][h][h]f64, b: [4][h]f64)
                     (x: [i]f64) (hprev: [h]f64) (cprev: [h]f64) : ([h]f64, [h]f64) =
  let gate g = map2 (+) (map2 (+) (matvec wx[g] x) (matvec wh[g] hprev)) b[g]
  let f = map sigmoid (gate 0)
  let ig = map sigmoid (gate 1)
  let o = map sigmoid (gate 2)
  let cand = map f64.tanh (gate 3)
  let c = map4 (\f i cp cd -> f * cp + i * cd) f ig cprev cand
  let hn = map2 (\o c -> o * f64.tanh c) o c
  in (hn, c)

def loss [h][i] (x: [i]f64) (hprev: [h]f64) (cprev: [h]f64) (target: [h]f64)
                (ws: ([4][h][i]f64, [4][h][h]f64, [4][h]f64)) : f64 =
  let (hn, _) = lstm_step ws x hprev cprev
  in f64.sum (map2 (\a t -> (a - t) * (a - t)) hn target)

-- ==
-- entry: main
-- input { [0.5, -0.3] [0.1, 0.2] [0.0, -0.1] [0.3, 0.1]
--         [[[0.1, 0.2], [0.3, -0.1]], [[0.0, 0.1], [-0.2, 0.2]], [[0.2, 0.1], [0.1, 0.1]], [[-0.1, 0.3], [0.2, 0.0]]]
--         [[[0.1, 0.0], [0.0, 0.1]], [[0.2, -0.1], [0.1, 0.0]], [[0.0, 0.2], [0.1, 0.1]], [[0.1, 0.1], [-0.1, 0.2]]]
--         [[0.0, 0.1], [0.1, 0.0], [0.0, 0.0], [0.2, -0.1]] }
-- output { 9.087085681913402e-2f64 [[[0.0f64, 0.0f64], [1.5295220154242454e-3f64,
--   -9.177132092545472e-4f64]], [[-3.2500623649831723e-3f64, 1.9500374189899033e-3f64],
--   [-4.664888923409252e-4f64, 2.798933354045551e-4f64]], [[-3.187422987094341e-3f64,
--   1.9124537922566044e-3f64], [1.3306933580166903e-3f64, -7.984160148100141e-4f64]],
--   [[-7.443938496745948e-2f64, 4.466363098047569e-2f64], [-2.891596739278714e-2f64,
--   1.7349580435672283e-2f64]]] [[[0.0f64, 0.0f64], [3.059044030848491e-4f64,
--   6.118088061696982e-4f64]], [[-6.500124729966345e-4f64, -1.300024945993269e-3f64],
--   [-9.329777846818504e-5f64, -1.8659555693637008e-4f64]], [[-6.374845974188682e-4f64,
--   -1.2749691948377364e-3f64], [2.6613867160333807e-4f64, 5.322773432066761e-4f64]],
--   [[-1.4887876993491898e-2f64, -2.9775753986983795e-2f64], [-5.783193478557429e-3f64,
--   -1.1566386957114858e-2f64]]] [[0.0f64, 3.0590440308484908e-3f64], [-6.500124729966345e-3f64,
--   -9.329777846818504e-4f64], [-6.374845974188682e-3f64, 2.6613867160333806e-3f64],
--   [-0.14887876993491897f64, -5.783193478557428e-2f64]] }
entry main [h][i] (x: [i]f64) (hprev: [h]f64) (cprev: [h]f64) (target: [h]f64)
                  (wx: [4][h][i]f64) (wh: [4][h][h]f64) (b: [4][h]f64) =
  let (gwx, gwh, gb) = vjp (loss x hprev cprev target) (wx, wh, b) 1
  in (loss x hprev cprev target (wx, wh, b), gwx, gwh, gb)

-- The loss alone, with 256 hidden units: the objective whose gradient `ogham bench --ad`
-- measures.
-- ==
-- entry: objective
-- random input { [128]f64 [256]f64 [256]f64 [256]f64 [4][256][128]f64 [4][256][256]f64 [4][256]f64 }
entry objective [h][i] (x: [i]f64) (hprev: [h]f64) (cprev: [h]f64) (target: [h]f64)
                       (wx: [4][h][i]f64) (wh: [4][h][h]f64) (b: [4][h]f64) : f64 =
  loss x hprev cprev target (wx, wh, b)
