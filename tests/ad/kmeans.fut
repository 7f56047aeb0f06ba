-- Seed-001 §7 test 20: k-means cost, its gradient, the Hessian diagonal (jvp2 of vjp) and one
-- Newton step, which equals Lloyd's update.
def cost [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) : f64 =
  let dist p c = f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f64.sum (map (\p -> f64.minimum (map (dist p) centers)) points)

-- ==
-- input { [[0.0, 0.0], [1.0, 0.0], [10.0, 10.0], [11.0, 10.0]] [[0.0, 1.0], [10.0, 11.0]] }
-- output { 6.0 [[-2.0, 4.0], [-2.0, 4.0]] [[4.0, 4.0], [4.0, 4.0]] [[0.5, 0.0], [10.5, 10.0]] }
entry main [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  let (grad, hess) =
    jvp2 (\cs -> vjp (cost points) cs 1) centers (replicate k (replicate d 1))
  let newton = map3 (\c g h -> map3 (\c g h -> c - g / h) c g h) centers grad hess
  in (cost points centers, grad, hess, newton)
