-- jvp and vjp used like ordinary functions: inside map, nested (second derivatives in every
-- combination), on records, tuples and rank-3 arrays, partially applied.
def cube (y: f64) = y * y * y

-- ==
-- entry: in_map
-- input { [1.0, 2.0, -3.0] }
-- output { [3.0, 12.0, 27.0] [3.0, 12.0, 27.0] }
entry in_map (xs: []f64) = (map (\x -> jvp cube x 1) xs, map (\x -> vjp cube x 1) xs)

-- ==
-- entry: second
-- input { 2.0 }
-- output { 12.0 12.0 12.0 12.0 }
entry second (x: f64) =
  ( vjp (\x -> vjp cube x 1) x 1
  , jvp (\x -> vjp cube x 1) x 1
  , vjp (\x -> jvp cube x 1) x 1
  , jvp (\x -> jvp cube x 1) x 1 )

-- ==
-- entry: record
-- input { 2.0 3.0 }
-- output { 3.0 2.0 5.0 }
entry record (a: f64) (b: f64) =
  let f (r: {a: f64, b: f64}) = r.a * r.b
  let g = vjp f {a, b} 1
  in (g.a, g.b, jvp f {a, b} {a = 1, b = 1})

-- ==
-- entry: rank3
-- input { [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]] }
-- output { [[[2.0, 4.0], [6.0, 8.0]], [[10.0, 12.0], [14.0, 16.0]]] 408.0 }
entry rank3 [a][b][c] (x: [a][b][c]f64) =
  let f x = f64.sum (map (\m -> f64.sum (map (\r -> f64.sum (map (\v -> v * v) r)) m)) x)
  in (vjp f x 1, jvp f x x)

-- ==
-- entry: int_args
-- input { 3i64 2.0 }
-- output { 0i64 3.0 }
entry int_args (n: i64) (x: f64) = vjp (\(n, x) -> f64.i64 n * x) (n, x) 1
