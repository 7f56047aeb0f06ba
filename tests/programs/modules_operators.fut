-- A module may declare the built-in operators anew (Futhark's complex numbers, say): later
-- declarations in the module, and code that opens it, use the module's.

module complex = {
  type t = (f32, f32)
  def mk (re: f32) (im: f32) : t = (re, im)
  def (+) ((a, b): t) ((c, d): t) : t = (a f32.+ c, b f32.+ d)
  def (*) ((a, b): t) ((c, d): t) : t = (a f32.* c f32.- b f32.* d, a f32.* d f32.+ b f32.* c)
  def (==) ((a, b): t) ((c, d): t) : bool = a f32.== c && b f32.== d
  def sq (z: t) = z * z
  def sum [n] (zs: [n]t) : t = reduce (+) (mk 0 0) zs
}

-- ==
-- input { [1f32, 0f32] [0f32, 1f32] }
-- output { -3f32 4f32 1f32 1f32 true 3 }
entry main [n] (re: [n]f32) (im: [n]f32) =
  let zs = map2 complex.mk re im
  let s = complex.sum zs
  let (a, b) = complex.(sq (mk 1 2))
  in (a, b, s.0, s.1, complex.(s == mk 1 1), 1 + 2)
