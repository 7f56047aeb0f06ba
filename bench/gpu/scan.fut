-- GPU roofline: the inclusive prefix sum of 2^26 f32s (256 MiB read, 256 MiB written).
-- ==
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [1f32, 3f32, 6f32, 10f32] }
-- random input { [67108864]f32 }
entry main [n] (xs: [n]f32) : [n]f32 =
  scan (+) 0 xs
