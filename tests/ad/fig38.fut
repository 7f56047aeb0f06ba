-- Seed-001 §7 test 16: the imperfect nest of Fig. 3.8 (a branch inside a map).
-- ==
-- input { [true, false] [[1.0, 2.0], [3.0, 4.0]] }
-- output { [[1.0, 1.0], [6.0, 8.0]] }
entry main [n][m] (cs: [n]bool) (ass: [n][m]f64) =
  vjp (\ass -> map2 (\c as -> if c then as else map (\a -> a * a) as) cs ass) ass
      (replicate n (replicate m 1))
