-- `unflatten` takes the sizes of its result from their uses; one that nothing else determines
-- is its array's size divided by the others, when that divides exactly (`n*m` by `n`).

-- ==
-- entry: row_sums
-- input { 2i64 3i64 }
-- output { [3i64, 12i64] }
-- input { 0i64 3i64 }
-- output { empty([0]i64) }
entry row_sums (n: i64) (m: i64) : [n]i64 =
  let a = unflatten (iota (n * m))
  in map (\r -> reduce (+) 0 r) a

-- ==
-- entry: pairs
-- input { 3i64 }
-- output { [1i64, 5i64, 9i64] 2i64 }
entry pairs (n: i64) =
  let xs = iota (2 * n)
  let ps : [n][]i64 = unflatten xs
  in (map i64.sum ps, length ps[0])

-- ==
-- entry: cube
-- input { 2i64 }
-- output { [[6i64, 22i64], [38i64, 54i64]] }
entry cube (n: i64) : [n][n]i64 =
  let c = unflatten_3d (iota (n * n * 4))
  in map (map i64.sum) c
