-- Assertions: `assert cond e` is e when cond holds and a run-time error otherwise.

def safe_div (a: i32) (b: i32) : i32 =
  assert (b != 0) (a / b)

def mean [n] (xs: [n]f64) : f64 =
  assert (n > 0) (f64.sum xs / f64.i64 n)

-- ==
-- entry: main
-- input { 7i32 2i32 }
-- output { 3i32 }
-- input { -9i32 3i32 }
-- output { -3i32 }
-- input { 1i32 0i32 }
-- error: [Aa]ssertion
entry main (a: i32) (b: i32) : i32 =
  safe_div a b

-- ==
-- entry: average
-- input { [1.0f64, 2.0f64, 3.0f64, 4.0f64] }
-- output { 2.5f64 }
-- input { [2.5f64] }
-- output { 2.5f64 }
-- input { empty([0]f64) }
-- error: [Aa]ssertion
entry average (xs: []f64) : f64 =
  mean xs

-- ==
-- entry: checked_index
-- input { [4i32, 5i32, 6i32] 0i64 }
-- output { 4i32 }
-- input { [4i32, 5i32, 6i32] 2i64 }
-- output { 6i32 }
-- input { [4i32, 5i32, 6i32] 3i64 }
-- error: [Aa]ssertion|out of bounds
entry checked_index (xs: []i32) (i: i64) : i32 =
  assert (i >= 0 && i < length xs) xs[i]
