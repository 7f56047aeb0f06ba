-- Derivatives of functions declared in modules: a parametric module instantiated with `f32`,
-- differentiated through its qualified names, in both modes.
module losses (R: { type t val exp: t -> t val log: t -> t val sum [n]: [n]t -> t }) = {
  def logsumexp [n] (xs: [n]R.t) : R.t = R.(log (sum (map exp xs)))
  def sq_norm [n] (xs: [n]R.t) : R.t = R.(sum (map (\x -> x * x) xs))
}

module L = losses f32

-- ==
-- entry: grad
-- input { [0f32, 0f32, 0f32, 0f32] [1f32, 2f32] }
-- output { [0.25f32, 0.25f32, 0.25f32, 0.25f32] [2f32, 4f32] }
entry grad [n][m] (xs: [n]f32) (ys: [m]f32) : ([n]f32, [m]f32) =
  (vjp L.logsumexp xs 1, vjp L.sq_norm ys 1)

-- ==
-- entry: tangent
-- input { [1f32, 2f32] }
-- output { 6f32 }
entry tangent [m] (ys: [m]f32) : f32 = jvp L.sq_norm ys (replicate m 1)
