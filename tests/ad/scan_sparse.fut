-- Reverse mode of `scan` with general operators whose Jacobians are sparse: the derivative
-- carries only the Jacobian entries that can be non-zero and the adjoint components that can
-- reach a seeded result.

-- 2×2 matrix products: block-sparse Jacobians, and only some results seeded.
def mat (a: f64, b: f64, c: f64, d: f64) (e: f64, f: f64, g: f64, h: f64) =
  (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)

-- ==
-- entry: matrows
-- input { [1.0, 2.0, 0.5] [0.0, 1.0, -1.0] [2.0, 0.0, 1.0] [1.0, 3.0, 2.0] }
-- output { [4.0f64, -1.0f64, 0.0f64] [19.0f64, 6.0f64, 4.0f64] [0.0f64, 0.0f64, 0.0f64]
--   [0.0f64, 0.0f64, 2.0f64] }
entry matrows [n] (as: [n]f64) (bs: [n]f64) (cs: [n]f64) (ds: [n]f64) =
  let f (as, bs, cs, ds) =
    let (p, q, _, _) = unzip4 (scan mat (1, 0, 0, 1) (zip4 as bs cs ds))
    in f64.sum (map2 (*) p q)
  in vjp f (as, bs, cs, ds) 1

-- Only the products of an affine scan are used: the offsets' adjoints are zero.
-- ==
-- entry: products
-- input { [2.0, 3.0, 0.5] [1.0, -1.0, 4.0] }
-- output { [5.5f64, 3.0f64, 6.0f64] [0.0f64, 0.0f64, 0.0f64] }
entry products [n] (as: [n]f64) (bs: [n]f64) =
  let f (as, bs) =
    let (p, _) = unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0) (zip as bs))
    in f64.sum p
  in vjp f (as, bs) 1

-- An operator whose result does not depend on its left operand: the Jacobians are zero, but
-- the recurrence still needs the identity as its neutral.
-- ==
-- entry: last
-- input { [1.0, -2.0, 3.0] }
-- output { [2.0f64, -4.0f64, 6.0f64] }
entry last [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (map (\y -> y * y) (scan (\_ b -> b) 0 xs))) xs 1
