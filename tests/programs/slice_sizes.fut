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

-- Bounds built from constants and variables with `+`, `-` and `*` are keys too, and slices of
-- a parameter whose size is inferred (`[]`) share sizes the same way.
-- ==
-- entry: prefix_dot
-- input { [1f32, 2f32, 3f32, 4f32] 1i64 }
-- output { 5f32 }
-- input { [1f32, 2f32, 3f32, 4f32] 4i64 }
-- error: out of bounds
def dot [n] (a: [n]f32) (b: [n]f32) : f32 = f32.sum (map2 (*) a b)

entry prefix_dot (xs: []f32) (i: i64) : f32 = dot xs[:2*i-i+1] xs[:2*i-i+1]

-- Constant bounds and strides give a constant size (`[1:10:2]` has 5 elements), and `a[::-1]`
-- is as long as `a`.
-- ==
-- entry: strided
-- input { [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20] }
-- output { [0, 11, 2, 13, 4, 15, 6, 17, 8, 19, 10] [20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10] [9, 7, 5] }
entry strided [n] (xs: *[n]i32) (ys: [n]i32) : ([n]i32, [n]i32, [3]i32) =
  let zs = ys[::-1]
  let back = copy xs[9:3:-2]
  in (xs with [1:10:2] = ys[1:10:2], zs, back)
