-- The array library: head, last, tail, init, take, drop, split, concatenation, rotation, reversal,
-- reshaping with flatten/unflatten/transpose, iota, indices, replicate.

-- ==
-- entry: ends
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { 1i32 4i32 [2i32, 3i32, 4i32] [1i32, 2i32, 3i32] }
-- input { [9i32] }
-- output { 9i32 9i32 empty([0]i32) empty([0]i32) }
entry ends (xs: []i32) : (i32, i32, []i32, []i32) =
  (head xs, last xs, tail xs, init xs)

-- ==
-- entry: take_drop
-- input { 2i64 [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [1i32, 2i32] [3i32, 4i32, 5i32] }
-- input { 0i64 [1i32, 2i32] }
-- output { empty([0]i32) [1i32, 2i32] }
-- input { 3i64 [1i32, 2i32, 3i32] }
-- output { [1i32, 2i32, 3i32] empty([0]i32) }
-- input { 0i64 empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }
entry take_drop (k: i64) (xs: []i32) : ([]i32, []i32) =
  (take k xs, drop k xs)

-- ==
-- entry: split_at
-- input { 2i64 [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [1i32, 2i32] [3i32, 4i32, 5i32] }
-- input { 0i64 [1i32] }
-- output { empty([0]i32) [1i32] }
-- input { 2i64 [8i32, 9i32] }
-- output { [8i32, 9i32] empty([0]i32) }
entry split_at (k: i64) (xs: []i32) : ([]i32, []i32) =
  split k xs

-- ==
-- entry: joined
-- input { [1i32, 2i32] [3i32, 4i32, 5i32] }
-- output { [1i32, 2i32, 3i32, 4i32, 5i32] [3i32, 4i32, 5i32, 1i32, 2i32] }
-- input { empty([0]i32) [7i32] }
-- output { [7i32] [7i32] }
-- input { empty([0]i32) empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }
entry joined (xs: []i32) (ys: []i32) : ([]i32, []i32) =
  (xs ++ ys, concat ys xs)

-- rotate r moves element i + r to position i; negative amounts rotate the other way.
-- ==
-- entry: rotations
-- input { 1i64 [1i32, 2i32, 3i32, 4i32] }
-- output { [2i32, 3i32, 4i32, 1i32] [4i32, 1i32, 2i32, 3i32] [4i32, 3i32, 2i32, 1i32] }
-- input { 6i64 [1i32, 2i32, 3i32, 4i32] }
-- output { [3i32, 4i32, 1i32, 2i32] [3i32, 4i32, 1i32, 2i32] [4i32, 3i32, 2i32, 1i32] }
-- input { -1i64 [5i32, 6i32, 7i32] }
-- output { [7i32, 5i32, 6i32] [6i32, 7i32, 5i32] [7i32, 6i32, 5i32] }
-- input { 3i64 empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) empty([0]i32) }
entry rotations (r: i64) (xs: []i32) : ([]i32, []i32, []i32) =
  (rotate r xs, rotate (-r) xs, reverse xs)

-- ==
-- entry: reshape
-- input { 2i64 3i64 [0i32, 1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [[0i32, 3i32], [1i32, 4i32], [2i32, 5i32]] [0i32, 3i32, 1i32, 4i32, 2i32, 5i32] }
-- input { 3i64 2i64 [0i32, 1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [[0i32, 2i32, 4i32], [1i32, 3i32, 5i32]] [0i32, 2i32, 4i32, 1i32, 3i32, 5i32] }
-- input { 1i64 4i64 [0i32, 1i32, 2i32, 3i32] }
-- output { [[0i32], [1i32], [2i32], [3i32]] [0i32, 1i32, 2i32, 3i32] }
-- input { 0i64 5i64 empty([0]i32) }
-- output { empty([5][0]i32) empty([0]i32) }
entry reshape (n: i64) (m: i64) (xs: []i32) : ([m][n]i32, []i32) =
  let a : [n][m]i32 = unflatten xs
  in (transpose a, flatten (transpose a))

-- ==
-- entry: counting
-- input { 4i64 }
-- output { [0i64, 1i64, 2i64, 3i64] [0i64, 2i64, 4i64, 6i64] [false, false, false, false] }
-- input { 0i64 }
-- output { empty([0]i64) empty([0]i64) empty([0]bool) }
-- input { 1i64 }
-- output { [0i64] [0i64] [false] }
entry counting (n: i64) : ([n]i64, [n]i64, [n]bool) =
  (iota n, map (* 2) (indices (replicate n 0u8)), replicate n false)
