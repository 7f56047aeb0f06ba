-- k-means by Newton's method: the gradient by vjp, the (diagonal) Hessian by jvp2 of that vjp,
-- a few Newton steps in a loop (each equals Lloyd's update).
def cost [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) : f64 =
  let dist p c = f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f64.sum (map (\p -> f64.minimum (map (dist p) centers)) points)

def newton_step [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) : [k][d]f64 =
  let (g, h) = jvp2 (\cs -> vjp (cost points) cs 1) centers (replicate k (replicate d 1))
  in map3 (\c g h -> map3 (\c g h -> if h == 0 then c else c - g / h) c g h) centers g h

-- ==
-- entry: main
-- input { [[0.0, 0.0], [1.0, 0.0], [10.0, 10.0], [11.0, 10.0], [0.0, 2.0]] [[1.0, 1.0], [9.0, 9.0]] 3i64 }
-- output { [[0.33333333333333337f64, 0.6666666666666667f64], [10.5f64, 10.0f64]]
--   3.8333333333333335f64 }
entry main [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) (steps: i64) =
  let cs = loop cs = centers for _i < steps do newton_step points cs
  in (cs, cost points cs)

-- The cost alone: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [10000][8]f64 [16][8]f64 }
entry objective [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) : f64 = cost points centers
