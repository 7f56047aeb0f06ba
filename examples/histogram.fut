-- Histograms with reduce_by_index and hist; indices outside the histogram are ignored.

-- ==
-- entry: counts
-- input { 4i64 [0i64, 1i64, 1i64, 3i64, 1i64, 0i64] }
-- output { [2i32, 3i32, 0i32, 1i32] }
-- input { 3i64 [2i64, 2i64, 2i64] }
-- output { [0i32, 0i32, 3i32] }
-- input { 3i64 [-1i64, 0i64, 3i64, 7i64, 2i64] }
-- output { [1i32, 0i32, 1i32] }
-- input { 2i64 empty([0]i64) }
-- output { [0i32, 0i32] }
-- input { 0i64 [1i64, 2i64] }
-- output { empty([0]i32) }
entry counts [n] (k: i64) (is: [n]i64) : [k]i32 =
  reduce_by_index (replicate k 0) (+) 0 is (replicate n 1)

-- ==
-- entry: weighted
-- input { 3i64 [0i64, 2i64, 0i64, 1i64] [0.5f32, 1.25f32, 2.0f32, -1.0f32] }
-- output { [2.5f32, -1.0f32, 1.25f32] }
-- input { 2i64 [1i64, 1i64, 5i64] [1.0f32, 2.0f32, 100.0f32] }
-- output { [0.0f32, 3.0f32] }
-- input { 1i64 empty([0]i64) empty([0]f32) }
-- output { [0.0f32] }
entry weighted [n] (k: i64) (is: [n]i64) (ws: [n]f32) : [k]f32 =
  hist (+) 0 k is ws

-- The bin of a value in [0,1); values outside are clamped into the first or last bin.
def bin (k: i64) (x: f32) : i64 =
  i64.max 0 (i64.min (k - 1) (i64.f32 (f32.floor (x * f32.i64 k))))

-- ==
-- entry: binned
-- input { 4i64 [0.0f32, 0.1f32, 0.3f32, 0.5f32, 0.99f32, 1.0f32, -0.5f32, 0.25f32] }
-- output { [3i32, 2i32, 1i32, 2i32] }
-- input { 2i64 [0.75f32, 0.75f32] }
-- output { [0i32, 2i32] }
-- input { 3i64 empty([0]f32) }
-- output { [0i32, 0i32, 0i32] }
-- random input { 10i64 [1000]f32 }
entry binned [n] (k: i64) (xs: [n]f32) : [k]i32 =
  hist (+) 0 k (map (bin k) xs) (map (const 1) xs)
