-- Updates of whole rows and blocks at fixed indices (reverse mode's adjoints of `w[g]`, set
-- gate by gate): the GPU copies the row into place, into the array itself where nothing reads
-- it afterwards, and fails on an index out of bounds as the interpreter does.

-- A loop setting every row of a fresh array in place, then one more row of a copy, while the
-- original is still read.
-- ==
-- entry: rows
-- input { 3i64 }
-- output { [[0i32, 0i32], [1i32, 2i32], [7i32, 7i32]] [[0i32, 0i32], [1i32, 2i32], [2i32, 4i32]] }
entry rows (n: i64) : ([n][2]i32, [n][2]i32) =
  let a = loop a = replicate n (replicate 2 0i32) for i < n do
            a with [i] = [i32.i64 i, 2 * i32.i64 i]
  in (copy a with [n - 1] = [7, 7], a)

-- A block of a three-dimensional array, and a row of it.
-- ==
-- entry: blocks
-- input { [[1f32, 2f32], [3f32, 4f32]] [5f32, 6f32] }
-- output { [[[0f32, 0f32], [0f32, 0f32]], [[1f32, 2f32], [5f32, 6f32]]] }
entry blocks (b: [2][2]f32) (r: [2]f32) : [2][2][2]f32 =
  let z = replicate 2 (replicate 2 (replicate 2 0f32))
  let z = z with [1] = b
  in z with [1, 1] = r

-- ==
-- entry: outside
-- input { 2i64 }
-- error: out of bounds
-- input { -1i64 }
-- error: out of bounds
entry outside (i: i64) : [2][3]i32 = replicate 2 (replicate 3 0i32) with [i] = [1, 2, 3]
