-- An empty array literal, concatenated and returned.
-- ==
-- input { [1f32, 2f32] }
-- output { [1f32, 2f32] empty([0]f32) }
-- input { empty([0]f32) }
-- output { empty([0]f32) empty([0]f32) }
entry main (xs: []f32) : ([]f32, []f32) =
  let e: []f32 = []
  in (e ++ xs, e)
