-- Small replicates of scalars that the host updates and reads one element at a time (reverse
-- mode's saves of a loop) are made on the host and keep their words there: each read, each
-- kernel that reads them and each result must see every write, and an update that is not in
-- place (or of a copy) must leave the original as it was. Arrays of more than 4096 words are made on the device.

-- Saves of a loop, read back in reverse, and read by a map after the writes.
-- ==
-- entry: saves
-- input { 0i64 } output { 0f32 0f32 }
-- input { 5i64 } output { 20f32 40f32 }
-- input { 5000i64 } output { 24995000f32 49990000f32 }
entry saves (n: i64) : (f32, f32) =
  let (_, xs) =
    loop (x, xs) = (0f32, replicate n 0f32) for i < n do
      (x + 2, xs with [i] = x)
  let back = loop s = 0f32 for j < n do s + xs[n - 1 - j]
  in (back, f32.sum (map (* 2) xs))

-- Updates of copies of an array the host holds: the original keeps its values.
-- ==
-- entry: kept
-- input { 3i64 } output { 1i32 9i32 [1i32, 1i32, 1i32] [9i32, 1i32, 1i32] [1i32, 4i32, 1i32] }
entry kept (n: i64) =
  let a = replicate n 1i32
  let b = copy a with [0] = 9
  let c = copy a with [1] = 4
  in (a[0], b[0], a, b, c)

-- Values of two words in wide programs, and booleans.
-- ==
-- entry: wide
-- input { 4i64 } output { -3000000000i64 [-3000000000i64, 5000000000i64, -3000000000i64, -3000000000i64] [false, true, false, false] }
entry wide (n: i64) =
  let a = replicate n (-3000000000i64)
  let a = a with [1] = 5000000000
  let b = replicate n false
  let b = b with [1] = true
  in (a[0], a, b)
