-- Prefix sums with scan: inclusive, exclusive (derived from the inclusive one), products and running maxima.

-- ==
-- entry: inclusive
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [1i32, 3i32, 6i32, 10i32] }
-- input { [5i32, -2i32, 7i32, 0i32, -1i32] }
-- output { [5i32, 3i32, 10i32, 10i32, 9i32] }
-- input { [42i32] }
-- output { [42i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- random input { [1000]i32 }
entry inclusive [n] (xs: [n]i32) : [n]i32 =
  scan (+) 0 xs

-- ==
-- entry: exclusive
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [0i32, 1i32, 3i32, 6i32] }
-- input { [5i32, -2i32, 7i32, 0i32, -1i32] }
-- output { [0i32, 5i32, 3i32, 10i32, 10i32] }
-- input { [42i32] }
-- output { [0i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
entry exclusive [n] (xs: [n]i32) : [n]i32 =
  map2 (-) (scan (+) 0 xs) xs

-- ==
-- entry: products
-- input { [1i64, 2i64, 3i64, 4i64, 5i64] }
-- output { [1i64, 2i64, 6i64, 24i64, 120i64] }
-- input { [3i64, -1i64, 2i64] }
-- output { [3i64, -3i64, -6i64] }
-- input { empty([0]i64) }
-- output { empty([0]i64) }
entry products [n] (xs: [n]i64) : [n]i64 =
  scan (*) 1 xs

-- ==
-- entry: running_max
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [1i32, 2i32, 3i32, 4i32] }
-- input { [5i32, -2i32, 7i32, 0i32, -1i32] }
-- output { [5i32, 5i32, 7i32, 7i32, 7i32] }
-- input { [42i32] }
-- output { [42i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
entry running_max [n] (xs: [n]i32) : [n]i32 =
  scan i32.max i32.lowest xs
