-- AUTOMAP: a dense layer with a bias and a logistic activation, written as for one example and
-- applied to a batch of inputs.
-- ==
-- input { [[1.0, 0.0, 1.0], [2.0, 1.0, 0.0]] [[1.0, -1.0, 0.0], [0.0, 0.0, 0.0]] [0.0, 0.0] }
-- output { [[0.7310585786300049, 0.5], [0.7310585786300049, 0.5]] }

def sigmoid (x: f64) : f64 = 1 / (1 + f64.exp (-x))

def layer [i][o] (w: [o][i]f64) (b: [o]f64) (x: [i]f64) : [o]f64 =
  sigmoid (f64.sum (w * x) + b)

def main [n][i][o] (xs: [n][i]f64) (w: [o][i]f64) (b: [o]f64) : [n][o]f64 =
  layer w b xs
