-- A numeric module passed to a parametric module must have what the parameter's type specifies.
-- ==
-- error: the numeric module `i32` has no `sqrt`

module roots (P: { type t val sqrt: t -> t }) = { def r (x: P.t) = P.sqrt x }
module bad = roots i32

entry main (x: i32) = bad.r x
