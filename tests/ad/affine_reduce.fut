-- Seed-001 §7 test 6: a general reduce with a non-commutative tuple operator (affine maps).
def op (a: f64, b: f64) (c: f64, d: f64) = (a * c, b * c + d)

-- ==
-- input { [2.0, 3.0, 0.5] [1.0, -1.0, 4.0] }
-- output { 3.0 5.0 [1.5, 1.5, 8.0] [1.5, 0.5, 1.0] }
entry main [n] (as: [n]f64) (bs: [n]f64) =
  let f (as, bs) = reduce op (1, 0) (zip as bs)
  let (y0, y1) = f (as, bs)
  let (da, db) = vjp f (as, bs) (1, 1)
  in (y0, y1, da, db)
