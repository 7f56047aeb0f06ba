-- Modules: a module type, a parametric module applied to the numeric module `f32`, a structure
-- of its own, and local opens `m.(e)`.

module type real = {
  type t
  val i64: i64 -> t
  val sqrt: t -> t
  val sum [n]: [n]t -> t
}

-- The mean and standard deviation, for any type of reals.
module stats (R: real) = {
  def mean [n] (xs: [n]R.t) : R.t = R.(sum xs / i64 n)

  def stddev [n] (xs: [n]R.t) : R.t =
    let m = mean xs
    in R.(sqrt (sum (map (\x -> (x - m) * (x - m)) xs) / i64 n))
}

module S = stats f32

-- Points in the plane.
module point = {
  type t = {x: f32, y: f32}
  def zero : t = {x = 0, y = 0}
  def add (a: t) (b: t) : t = {x = a.x + b.x, y = a.y + b.y}
  def scale (k: f32) (p: t) : t = {x = k * p.x, y = k * p.y}
}

def centroid [n] (ps: [n]point.t) : point.t =
  point.(scale (1 / f32.i64 n) (reduce add zero ps))

-- ==
-- input { [2f32, 4f32, 4f32, 4f32, 5f32, 5f32, 7f32, 9f32] [1f32, 3f32] [2f32, 4f32] }
-- output { 5f32 2f32 2f32 3f32 }
entry main [n][m] (xs: [n]f32) (px: [m]f32) (py: [m]f32) =
  let c = centroid (map2 (\x y -> {x, y}) px py)
  in (S.mean xs, S.stddev xs, c.x, c.y)
