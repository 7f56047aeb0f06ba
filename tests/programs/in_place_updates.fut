-- Element updates that may write into their destination: every other value that shares its
-- memory, or that is computed from it later, keeps its own values.

-- A copy of an argument, updated: the argument is unchanged.
-- ==
-- entry: copied
-- input { [1f32, 2f32, 3f32] }
-- output { [1f32, 2f32, 3f32] [5f32, 2f32, 3f32] }
entry copied (xs: []f32) =
  let ys = copy xs
  in (xs, ys with [0] = 5)

-- A loop updating a copy of its argument, one element per iteration.
-- ==
-- entry: looped
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [1i32, 2i32, 3i32, 4i32] [0i32, 2i32, 6i32, 12i32] }
entry looped [n] (xs: [n]i32) =
  let ys = loop ys = copy xs for i < n do ys with [i] = ys[i] * i32.i64 i
  in (xs, ys)

-- A map whose result is summed after the update reads the values from before it.
-- ==
-- entry: summed_before
-- input { 4i64 }
-- output { 12f32 [100f32, 1f32, 2f32, 3f32] }
entry summed_before (n: i64) =
  let a = map f32.i64 (iota n)
  let ys = map (* 2) a
  let b = a with [0] = 100
  in (f32.sum ys, b)

-- Updates of a fresh array in a loop, then of the loop's result.
-- ==
-- entry: filled
-- input { 5i64 }
-- output { [0i64, 1i64, 4i64, 9i64, -1i64] }
entry filled (n: i64) =
  let zs = loop zs = replicate n 0 for i < n do zs with [i] = i * i
  in zs with [n - 1] = -1
