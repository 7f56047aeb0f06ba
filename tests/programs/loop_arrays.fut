-- Loops whose parameters are arrays. The wasm backend frees what each iteration allocates except
-- the arrays it returns, which it moves down to the loop's start: these cases exercise that
-- (arrays swapped, kept, returned twice, updated in place, rows of a bigger array, 1-byte
-- elements, sizes that change, loops inside loops).

-- ==
-- entry: swap
-- input { [1, 2, 3] [4, 5, 6] 3i64 }
-- output { [4, 5, 6] [1, 2, 3] }
-- input { [1, 2, 3] [4, 5, 6] 4i64 }
-- output { [1, 2, 3] [4, 5, 6] }
entry swap [n] (xs: [n]i32) (ys: [n]i32) (k: i64) : ([n]i32, [n]i32) =
  loop (a, b) = (map (+ 0) xs, ys) for _i < k do (b, map (+ 0) a)

-- ==
-- entry: one_new_one_kept
-- input { [1f32, 2f32, 3f32] [7f32] }
-- output { [6f32, 7f32, 8f32] [7f32] }
entry one_new_one_kept (xs: []f32) (ys: []f32) : ([]f32, []f32) =
  loop (a, b) = (xs, ys) for _i < 5 do (map (+ 1) a, b)

-- ==
-- entry: same_twice
-- input { [1i64, 2i64] }
-- output { [8i64, 16i64] [8i64, 16i64] }
entry same_twice (xs: []i64) : ([]i64, []i64) =
  loop (a, b) = (xs, xs) for _i < 3 do let c = map2 (+) a b in (c, c)

-- ==
-- entry: in_place
-- input { 5i64 }
-- output { [0i64, 1i64, 4i64, 9i64, 16i64] }
entry in_place (n: i64) : [n]i64 =
  loop acc = replicate n 0 for i < n do acc with [i] = i * i

-- ==
-- entry: rows
-- input { [1, 2, 3] }
-- output { [8, 16, 24] }
entry rows (xs: []i32) : []i32 =
  loop r = xs for _i < 3 do (replicate 3 (map (* 2) r))[1]

-- ==
-- entry: flags
-- input { [true, false, true, true, false] }
-- output { [false, true, false, false, true] }
entry flags (bs: []bool) : []bool =
  loop a = bs for _i < 7 do map (\b -> !b) a

-- ==
-- entry: growing
-- input { [1i32, 2i32, 3i32] }
-- output { 48i64 96i32 }
entry growing (xs: []i32) : (i64, i32) =
  let ys = loop a = xs while length a < 40 do a ++ a
  in (length ys, i32.sum ys)

-- ==
-- entry: nested
-- input { [1f32, 2f32] }
-- output { [81f32, 162f32] }
entry nested (xs: []f32) : []f32 =
  loop a = xs for _i < 2 do
    loop b = a for _j < 2 do map (* 3) b
