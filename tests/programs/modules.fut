-- The module language: structures, qualified names, module types, parametric modules applied
-- to structures and to numeric modules, `open` and `local`, operators declared in a module.

module type addable = {
  type t
  val zero: t
  val add: t -> t -> t
}

module int_add = {
  type t = i32
  def zero: t = 0
  def add (x: t) (y: t) : t = x + y
}

module sum_of (A: addable) = {
  def sum [n] (xs: [n]A.t) : A.t = reduce A.add A.zero xs
  local def twice (x: A.t) = A.add x x
  def double_sum [n] (xs: [n]A.t) = twice (sum xs)
}

module S = sum_of int_add
module F = sum_of { type t = f32 def zero = 0f32 def add (a: f32) (b: f32) = a + b }

module geom = {
  type point = {x: f32, y: f32}
  def norm (p: point) = f32.sqrt (p.x * p.x + p.y * p.y)
  module inner = { def scale (k: f32) (p: point) : point = {x = k * p.x, y = k * p.y} }
}

open geom

module roots (P: { type t val sqrt: t -> t val f32: f32 -> t }) = {
  def root2 : P.t = P.sqrt (P.f32 2)
}
module R32 = roots f32

module vec2 = {
  type t = (f32, f32)
  def (+^) ((a, b): t) ((c, d): t) : t = (a + c, b + d)
  def sum [n] (xs: [n]t) : t = reduce (+^) (0, 0) xs
}

module pair (A: addable) (B: addable) = {
  type t = (A.t, B.t)
  def zero : t = (A.zero, B.zero)
  def add ((a, b): t) ((c, d): t) : t = (A.add a c, B.add b d)
}
module P2 = sum_of (pair int_add int_add)

def open_sum (s: vec2.t) = vec2.(s +^ s)

-- ==
-- input { [1, 2, 3] [1f32, 2f32] [3f32, 4f32] }
-- output { 6 12 3f32 5f32 1.4142135f32 3f32 7f32 6f32 14f32 6 6 }
entry main (xs: []i32) (ys: []f32) (zs: []f32) =
  let p : point = {x = 3, y = 4}
  let s = vec2.sum (zip ys zs)
  let (a, b) = open_sum s
  let (u, v) = P2.sum (zip xs xs)
  in (S.sum xs, S.double_sum xs, F.sum ys, norm (geom.inner.scale 1 p), R32.root2,
      s.0, s.1, a, b, u, v)
