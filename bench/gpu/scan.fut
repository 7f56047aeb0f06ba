-- GPU roofline: the inclusive prefix sum of 2^26 f32s (256 MiB read, 256 MiB written).
-- `repeated` runs 20 such scans back to back (each of the last one's result, halved as it is
-- read), so the GPU runs at its working clock: `ogham bench --profile` gives the time per launch.
-- ==
-- entry: main
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [1f32, 3f32, 6f32, 10f32] }
-- random input { [67108864]f32 }
entry main [n] (xs: [n]f32) : [n]f32 =
  scan (+) 0 xs

-- ==
-- entry: repeated
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [9.536743e-7f32, 2.0980835e-5f32, 2.412796e-4f32, 1.9302368e-3f32] }
-- random input { [67108864]f32 }
entry repeated [n] (xs: [n]f32) : [n]f32 =
  loop s = xs for _i < 20 do scan (+) 0 (map (* 0.5) s)
