-- A vjp seed stays usable after the call even when the differentiated function returns a unique
-- array; so does an argument of a local function that scatters into a copy.
-- ==
-- entry: main
-- input { [1.0, 2.0, 3.0] [0i64, 2i64] }
-- output { [0.0, 1.0, 0.0] [2.0, 3.0, 4.0] }
entry main (xs: []f64) (is: []i64) =
  let f (xs: []f64, vs: []f64) = scatter (copy xs) is vs
  let seed = map (\_ -> 1.0) xs
  let (a, _) = vjp f (xs, map (\_ -> 0.0) is) seed
  in (a, map2 (+) seed xs)
