-- GPU roofline: the sum of 2^26 f32s (256 MiB, beyond any L2 cache): bound by memory bandwidth.
-- `repeated` runs 20 such sums back to back (each of a scaled copy, which the sum reads as it
-- goes), so the GPU runs at its working clock rather than waking from idle for each:
-- `ogham bench --profile` gives the time per launch.
-- ==
-- entry: main
-- input { [1f32, 2f32, 3f32] }
-- output { 6f32 }
-- random input { [67108864]f32 }
entry main [n] (xs: [n]f32) : f32 =
  f32.sum xs

-- ==
-- entry: repeated
-- input { [1f32, 2f32, 3f32] }
-- output { 1140f32 }
-- random input { [67108864]f32 }
entry repeated [n] (xs: [n]f32) : f32 =
  loop acc = 0 for i < 20 do acc + f32.sum (map (* f32.i64 i) xs)
