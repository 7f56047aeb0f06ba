-- Edge cases of ranges and strided slices: empty exclusive ranges, descending ranges, negative
-- strides with explicit bounds, and strides that skip past the end.
-- ==
-- input { [0i32, 1i32, 2i32, 3i32, 4i32, 5i32, 6i32] }
-- output { empty([0]i64) empty([0]i64) [3i64, 2i64, 1i64] [6i32, 4i32, 2i32, 0i32] [3i32, 2i32, 1i32, 0i32] [1i32, 4i32] [5i32, 2i32] empty([0]i32) }

def main (xs: []i32) : ([]i64, []i64, []i64, []i32, []i32, []i32, []i32, []i32) =
  (0..<0, 2..>2, 3..>0, xs[::-2], xs[3::-1], xs[1::3], xs[5:0:-3], xs[2:2])
