-- Gradient examples of seed-002 (dual arrays) that fit the language: self-convolution t_sc,
-- the scatter with collisions (as reduce_by_index), conv1d, cross-entropy with a fixed label,
-- a gather with duplicates, the P1 doubling chain, Fig. 4's scalar program, a transpose,
-- and a concatenation.

-- ==
-- entry: self_conv
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 20.0 [8.0, 6.0, 4.0, 2.0] }
entry self_conv [n] (a: [n]f64) =
  let f a = f64.sum (map (\i -> a[i] * a[n - 1 - i]) (iota n))
  in (f a, vjp f a 1)

-- ==
-- entry: scatter_sum
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }
-- output { [3.0, 7.0, 11.0, 15.0, 9.0, 0.0] [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0] }
entry scatter_sum [n] (t: [n]f64) (w: [6]f64) =
  let f t = reduce_by_index (replicate 6 0) (+) 0 (map (\i -> i / 2) (iota n)) t
  in (f t, vjp (\t -> f64.sum (map2 (*) w (f t))) t 1)

-- ==
-- entry: conv1d
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0] [1.0, 0.0, -1.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [-2.0, -2.0, -2.0, -2.0, -2.0] [55.0, 70.0, 85.0] [1.0, 2.0, 2.0, 2.0, 2.0, -4.0, -5.0] }
entry conv1d [l][k] (x: [l]f64) (w: [k]f64) (g: []f64) =
  let m = l - k + 1
  let conv (x: [l]f64, w: [k]f64) : [m]f64 =
    map (\o -> f64.sum (map (\j -> x[o + j] * w[j]) (iota k))) (iota m)
  let g = g :> [m]f64
  let (dx, dw) = vjp (\p -> f64.sum (map2 (*) g (conv p))) (x, w) 1
  in (conv (x, w), dw, dx)

-- ==
-- entry: cross_entropy
-- input { [1.0, 2.0, 3.0, 0.5, -1.0] }
-- output { [0.084394, 0.229406, -0.376409, 0.051187, 0.011421] }
entry cross_entropy (x: []f64) =
  vjp (\x -> f64.log (f64.sum (map f64.exp x)) - x[2]) x 1

-- ==
-- entry: gather_squares
-- input { [1.0, 2.0, 3.0] [2i64, 0i64, 1i64, 2i64] }
-- output { [2.0, 4.0, 12.0] }
entry gather_squares (x: []f64) (lab: []i64) =
  vjp (\x -> f64.sum (map (\l -> let u = x[l] in u * u) lab)) x 1

-- ==
-- entry: doubling
-- input { 1.5 }
-- output { 32.0 1024.0 }
entry doubling (x: f64) =
  let p1 n x = loop x for _i < n do x + x
  in (vjp (p1 5) x 1, jvp (p1 10) x 1)

-- ==
-- entry: fig4
-- input { 0.3 }
-- output { 2.4455477 2.4455477 }
-- input { 0.0 }
-- output { 2.0 2.0 }
entry fig4 (x: f64) =
  let f x = let y = f64.exp x let z = f64.log y in y + f64.sin z / f64.cos z
  in (vjp f x 1, jvp f x 1)

-- ==
-- entry: transposed
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]] }
entry transposed [n][m] (a: [n][m]f64) (w: [m][n]f64) =
  vjp (\a -> f64.sum (map2 (\x y -> f64.sum (map2 (*) x y)) (transpose a) w)) a 1

-- ==
-- entry: concatenation
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }
-- output { [5.0, 7.0, 9.0] }
entry concatenation [n][m] (a: [n]f64) (w: [m]f64) =
  vjp (\a -> f64.sum (map2 (*) w (a ++ a :> [m]f64))) a 1
