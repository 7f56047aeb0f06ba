-- A parametric module is checked where it is applied: a type error in its body is reported at
-- the body, for the argument that makes it wrong.
-- ==
-- error: f32

module scale (P: { type t val two: t }) = { def double (x: P.t) = x * P.two + 1i32 }
module s = scale { type t = f32 def two = 2f32 }

entry main (x: f32) = s.double x
