-- filter and partition, whose results have sizes known only at run time (existential sizes).

-- ==
-- entry: evens
-- input { [1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- output { [2i32, 4i32, 6i32] }
-- input { [7i32, 9i32] }
-- output { empty([0]i32) }
-- input { [-4i32, 0i32, 3i32] }
-- output { [-4i32, 0i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- random input { [1000]i32 }
entry evens (xs: []i32) : []i32 =
  filter (\x -> x % 2 == 0) xs

-- ==
-- entry: by_sign
-- input { [1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- output { empty([0]i32) [1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- input { [7i32, 9i32] }
-- output { empty([0]i32) [7i32, 9i32] }
-- input { [-4i32, 0i32, 3i32] }
-- output { [-4i32] [0i32, 3i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }
entry by_sign (xs: []i32) : ([]i32, []i32) =
  partition (< 0) xs

-- The return type names the unknown length explicitly.
def positives [n] (xs: [n]f32) : ?[k].[k]f32 =
  filter (> 0) xs

-- ==
-- entry: keep_positive
-- input { [1.5f32, -2.0f32, 0.0f32, 3.25f32] }
-- output { [1.5f32, 3.25f32] }
-- input { [-1.0f32, -2.0f32] }
-- output { empty([0]f32) }
-- input { empty([0]f32) }
-- output { empty([0]f32) }
entry keep_positive (xs: []f32) : []f32 =
  positives xs

-- ==
-- entry: count_positive
-- input { [1.5f32, -2.0f32, 0.0f32, 3.25f32] }
-- output { 2i64 }
-- input { [-1.0f32, -2.0f32] }
-- output { 0i64 }
-- input { empty([0]f32) }
-- output { 0i64 }
entry count_positive (xs: []f32) : i64 =
  length (positives xs)
