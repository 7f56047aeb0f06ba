-- `scratch n`: an array for the program to write before it reads (zeros here, so every backend
-- agrees; Futhark leaves the elements unspecified), of any element type whose sizes are known.
-- ==
-- entry: fill
-- input { [2i64, 0i64] [5f32, 7f32] 4i64 }
-- output { [7f32, 0f32, 5f32, 0f32] }
entry fill [k] (is: [k]i64) (vs: [k]f32) (n: i64) : [n]f32 = scatter (scratch n) is vs

-- ==
-- entry: rows
-- input { 2i64 3i64 }
-- output { [[0i32, 0i32, 0i32], [0i32, 0i32, 0i32]] [0i64, 0i64] [false, false] }
entry rows (n: i64) (m: i64) : ([n][m]i32, [n]i64, [n]bool) =
  let (a, b) = unzip (scratch n : [n](i64, bool))
  in (scratch n : [n][m]i32, a, b)

