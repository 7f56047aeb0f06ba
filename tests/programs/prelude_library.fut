-- Futhark's library functions beyond the SOACs: sizes from the context (`unflatten`,
-- `unflatten_3d`), the higher-dimensional scatters and histograms, and the small combinators.

-- ==
-- entry: reshape
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] }
-- output { [[2i32, 3i32, 4i32], [5i32, 6i32, 7i32]] [[[1i32, 2i32], [3i32, 4i32]], [[5i32, 6i32], [7i32, 8i32]]] [1i32, 2i32, 3i32, 4i32, 5i32, 6i32, 7i32, 8i32] [1i32, 2i32, 3i32, 4i32, 5i32, 6i32, 7i32, 8i32] }
-- input { empty([0][3]i32) }
-- output { empty([0][3]i32) [[[1i32, 2i32], [3i32, 4i32]], [[5i32, 6i32], [7i32, 8i32]]] [1i32, 2i32, 3i32, 4i32, 5i32, 6i32, 7i32, 8i32] [1i32, 2i32, 3i32, 4i32, 5i32, 6i32, 7i32, 8i32] }
entry reshape [n] [m] (xss: [n][m]i32) : ([n][m]i32, [2][2][2]i32, []i32, []i32) =
  let cube : [2][2][2]i32 = unflatten_3d (map (\i -> i32.i64 i + 1) (iota 8))
  in (unflatten (map (+ 1) (flatten xss)), cube, flatten_3d cube, flatten_4d [cube])

-- ==
-- entry: reshape_checked
-- input { [1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- output { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] 6i32 }
-- input { [1i32, 2i32, 3i32, 4i32] }
-- error: cannot unflatten an array of 4 elements into \[2\]\[3\]
entry reshape_checked (xs: []i32) : ([2][3]i32, i32) =
  let a : [2][3]i32 = unflatten xs
  in (a, a[1, 2])

-- ==
-- entry: sizes
-- input { [1f32, 2f32, 3f32] }
-- output { false true [1f32, 2f32, 3f32] [1f32, 2f32, 3f32] }
-- input { [1f32] }
-- error: size mismatch
entry sizes (xs: []f32) : (bool, bool, [3]f32, []f32) =
  (null xs, null (filter (> 5) xs), sized 3 xs, manifest (opaque xs))

-- ==
-- entry: scatters
-- input { [0i64, 1i64, 2i64, 0i64] [1i64, 0i64, 0i64, -1i64] [1i64, 0i64, 0i64, 0i64] [5i32, 6i32, 7i32, 8i32] }
-- output { [[[0i32, 0i32], [0i32, 5i32]], [[6i32, 0i32], [0i32, 0i32]]] [9i32, 9i32, 5i32] }
entry scatters [n] (is: [n]i64) (js: [n]i64) (ks: [n]i64) (vs: [n]i32) : ([2][2][2]i32, [3]i32) =
  ( scatter_3d (replicate 2 (replicate 2 (replicate 2 0))) (zip3 is js ks) vs
  , spread 3 9 [2, 5, -1] [5, 8, 1]
  )

-- ==
-- entry: histograms
-- input { [0i64, 1i64, 1i64, 2i64, -1i64] [1i64, 0i64, 0i64, 1i64, 0i64] [1f32, 2f32, 3f32, 4f32, 5f32] }
-- output { [[0f32, 1f32], [5f32, 0f32]] [[[0f32, 1f32], [5f32, 0f32]], [[0f32, 0f32], [0f32, 0f32]]] }
entry histograms [n] (is: [n]i64) (js: [n]i64) (vs: [n]f32) : ([2][2]f32, [2][2][2]f32) =
  ( reduce_by_index_2d (replicate 2 (replicate 2 0)) (+) 0 (zip is js) vs
  , reduce_by_index_3d (replicate 2 (replicate 2 (replicate 2 0))) (+) 0 (zip3 (map (const 0) is) is js) vs
  )

-- ==
-- entry: combinators
-- input { [5i32, 1i32, 8i32, 3i32, 9i32, 2i32] }
-- output { [8i32, 9i32] [5i32, 3i32] [1i32, 2i32] 1024i32 128i32 100i32 [5i32, 1i32, 8i32] }
entry combinators (xs: []i32) : ([]i32, []i32, []i32, i32, i32, i32, []i32) =
  let (big, mid, small) = partition2 (> 5) (> 2) xs
  let (as, _) = unzip2 (zip2 xs xs)
  in ( big, mid, small
     , iterate 10 (* 2) 1
     , iterate_until (> 100) (* 2) 1
     , iterate_while (< 100) (+ 10) 0
     , take 3 as
     )

-- The streams: any split into chunks is allowed, so chunked code gives the whole-array answer.
-- ==
-- entry: streams
-- input { [1, 2, 3] }
-- output { [2, 3, 4] 9 [1, 4, 9] 6 }
entry streams (xs: []i32) : ([]i32, i32, []i32, i32) =
  ( map_stream (\_ (c: []i32) -> map (+ 1) c) xs
  , reduce_stream (+) (\k (c: [k]i32) -> i32.sum c + i32.i64 k) xs
  , map_stream_per (\_ (c: []i32) -> map (\x -> x * x) c) xs
  , reduce_stream_per (+) (\_ (c: []i32) -> i32.sum c) xs
  )

-- ==
-- entry: exclusive_scans
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [0i32, 1i32, 3i32, 6i32] [1i32, 1i32, 2i32, 6i32] [[0i32, 0i32], [1i32, 1i32], [3i32, 3i32], [6i32, 6i32]] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) empty([0][2]i32) }
entry exclusive_scans (xs: []i32) =
  (exscan (+) 0 xs, exscan (*) 1 xs, exscan (map2 (+)) [0, 0] (map (\x -> [x, x]) xs))

-- ==
-- entry: unflatten_coerced
-- input { [[0i64, 1i64, 2i64, 3i64], [4i64, 5i64, 6i64, 7i64]] }
-- output { [[0i64, 2i64, 1i64, 3i64], [4i64, 6i64, 5i64, 7i64]] }
entry unflatten_coerced (x: [2][4]i64) =
  let y = map (\row -> unflatten (row :> [2 * 2]i64) :> [2][2]i64) x
  in map flatten (map transpose y)
