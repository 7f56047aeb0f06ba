-- In-place updates and uniqueness types: consuming parameters (*), `let a[i] = v`, `a with [i] = v`, row updates.

-- The * says the function may consume (update in place) its argument; the caller must not use it afterwards.
def swap [n] (xs: *[n]i32) (i: i64) (j: i64) : *[n]i32 =
  let xi = xs[i]
  let xs[i] = xs[j]
  let xs[j] = xi
  in xs

-- ==
-- entry: reverse_in_place
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [5i32, 4i32, 3i32, 2i32, 1i32] }
-- input { [1i32, 2i32] }
-- output { [2i32, 1i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- input { [9i32] }
-- output { [9i32] }
-- random input { [1000]i32 }
entry reverse_in_place [n] (xs: *[n]i32) : [n]i32 =
  loop xs for i < n / 2 do swap xs i (n - 1 - i)

-- A parameter that is not unique is copied before being updated.
-- ==
-- entry: increment_at
-- input { [0i32, 0i32, 0i32] [0i64, 2i64, 2i64] }
-- output { [1i32, 0i32, 2i32] }
-- input { [5i32] empty([0]i64) }
-- output { [5i32] }
-- input { [1i32, 2i32] [1i64, 1i64, 1i64] }
-- output { [1i32, 5i32] }
entry increment_at [n][k] (xs: [n]i32) (is: [k]i64) : [n]i32 =
  loop ys = copy xs for i in is do ys with [i] = ys[i] + 1

-- ==
-- entry: set_row
-- input { [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]] 1i64 [0i32, 0i32] }
-- output { [[1i32, 2i32], [0i32, 0i32], [5i32, 6i32]] }
-- input { [[7i32, 8i32, 9i32]] 0i64 [1i32, 2i32, 3i32] }
-- output { [[1i32, 2i32, 3i32]] }
entry set_row [n][m] (mat: *[n][m]i32) (i: i64) (row: [m]i32) : [n][m]i32 =
  mat with [i] = row

-- ==
-- entry: running_max
-- input { [3i32, 1i32, 4i32, 1i32, 5i32, 9i32, 2i32, 6i32] }
-- output { [3i32, 3i32, 4i32, 4i32, 5i32, 9i32, 9i32, 9i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- input { [-1i32, -2i32] }
-- output { [-1i32, -1i32] }
entry running_max [n] (xs: *[n]i32) : [n]i32 =
  loop xs for i < n do
    if i == 0
    then xs
    else let xs[i] = i32.max xs[i] xs[i - 1]
         in xs
