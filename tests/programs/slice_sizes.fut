-- Slices with the same bounds (constants and variables) of dimensions of the same size have the
-- same size, so they can be zipped and written back (Futhark knows both as `n - i`).

-- ==
-- entry: write_back
-- input { [1i32, 2i32, 3i32, 4i32] 1i64 }
-- output { [1i32, 3i32, 4i32, 5i32] }
-- input { [1i32, 2i32, 3i32, 4i32] 4i64 }
-- output { [1i32, 2i32, 3i32, 4i32] }
-- input { [1i32, 2i32, 3i32, 4i32] 5i64 }
-- error: out of bounds
entry write_back [n] (xs: *[n]i32) (i: i64) : [n]i32 =
  let ys = map (+ 1) xs[i:n]
  in xs with [i:n] = ys

-- ==
-- entry: tails
-- input { [1f32, 2f32, 3f32, 4f32] [1f32, 1f32, 1f32, 2f32] 1i64 }
-- output { 13f32 [3f32, 6f32] }
entry tails [n] (xs: [n]f32) (ys: [n]f32) (i: i64) : (f32, []f32) =
  (f32.sum (map2 (*) xs[i:] ys[i:]), map2 (+) xs[i:n:2] ys[i:n:2])
