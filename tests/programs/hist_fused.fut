-- Histograms of pairs that a map computes: added as the map computes them (wasm), with bins out
-- of range skipped, any operator, and destinations that are arguments (copied, not updated).
-- ==
-- entry: counts
-- input { 4i64 [3i64, -1i64, 0i64, 3i64, 7i64, 2i64] } output { [1i32, 0i32, 1i32, 2i32] }
entry counts [n] (k: i64) (xs: [n]i64) : [k]i32 =
  hist (+) 0 k (map (\x -> x) xs) (map (\_ -> 1i32) xs)

-- ==
-- entry: maxima
-- input { [1.0f32, 5.0f32, 2.0f32] [0i64, 2i64, 2i64, 5i64, 0i64] [3.0f32, 4.0f32, 9.0f32, 1.0f32, 0.5f32] }
-- output { [3.0f32, 5.0f32, 9.0f32] [1.0f32, 5.0f32, 2.0f32] }
entry maxima [n][m] (dest: [n]f32) (is: [m]i64) (vs: [m]f32) : ([n]f32, [n]f32) =
  (reduce_by_index (copy dest) f32.max f32.lowest (map (\i -> i) is) (map (\v -> v) vs), dest)

-- ==
-- entry: pairs
-- input { 3i64 [0i64, 1i64, 2i64, 4i64] } output { [2.0f64, 2.0f64, 1.0f64] }
entry pairs [n] (k: i64) (xs: [n]i64) : [k]f64 =
  let (is, vs) = unzip (map (\x -> ([x, x - 1], [1.0, 1.0])) xs)
  let fis = flatten is
  let m = length fis
  in hist (+) 0 k (fis :> [m]i64) (flatten vs :> [m]f64)
