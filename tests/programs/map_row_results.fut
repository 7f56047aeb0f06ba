-- Maps whose body returns an array that a map of the body computes. Compiled backends write such
-- a row straight into the outer map's output; these cases check that nothing else sees the
-- difference: a row returned twice, updated after it is computed, computed in one branch of an
-- `if`, read by a later map of the body, or three levels deep.

-- ==
-- entry: twice
-- input { [[1f32, 2f32], [3f32, 4f32]] }
-- output { [[2f32, 4f32], [6f32, 8f32]] [[2f32, 4f32], [6f32, 8f32]] }
entry twice (xss: [][]f32) : ([][]f32, [][]f32) =
  unzip (map (\r -> let s = map (* 2) r in (s, s)) xss)

-- ==
-- entry: updated
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] }
-- output { [[9i32, 3i32, 4i32], [9i32, 6i32, 7i32]] }
entry updated (xss: [][]i32) : [][]i32 =
  map (\r -> let s = map (+ 1) r in s with [0] = 9) xss

-- ==
-- entry: branch
-- input { [[1f32, 2f32], [-3f32, 4f32], [5f32, -6f32]] }
-- output { [[2f32, 4f32], [-3f32, 4f32], [10f32, -12f32]] }
entry branch (xss: [][]f32) : [][]f32 =
  map (\r -> if r[0] > 0 then map (* 2) r else r) xss

-- ==
-- entry: read_later
-- input { [[1i32, 2i32, 3i32], [10i32, 20i32, 30i32]] }
-- output { [[4i32, 4i32, 4i32], [40i32, 40i32, 40i32]] [[2i32, 3i32, 4i32], [11i32, 21i32, 31i32]] }
entry read_later [n][m] (xss: [n][m]i32) : ([n][m]i32, [n][m]i32) =
  unzip (map (\r ->
                let s = map (+ 1) r
                let t = map2 (+) s (reverse s)
                in (map (\x -> x - 2) t, s))
             xss)

-- ==
-- entry: deep
-- input { 2i64 3i64 4i64 }
-- output { 250i64 }
entry deep (a: i64) (b: i64) (c: i64) : i64 =
  let x = tabulate_3d a b c (\i j k -> i * 100 + j * 10 + k)
  let y = map (\m -> map (\r -> map (\v -> v * 2 + 1) r) m) x
  let z = map (\m -> map (\r -> loop acc = 0 for v in r do acc + v) m) y
  in i64.sum (map i64.sum z) / (a * b) - i64.sum (map i64.sum (map (map (\r -> i64.sum r)) x)) / (a * b)

-- The rows of a softmax: each row's exponentials are summed as they are computed.
-- ==
-- entry: softmax
-- input { [[0f32, 0f32], [1f32, 1f32], [0f32, 2f32]] }
-- output { [[0.5f32, 0.5f32], [0.5f32, 0.5f32], [0.11920292f32, 0.8807971f32]] }
entry softmax (xss: [][]f32) : [][]f32 =
  map (\xs -> let m = f32.maximum xs
              let es = map (\x -> f32.exp (x - m)) xs
              let s = f32.sum es
              in map (/ s) es) xss
