-- A map whose results nothing uses still fails when it reads out of bounds: after a derivative,
-- dead code is simplified to what may fail (here the bounds checks of the re-executed reads),
-- and every backend runs those checks.
-- ==
-- input { [1f32, 2f32, 3f32] 1i64 }
-- output { 2f32 }
-- input { [1f32, 2f32, 3f32] 2i64 }
-- error: out of bounds
entry main (xs: []f32) (i: i64) : f32 =
  vjp (\x -> let _ = map (\j -> xs[j + i] * x) (iota 2) in x * 2) 1f32 1
