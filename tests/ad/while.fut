-- Seed-001 §7 test 19: a while loop (counted, then checkpointed like a for-loop).
-- ==
-- input { 3.0 }
-- output { 192.0 64.0 64.0 }
entry main (x0: f64) =
  let f x0 = loop x = x0 while x < 100 do 2 * x
  in (f x0, vjp f x0 1, jvp f x0 1)
