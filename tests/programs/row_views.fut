-- A row read from an array, and the array updated afterwards: the row keeps the values it had
-- (the wasm backend reads a row in place, so an update may not write in place while the row is
-- still used, even where simplification has removed the copy).
-- ==
-- entry: keep
-- input { 3i64 } output { [1i64, 2i64, 3i64] [0i64, 1i64, 2i64, 0i64, 0i64, 0i64, 2i64, 3i64, 4i64] }
entry keep (n: i64) : ([3]i64, []i64) =
  let a = map (\i -> map (+ i) (iota 3)) (iota n)
  let r = a[1]
  let a2 = copy a with [1] = replicate 3 0
  in (r, flatten a2)

-- A loop that reads a row of its accumulator and then replaces another row.
-- ==
-- entry: looped
-- input { 4i64 } output { [[3i64, 3i64], [1i64, 1i64], [2i64, 2i64], [3i64, 3i64]] }
entry looped (n: i64) : [n][2]i64 =
  loop acc = map (\i -> [i, i]) (iota n) for i < n - 1 do
    let r = acc[i + 1]
    in acc with [0] = copy r

-- A map's result stored into a row by an in-place update is computed there directly, unless
-- the map reads the array itself; the update's index is still checked.
-- ==
-- entry: slots
-- input { 1i64 } output { [[0i64, 0i64, 0i64], [1i64, 2i64, 3i64], [0i64, 0i64, 0i64], [1i64, 1i64, 1i64]] }
-- input { 4i64 } error: out of bounds
entry slots (k: i64) : [4][3]i64 =
  let z = replicate 4 (replicate 3 0i64)
  let a = z with [k] = map (+ 1) (iota 3)
  let b = a with [3] = map (\j -> a[0][j] + 1) (iota 3)
  in b
