-- A histogram-based loss: weighted samples are binned with reduce_by_index and compared with a
-- target histogram; the gradient with respect to the weights goes through the histogram.
def binned [n] (bins: i64) (is: [n]i64) (ws: [n]f64) : [bins]f64 =
  hist (+) 0 bins is ws

def loss [n] (bins: i64) (is: [n]i64) (target: [bins]f64) (ws: [n]f64) : f64 =
  f64.sum (map2 (\h t -> (h - t) * (h - t)) (binned bins is ws) target)

-- ==
-- entry: main
-- input { [0i64, 1i64, 1i64, 3i64, 2i64, 3i64] [1.0, 0.5, 2.0, 1.5, 0.25, 1.0] [1.0, 2.0, 1.0, 2.0] }
-- output { 1.0625f64 [0.0f64, 1.0f64, 1.0f64, 1.0f64, -1.5f64, 1.0f64] 2.5f64 }
entry main [n][b] (is: [n]i64) (ws: [n]f64) (target: [b]f64) =
  (loss b is target ws, vjp (loss b is target) ws 1, jvp (loss b is target) ws (replicate n 1))

def peak [n] (bins: i64) (is: [n]i64) (ws: [n]f64) : f64 =
  f64.sum (hist f64.max 0 bins is ws)

-- ==
-- entry: peaks
-- input { [0i64, 1i64, 1i64, 3i64, 2i64, 3i64] [1.0, 0.5, 2.0, 1.5, 0.25, 1.0] }
-- output { 4.75f64 [1.0f64, 0.0f64, 1.0f64, 1.0f64, 1.0f64, 0.0f64] }
entry peaks [n] (is: [n]i64) (ws: [n]f64) = (peak 4 is ws, vjp (peak 4 is) ws 1)

-- The loss alone, on many samples: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [200000]i64 [200000]f64 [100]f64 }
entry objective [n][b] (is: [n]i64) (ws: [n]f64) (target: [b]f64) : f64 = loss b is target ws
