-- Replicates of scalars and arrays of every size: zero bits are filled in one go, other values
-- by doubling copies of the first; both must give every element.
-- ==
-- entry: scalars
-- input { 0i64 } output { 0i64 0i64 0i64 0i64 }
-- input { 1i64 } output { 7i64 -3i64 1i64 0i64 }
-- input { 3i64 } output { 21i64 -9i64 3i64 0i64 }
-- input { 1000i64 } output { 7000i64 -3000i64 1000i64 0i64 }
entry scalars (n: i64) : (i64, i64, i64, i64) =
  let a = replicate n 7i8
  let b = replicate n (-1.5f32)
  let c = replicate n true
  let z = replicate n 0f64
  in (i64.sum (map i64.i8 a), i64.f32 (f32.sum b * 2), i64.sum (map (\x -> if x then 1 else 0) c),
      i64.f64 (f64.sum z))

-- ==
-- entry: rows
-- input { 0i64 2i64 } output { empty([0][2]i32) }
-- input { 3i64 2i64 } output { [[0i32, 1i32], [0i32, 1i32], [0i32, 1i32]] }
-- input { 5i64 3i64 } output { [[0i32, 1i32, 2i32], [0i32, 1i32, 2i32], [0i32, 1i32, 2i32], [0i32, 1i32, 2i32], [0i32, 1i32, 2i32]] }
entry rows (n: i64) (m: i64) : [n][m]i32 = replicate n (map i32.i64 (iota m))

-- ==
-- entry: zero_rows
-- input { 2i64 3i64 } output { [[0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32]] }
entry zero_rows (n: i64) (m: i64) : [n][m]f32 = replicate n (replicate m 0f32)
