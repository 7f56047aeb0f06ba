-- AUTOMAP: a quadratic with scalar coefficients evaluated at many points, and a scalar
-- function (`relu`) applied to a matrix.

-- ==
-- entry: quadratic
-- input { 1.0 2.0 3.0 [0.0, 1.0, 2.0] }
-- output { [3.0, 6.0, 11.0] }
entry quadratic (a: f64) (b: f64) (c: f64) (xs: []f64) : []f64 = a * xs * xs + b * xs + c

def relu (x: f64) : f64 = f64.max 0 x

-- ==
-- entry: relu2
-- input { [[-1.0, 2.0], [3.0, -4.0]] }
-- output { [[0.0, 2.0], [3.0, 0.0]] }
entry relu2 (xss: [][]f64) : [][]f64 = relu xss
