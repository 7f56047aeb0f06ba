-- Seed-001 §7 test 9: scan with a non-commutative tuple operator (affine maps).
def op (a: f64, b: f64) (c: f64, d: f64) = (a * c, b * c + d)

-- ==
-- input { [2.0, 3.0, 0.5] [1.0, -1.0, 4.0] }
-- output { [2.0, 6.0, 3.0] [1.0, 2.0, 5.0] [5.5, 4.5, 8.0] [5.5, 1.5, 1.0] }
entry main [n] (as: [n]f64) (bs: [n]f64) =
  let f (as, bs) = unzip (scan op (1, 0) (zip as bs))
  let (ys0, ys1) = f (as, bs)
  let (da, db) = vjp f (as, bs) (replicate n 1, replicate n 1)
  in (ys0, ys1, da, db)
