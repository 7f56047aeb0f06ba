-- Sequential folds from either end, the boolean reductions all/any/and/or, and tabulate in one to three dimensions.

-- ==
-- entry: folds
-- input { [1i32, 2i32, 3i32] }
-- output { -6i32 2i32 123i32 }
-- input { [4i32] }
-- output { -4i32 4i32 4i32 }
-- input { empty([0]i32) }
-- output { 0i32 0i32 0i32 }
entry folds (xs: []i32) : (i32, i32, i32) =
  ( foldl (-) 0 xs
  , foldr (-) 0 xs
  , foldl (\acc d -> acc * 10 + d) 0 xs
  )

-- On an empty array, all and `and` are true while any and `or` are false.
-- ==
-- entry: predicates
-- input { [1i32, 2i32, 3i32] }
-- output { true false true false }
-- input { [0i32, -1i32, 12i32] }
-- output { false true false true }
-- input { empty([0]i32) }
-- output { true false true false }
entry predicates (xs: []i32) : (bool, bool, bool, bool) =
  (all (> 0) xs, any (== 0) xs, and (map (< 10) xs), or (map (< 0) xs))

-- ==
-- entry: squares
-- input { 5i64 }
-- output { [0i64, 1i64, 4i64, 9i64, 16i64] }
-- input { 0i64 }
-- output { empty([0]i64) }
entry squares (n: i64) : [n]i64 =
  tabulate n (\i -> i * i)

-- ==
-- entry: cube
-- input { 2i64 3i64 2i64 }
-- output { [[[0i64, 1i64], [10i64, 11i64], [20i64, 21i64]], [[100i64, 101i64], [110i64, 111i64], [120i64, 121i64]]] }
-- input { 1i64 1i64 1i64 }
-- output { [[[0i64]]] }
-- input { 2i64 0i64 3i64 }
-- output { empty([2][0][3]i64) }
entry cube (n: i64) (m: i64) (k: i64) : [n][m][k]i64 =
  tabulate_3d n m k (\i j l -> i * 100 + j * 10 + l)
