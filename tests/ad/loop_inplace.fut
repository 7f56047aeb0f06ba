-- Seed-001 §7 test 18: a loop with in-place updates.
-- ==
-- input { [1.0, 0.0, 0.0, 0.0] [9.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 2.0, 6.0, 24.0] [33.0, 0.0, 0.0, 0.0] [0.0, 16.0, 10.0, 6.0] }
entry main [n] (xs0: [n]f64) (as: [n]f64) =
  let f (xs0: [n]f64, as: [n]f64) =
    loop xs = copy xs0 for i in 1..<n do
      let xs[i] = as[i] * xs[i - 1]
      in xs
  let (dxs0, das) = vjp (\p -> f64.sum (f p)) (xs0, as) 1
  in (f (xs0, as), dxs0, das)
