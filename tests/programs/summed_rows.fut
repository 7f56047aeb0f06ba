-- Array reductions over the rows of a map that nothing else reads: compiled backends fold each
-- row into the sum as it is computed (in parallel chunks where the map is worth it) instead of
-- storing every row. Sums of none, one, fewer rows than chunks and more; a neutral element
-- that is not zero; other results of the same map still stored. (runtime/tests/differential.rs
-- also sums with an operator that does not commute, which the GPU backend does not take.)

def row (i: i64) : [3]i64 = map (\j -> i * j + 1) (iota 3)

-- ==
-- entry: sums
-- input { 0i64 } output { [7i64, 8i64, 9i64] }
-- input { 1i64 } output { [8i64, 9i64, 10i64] }
-- input { 5i64 } output { [12i64, 23i64, 34i64] }
-- input { 40i64 } output { [47i64, 828i64, 1609i64] }
entry sums (n: i64) : [3]i64 =
  reduce (map2 (+)) [7, 8, 9] (map row (iota n))

-- ==
-- entry: stored_too
-- input { 20i64 } output { [20i64, 210i64, 400i64] [0i64, 2i64, 4i64] }
entry stored_too (n: i64) : ([3]i64, []i64) =
  let (rows, twice) = unzip (map (\i -> (row i, i * 2)) (iota n))
  in (reduce (map2 (+)) (replicate 3 0) rows, take 3 twice)
