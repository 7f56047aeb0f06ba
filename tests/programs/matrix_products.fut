-- Matrix-product nests, `map (\r -> map (\c -> reduce g ne (map2 f r c)) B) A`, which the GPU
-- backend runs as one invocation per small square block of the result. Each entry compares the nest with
-- the same fold written as a sequential loop, at sizes that leave partial blocks; the results
-- must be equal exactly, since both fold each element in index order.

def mat (n: i64) (m: i64) (s: i64) : [n][m]f32 =
  tabulate_2d n m (\i j -> f32.i64 ((i * 7 + j * 3 + s) % 11) - 4.5)

def imat (n: i64) (m: i64) (s: i64) : [n][m]i32 =
  tabulate_2d n m (\i j -> i32.i64 ((i * 5 + j * 13 + s) % 17) - 8)

-- ==
-- entry: f32_products
-- input { 17i64 3i64 18i64 } output { true }
-- input { 1i64 1i64 1i64 } output { true }
-- input { 16i64 16i64 16i64 } output { true }
-- input { 33i64 40i64 5i64 } output { true }
-- input { 5i64 0i64 3i64 } output { true }
-- input { 0i64 4i64 3i64 } output { true }
entry f32_products (n: i64) (m: i64) (p: i64) : bool =
  let a = mat n m 1
  let b = mat m p 2
  let bt = transpose b
  let c = map (\r -> map (\col -> f32.sum (map2 (*) r col)) bt) a
  let d = map (\r -> map (\j -> loop acc = 0f32 for k < m do acc + r[k] * b[k][j]) (iota p)) a
  in and (map2 (\x y -> and (map2 (==) x y)) c d)

-- `f` taking the column's element first, a `min` fold: the distance to the nearest point
-- along each coordinate.
-- ==
-- entry: nearest
-- input { 19i64 7i64 21i64 } output { true }
-- input { 2i64 33i64 2i64 } output { true }
entry nearest (n: i64) (m: i64) (p: i64) : bool =
  let a = mat n m 3
  let b = mat p m 4
  let c = map (\r -> map (\q -> f32.minimum (map2 (\y x -> (x - y) * (x - y)) q r)) b) a
  let d = map (\r -> map (\q -> loop acc = f32.inf for k < m do f32.min acc ((r[k] - q[k]) * (r[k] - q[k]))) b) a
  in and (map2 (\x y -> and (map2 (==) x y)) c d)

-- Integers wrap; the product of int matrices equals the loop's.
-- ==
-- entry: i32_products
-- input { 18i64 35i64 17i64 } output { true }
entry i32_products (n: i64) (m: i64) (p: i64) : bool =
  let a = imat n m 5
  let b = transpose (imat m p 6)
  let c = map (\r -> map (\col -> i32.sum (map2 (*) r col)) b) a
  let d = map (\r -> map (\q -> loop acc = 0i32 for k < m do acc + r[k] * q[k]) b) a
  in and (map2 (\x y -> and (map2 (==) x y)) c d)

-- The product itself, with values to check by hand.
-- ==
-- entry: product
-- input { [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] [[1f32, 0f32], [0f32, 1f32], [1f32, 1f32]] }
-- output { [[4f32, 5f32], [10f32, 11f32]] }
entry product [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\r -> map (\col -> f32.sum (map2 (*) r col)) (transpose b)) a
