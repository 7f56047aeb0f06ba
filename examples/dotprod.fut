-- Dot products with map2 and reduce, at f32 and i32 (which wraps on overflow), and a Euclidean norm.

def dotprod [n] (xs: [n]f32) (ys: [n]f32) : f32 =
  reduce (+) 0 (map2 (*) xs ys)

-- ==
-- entry: main
-- input { [1.0f32, 2.0f32, 3.0f32] [4.0f32, 5.0f32, 6.0f32] }
-- output { 32.0f32 }
-- input { [0.5f32, -2.0f32, 8.25f32] [4.0f32, 0.125f32, -2.0f32] }
-- output { -14.75f32 }
-- input { empty([0]f32) empty([0]f32) }
-- output { 0.0f32 }
-- random input { [1000]f32 [1000]f32 }
entry main [n] (xs: [n]f32) (ys: [n]f32) : f32 =
  dotprod xs ys

-- ==
-- entry: dot_i32
-- input { [1i32, 2i32, 3i32] [4i32, 5i32, 6i32] }
-- output { 32i32 }
-- input { [-7i32, 3i32] [2i32, -5i32] }
-- output { -29i32 }
-- input { [65536i32, 2i32] [65536i32, 3i32] }
-- output { 6i32 }
-- input { empty([0]i32) empty([0]i32) }
-- output { 0i32 }
entry dot_i32 [n] (xs: [n]i32) (ys: [n]i32) : i32 =
  reduce (+) 0 (map2 (*) xs ys)

-- ==
-- entry: norm
-- input { [3.0f32, 4.0f32] }
-- output { 5.0f32 }
-- input { [1.0f32, 2.0f32, 2.0f32] }
-- output { 3.0f32 }
-- input { empty([0]f32) }
-- output { 0.0f32 }
entry norm [n] (xs: [n]f32) : f32 =
  f32.sqrt (dotprod xs xs)
