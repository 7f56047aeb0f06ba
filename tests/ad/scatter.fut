-- Seed-001 §7 test 12: scatter, with a use of the destination before it.
-- ==
-- input { [1.0, 2.0, 3.0, 4.0] [1i64, 3i64] [10.0, 20.0] }
-- output { [1.0, 10.0, 3.0, 20.0] [1.0, 0.0, 3.0, 0.0] [2.0, 4.0] }
def f (is: []i64) (xs: []f64, vs: []f64) = scatter (copy xs) is vs

entry main (xs: []f64) (is: []i64) (vs: []f64) =
  let (dxs, dvs) = vjp (f is) (xs, vs) [1, 2, 3, 4]
  in (f is (xs, vs), dxs, dvs)

-- ==
-- entry: chained
-- input { [1.0, 2.0, 3.0, 4.0] [1i64, 3i64] [10.0, 20.0] }
-- output { [3.0, 4.0, 7.0, 8.0] [1.0, 1.0] }
entry chained (xs: []f64) (is: []i64) (vs: []f64) =
  let f (xs: []f64, vs: []f64) =
    let s = f64.sum (map (\x -> x * x) xs)
    let ys = scatter (copy xs) is vs
    in s + f64.sum ys
  in vjp f (xs, vs) 1

-- Several writes to one cell: only the last lands, so only its value gets the cell's adjoint;
-- writes out of bounds get none. The forward mode agrees.
-- ==
-- entry: duplicates
-- input { [0f32, 0f32, 0f32, 0f32] [1i64, 1i64, 3i64, 1i64, 7i64, -1i64] [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- output { [1f32, 0f32, 3f32, 0f32] [0f32, 0f32, 4f32, 2f32, 0f32, 0f32] [0f32, 4f32, 0f32, 3f32] }
entry duplicates [n][w] (dest: [n]f32) (is: [w]i64) (vs: [w]f32) =
  let f (d: [n]f32, v: [w]f32) = scatter (copy d) is v
  let (dd, dv) = vjp f (dest, vs) (map (\i -> f32.i64 i + 1) (iota n))
  let t = jvp f (dest, vs) (replicate n 0, map (\i -> f32.i64 i + 1) (iota w))
  in (dd, dv, t)

-- The same into the rows of a matrix, two indices a write.
-- ==
-- entry: duplicates_2d
-- input { [[0f32, 0f32], [0f32, 0f32]] [0i64, 0i64, 1i64, 0i64] [1i64, 1i64, 0i64, 1i64] [1f32, 2f32, 3f32, 4f32] }
-- output { [[1f32, 0f32], [0f32, 4f32]] [0f32, 0f32, 3f32, 2f32] }
entry duplicates_2d [n][w] (dest: [n][n]f32) (is: [w]i64) (js: [w]i64) (vs: [w]f32) =
  let f (d: [n][n]f32, v: [w]f32) = scatter_2d (copy d) (zip is js) v
  let seed = tabulate_2d n n (\i j -> f32.i64 (i * n + j) + 1)
  in vjp f (dest, vs) seed
