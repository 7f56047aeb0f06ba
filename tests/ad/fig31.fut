-- Seed-001 §7 test 1: the program P of Fig. 3.1, its Jacobian by two jvps and by two vjps.
def P (x0: f64, x1: f64) : [2]f64 =
  let v0 = f64.sin x0
  let v1 = x1 * v0
  let v2 = v0 * v1
  in [v1 + v2, f64.cos v2]

-- ==
-- entry: primal
-- input { 1.0 2.0 }
-- output { [3.0990888, 0.1540338] }
entry primal (x0: f64) (x1: f64) = P (x0, x1)

-- ==
-- entry: jac_fwd
-- input { 1.0 2.0 }
-- output { [[2.8991995, 1.5495444], [-1.7968910, -0.6996230]] }
entry jac_fwd (x0: f64) (x1: f64) =
  let c0 = jvp P (x0, x1) (1, 0)
  let c1 = jvp P (x0, x1) (0, 1)
  in transpose [c0, c1]

-- ==
-- entry: jac_rev
-- input { 1.0 2.0 }
-- output { [[2.8991995, 1.5495444], [-1.7968910, -0.6996230]] }
entry jac_rev (x0: f64) (x1: f64) =
  let (a, b) = vjp P (x0, x1) [1, 0]
  let (c, d) = vjp P (x0, x1) [0, 1]
  in [[a, b], [c, d]]

-- ==
-- entry: both2
-- input { 1.0 2.0 }
-- output { [3.0990888, 0.1540338] [2.8991995, -1.7968910] [3.0990888, 0.1540338] 2.8991995 1.5495444 }
entry both2 (x0: f64) (x1: f64) =
  let (y, dy) = jvp2 P (x0, x1) (1, 0)
  let (y2, (a, b)) = vjp2 P (x0, x1) [1, 0]
  in (y, dy, y2, a, b)
