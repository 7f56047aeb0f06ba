-- Uniqueness follows Futhark's order and tuples: a call evaluates every argument before it
-- consumes any (so a later argument may read a copy of what an earlier one hands over), a
-- tuple pattern bound to a tuple aliases each component separately, and a loop's shorthand
-- `loop (xs, x)` hands over only the values that can share memory.
-- ==
-- entry: histogram_of_itself
-- input { [1i64, 0i64, 2i64] }
-- output { [1i64, 1i64, 4i64] }
entry histogram_of_itself [n] (arr: *[n]i64) : [n]i64 =
  reduce_by_index arr (+) 0 (map (% n) (copy arr)) (copy arr)

-- ==
-- entry: components
-- input { 3i64 }
-- output { [0i64, 1i64, 2i64] [42i64, 1i64, 2i64] }
entry components (n: i64) : ([]i64, []i64) =
  let a = iota n
  let (x, _) = (iota n, a)
  let x[0] = 42
  in (a, x)

-- ==
-- entry: shorthand
-- input { 2i64 1f32 }
-- output { [1f32, 2f32] 3f32 }
entry shorthand (n: i64) (x: f32) : ([]f32, f32) =
  let u = replicate n 0
  in loop (u, x) for i < n do (u with [i] = x, x + 1)

-- A tuple argument to a tuple parameter is consumed by component: only `ys` is unique here, so
-- `xs` may be an ordinary parameter.
-- ==
-- entry: tuple_parameter
-- input { [1f32, 2f32] }
-- output { [1f32, 0f32] }
def upd [n] (xs: [n]f32, ys: *[n]f32) : *[n]f32 =
  let ys[0] = xs[0]
  in ys

entry tuple_parameter [n] (xs: [n]f32) : [n]f32 =
  upd (xs, replicate n 0)
