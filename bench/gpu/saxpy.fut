-- GPU roofline: `a*x + y` over 2^26 f32s, a map that reads two arrays and writes one: the
-- bandwidth a streaming kernel reaches, against which reduce and scan are measured.
-- ==
-- input { 2f32 [1f32, 2f32] [10f32, 20f32] }
-- output { [12f32, 24f32] }
-- random input { 0.5f32 [67108864]f32 [67108864]f32 }
entry main [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =
  map2 (\x y -> a * x + y) xs ys
