-- One k-means step: assign points to their nearest centroid, then average each cluster with reduce_by_index.

def dist2 [d] (a: [d]f32) (b: [d]f32) : f32 =
  f32.sum (map2 (\x y -> (x - y) * (x - y)) a b)

-- The index of the nearest centroid; ties go to the lower index.
def closest [k][d] (cs: [k][d]f32) (p: [d]f32) : i64 =
  let pick (i: i64, a: f32) (j: i64, b: f32) =
    if a < b || (a == b && i < j) then (i, a) else (j, b)
  let (i, _) = reduce pick (k, f32.inf) (zip (iota k) (map (dist2 p) cs))
  in i

-- ==
-- entry: step
-- input { [[0.0f32, 0.0f32], [0.0f32, 1.0f32], [10.0f32, 10.0f32], [10.0f32, 11.0f32], [5.0f32, 5.0f32]] [[0.0f32, 0.0f32], [10.0f32, 10.0f32]] }
-- output { [[1.6666666f32, 2.0f32], [10.0f32, 10.5f32]] [0i64, 0i64, 1i64, 1i64, 0i64] }
-- input { [[1.0f32, 2.0f32, 3.0f32], [2.0f32, 2.0f32, 2.0f32], [9.0f32, 9.0f32, 9.0f32]] [[0.0f32, 0.0f32, 0.0f32], [2.0f32, 2.0f32, 2.0f32], [100.0f32, 100.0f32, 100.0f32]] }
-- output { [[0.0f32, 0.0f32, 0.0f32], [4.0f32, 4.3333335f32, 4.6666665f32], [100.0f32, 100.0f32, 100.0f32]] [1i64, 1i64, 1i64] }
-- input { [[0.5f32], [1.5f32], [2.5f32], [-1.0f32]] [[0.0f32], [2.0f32]] }
-- output { [[-0.25f32], [2.0f32]] [0i64, 1i64, 1i64, 0i64] }
-- input { empty([0][2]f32) [[1.0f32, 1.0f32], [2.0f32, 2.0f32]] }
-- output { [[1.0f32, 1.0f32], [2.0f32, 2.0f32]] empty([0]i64) }
-- random input { [100][3]f32 [5][3]f32 }
entry step [n][k][d] (points: [n][d]f32) (centroids: [k][d]f32) : ([k][d]f32, [n]i64) =
  let assign = map (closest centroids) points
  let counts = reduce_by_index (replicate k 0i32) (+) 0 assign (replicate n 1)
  -- One histogram per coordinate: sums[c][j] is the sum of coordinate c over cluster j.
  let sums = map (\coord -> reduce_by_index (replicate k 0f32) (+) 0 assign coord) (transpose points)
  let new = map3 (\s c old -> if c == 0 then old else map (/ f32.i32 c) s) (transpose sums) counts centroids
  in (new, assign)
