-- GPU roofline: the sum of 2^26 f32s (256 MiB, beyond any L2 cache): bound by memory bandwidth.
-- ==
-- input { [1f32, 2f32, 3f32] }
-- output { 6f32 }
-- random input { [67108864]f32 }
entry main [n] (xs: [n]f32) : f32 =
  f32.sum xs
