-- The adjoints of parameters that every sample uses are sums over the samples. The GPU backend
-- folds the sums of `a` and `b` in one kernel (they share each sample's residual), on few
-- samples an invocation per element and on many in chunks; each must still be its own sum.
-- d/da_j = Σ 2·r·x_j and d/db_j = Σ 2·r, with r = a_j·x_j + b_j - 1.
def loss [n][k] (xs: [n][k]f32) (a: [k]f32, b: [k]f32) : f32 =
  f32.sum (map (\x -> f32.sum (map3 (\xi ai bi -> let r = ai * xi + bi - 1 in r * r) x a b)) xs)

-- ==
-- entry: grad
-- input { [[1f32, 2f32], [0f32, -1f32], [3f32, 0.5f32]] [0.5f32, 1f32] [0f32, 0.25f32] }
-- output { [2f32, 8.25f32] [-2f32, -1.5f32] }
entry grad [n][k] (xs: [n][k]f32) (a: [k]f32) (b: [k]f32) = vjp (loss xs) (a, b) 1

-- The same on n generated samples of 4 values each.
-- ==
-- entry: many
-- input { 1000i64 }
-- output { [-900.0609f32, -899.641f32, -899.4009f32, -900.4409f32] [-1999.9f32, -2000.2f32, -2000.5f32, -1999.7001f32] }
entry many (n: i64) =
  let xs = map (\i -> map (\j -> f32.i64 ((i * 7 + j * 3) % 11) / 10) (iota 4)) (iota n)
  in vjp (loss xs) (replicate 4 0.5, replicate 4 (-0.25)) 1
