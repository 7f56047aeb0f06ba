-- Each point reads every center, then only its nearest one counts: the adjoint of the centers
-- per point is one row. The GPU adds those rows into one histogram (by nearest center) instead
-- of summing an array of all centers per point; a center no point is nearest to gets zeros.

def cost [n][k][d] (points: [n][d]f32) (centers: [k][d]f32) : f32 =
  let dist p c = f32.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f32.sum (map (\p -> f32.minimum (map (dist p) centers)) points)

-- ==
-- entry: centers
-- input { [[0f32, 0f32], [1f32, 0f32], [10f32, 10f32], [11f32, 10f32], [0f32, 2f32]]
--         [[1f32, 1f32], [9f32, 9f32], [50f32, 50f32]] }
-- output { [[4f32, 2f32], [-6f32, -4f32], [0f32, 0f32]] }
entry centers [n][k][d] (points: [n][d]f32) (cs: [k][d]f32) = vjp (cost points) cs 1

-- Both adjoints at once.
-- ==
-- entry: both
-- input { [[0f32, 0f32], [1f32, 0f32], [10f32, 10f32], [11f32, 10f32], [0f32, 2f32]]
--         [[1f32, 1f32], [9f32, 9f32], [50f32, 50f32]] }
-- output { [[-2f32, -2f32], [0f32, -2f32], [2f32, 2f32], [4f32, 2f32], [-2f32, 2f32]]
--          [[4f32, 2f32], [-6f32, -4f32], [0f32, 0f32]] }
entry both [n][k][d] (points: [n][d]f32) (cs: [k][d]f32) =
  vjp (\(p, c) -> cost p c) (points, cs) 1
