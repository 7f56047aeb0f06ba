-- Seed-001 §7 test 17: a for-loop with a free variable.
-- ==
-- input { 3.0 2.0 }
-- output { 96.0 32.0 240.0 32.0 }
entry main (x0: f64) (a: f64) =
  let f (x0, a) = loop x = x0 for _i < 5 do x * a
  let (dx0, da) = vjp f (x0, a) 1
  in (f (x0, a), dx0, da, jvp f (x0, a) (1, 0))
