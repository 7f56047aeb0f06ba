-- Ranges in every form (a...b, a..<b, a..>b and stepped ones) and slices with strides, negative ones included.

-- ==
-- entry: inclusive
-- input { 1i32 5i32 }
-- output { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- input { -2i32 2i32 }
-- output { [-2i32, -1i32, 0i32, 1i32, 2i32] }
-- input { 5i32 5i32 }
-- output { [5i32] }
entry inclusive (a: i32) (b: i32) : []i32 =
  a...b

-- ==
-- entry: upto
-- input { 0i64 5i64 }
-- output { [0i64, 1i64, 2i64, 3i64, 4i64] }
-- input { 3i64 3i64 }
-- output { empty([0]i64) }
-- input { -3i64 0i64 }
-- output { [-3i64, -2i64, -1i64] }
entry upto (a: i64) (b: i64) : []i64 =
  a..<b

-- ==
-- entry: downto
-- input { 5i64 0i64 }
-- output { [5i64, 4i64, 3i64, 2i64, 1i64] }
-- input { 3i64 3i64 }
-- output { empty([0]i64) }
-- input { 0i64 -3i64 }
-- output { [0i64, -1i64, -2i64] }
entry downto (a: i64) (b: i64) : []i64 =
  a..>b

-- With a second element, the stride is its distance from the first.
-- ==
-- entry: stepped
-- input { 1i32 3i32 9i32 }
-- output { [1i32, 3i32, 5i32, 7i32, 9i32] }
-- input { 1i32 3i32 8i32 }
-- output { [1i32, 3i32, 5i32, 7i32] }
-- input { -4i32 -1i32 5i32 }
-- output { [-4i32, -1i32, 2i32, 5i32] }
-- input { 2i32 4i32 4i32 }
-- output { [2i32, 4i32] }
entry stepped (a: i32) (second: i32) (b: i32) : []i32 =
  a..second...b

-- ==
-- entry: stepped_upto
-- input { 0i32 3i32 10i32 }
-- output { [0i32, 3i32, 6i32, 9i32] }
-- input { 0i32 3i32 9i32 }
-- output { [0i32, 3i32, 6i32] }
-- input { 4i32 5i32 5i32 }
-- output { [4i32] }
-- input { -6i32 -2i32 0i32 }
-- output { [-6i32, -2i32] }
entry stepped_upto (a: i32) (second: i32) (b: i32) : []i32 =
  a..second..<b

-- ==
-- entry: stepped_downto
-- input { 10i32 8i32 0i32 }
-- output { [10i32, 8i32, 6i32, 4i32, 2i32] }
-- input { 10i32 7i32 1i32 }
-- output { [10i32, 7i32, 4i32] }
-- input { 3i32 2i32 2i32 }
-- output { [3i32] }
-- input { 0i32 -5i32 -6i32 }
-- output { [0i32, -5i32] }
entry stepped_downto (a: i32) (second: i32) (b: i32) : []i32 =
  a..second..>b

-- ==
-- entry: slices
-- input { [0i32, 1i32, 2i32, 3i32, 4i32, 5i32, 6i32, 7i32, 8i32, 9i32] }
-- output { [1i32, 2i32, 3i32] [0i32, 2i32, 4i32, 6i32, 8i32] [9i32, 8i32, 7i32, 6i32, 5i32, 4i32, 3i32, 2i32, 1i32, 0i32] [4i32, 2i32] [0i32, 1i32, 2i32] [3i32, 4i32, 5i32, 6i32, 7i32, 8i32, 9i32] }
-- input { [5i32, 4i32, 3i32, 2i32, 1i32, 0i32] }
-- output { [4i32, 3i32, 2i32] [5i32, 3i32, 1i32] [0i32, 1i32, 2i32, 3i32, 4i32, 5i32] [1i32, 3i32] [5i32, 4i32, 3i32] [2i32, 1i32, 0i32] }
entry slices (xs: []i32) : ([]i32, []i32, []i32, []i32, []i32, []i32) =
  (xs[1:4], xs[::2], xs[::-1], xs[4:0:-2], xs[:3], xs[3:])

-- ==
-- entry: reversed
-- input { [1i32, 2i32, 3i32] }
-- output { [3i32, 2i32, 1i32] }
-- input { [7i32] }
-- output { [7i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- random input { [1000]i32 }
entry reversed (xs: []i32) : []i32 =
  xs[::-1]

-- ==
-- entry: slices_2d
-- input { [[0i32, 1i32, 2i32, 3i32], [4i32, 5i32, 6i32, 7i32], [8i32, 9i32, 10i32, 11i32]] }
-- output { [[4i32, 6i32], [8i32, 10i32]] [0i32, 4i32, 8i32] [4i32, 5i32, 6i32, 7i32] [[11i32, 10i32, 9i32, 8i32], [7i32, 6i32, 5i32, 4i32], [3i32, 2i32, 1i32, 0i32]] }
-- input { [[0i32, 10i32, 20i32], [30i32, 40i32, 50i32]] }
-- output { [[30i32, 50i32]] [0i32, 30i32] [30i32, 40i32, 50i32] [[50i32, 40i32, 30i32], [20i32, 10i32, 0i32]] }
entry slices_2d (m: [][]i32) : ([][]i32, []i32, []i32, [][]i32) =
  (m[1:, ::2], m[:, 0], m[1], m[::-1, ::-1])
