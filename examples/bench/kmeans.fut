-- Benchmark: one k-means step: assign each point to its nearest centroid, then move each
-- centroid to the mean of its points (an empty cluster keeps its centroid).
def dist2 [d] (a: [d]f32) (b: [d]f32) : f32 =
  f32.sum (map2 (\x y -> (x - y) * (x - y)) a b)

def closest [k][d] (cs: [k][d]f32) (p: [d]f32) : i32 =
  let pick (i: i32, a: f32) (j: i32, b: f32) =
    if a < b || (a == b && i < j) then (i, a) else (j, b)
  let (i, _) = reduce pick (i32.i64 k, f32.inf) (zip (map i32.i64 (iota k)) (map (dist2 p) cs))
  in i

-- ==
-- input { [[0f32, 0f32], [0f32, 1f32], [10f32, 10f32], [10f32, 11f32], [5f32, 5f32]] [[0f32, 0f32], [10f32, 10f32]] }
-- output { [[1.6666666f32, 2.0f32], [10.0f32, 10.5f32]] }
entry main [n][k][d] (points: [n][d]f32) (centroids: [k][d]f32) : [k][d]f32 =
  let assign = map (\p -> i64.i32 (closest centroids p)) points
  let counts = hist (+) 0 k assign (replicate n 1i32)
  let sums = map (\coord -> hist (+) 0 k assign coord) (transpose points)
  in map3 (\s c old -> if c == 0 then old else map (/ f32.i32 c) s) (transpose sums) counts centroids
