-- Segmented scans over flag arrays, and run-length encoding and decoding built on them.

-- An inclusive scan that restarts wherever the flag is set; polymorphic in the element type.
def segmented_scan [n] 't (op: t -> t -> t) (ne: t) (flags: [n]bool) (xs: [n]t) : [n]t =
  let pairs = scan (\(f1, x1) (f2, x2) -> (f1 || f2, if f2 then x2 else op x1 x2))
                   (false, ne)
                   (zip flags xs)
  let (_, ys) = unzip pairs
  in ys

-- ==
-- entry: segmented_sum
-- input { [true, false, false, true, false] [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [1i32, 3i32, 6i32, 4i32, 9i32] }
-- input { [false, false, true] [5i32, 5i32, 5i32] }
-- output { [5i32, 10i32, 5i32] }
-- input { [true] [7i32] }
-- output { [7i32] }
-- input { empty([0]bool) empty([0]i32) }
-- output { empty([0]i32) }
entry segmented_sum [n] (flags: [n]bool) (xs: [n]i32) : [n]i32 =
  segmented_scan (+) 0 flags xs

-- ==
-- entry: segmented_max
-- input { [true, false, false, true, false] [1.5f32, -2.0f32, 3.0f32, -4.0f32, -5.0f32] }
-- output { [1.5f32, 1.5f32, 3.0f32, -4.0f32, -4.0f32] }
-- input { [false, false] [-1.0f32, 2.0f32] }
-- output { [-1.0f32, 2.0f32] }
entry segmented_max [n] (flags: [n]bool) (xs: [n]f32) : [n]f32 =
  segmented_scan f32.max (-f32.inf) flags xs

-- A run starts at index 0 and wherever an element differs from its predecessor; `||` short-circuits,
-- so xs[i - 1] is never read when i == 0.
-- ==
-- entry: encode
-- input { [1i32, 1i32, 2i32, 2i32, 2i32, 3i32, 1i32, 1i32] }
-- output { [1i32, 2i32, 3i32, 1i32] [2i64, 3i64, 1i64, 2i64] }
-- input { [4i32] }
-- output { [4i32] [1i64] }
-- input { [5i32, 6i32, 7i32] }
-- output { [5i32, 6i32, 7i32] [1i64, 1i64, 1i64] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i64) }
-- input { [0i32, 0i32, 0i32, 0i32] }
-- output { [0i32] [4i64] }
-- random input { [1000]i32 }
entry encode [n] (xs: [n]i32) : ([]i32, []i64) =
  let starts = filter (\i -> i == 0 || xs[i] != xs[i - 1]) (iota n)
  let m = length starts
  let lens = map (\j -> (if j + 1 < m then starts[j + 1] else n) - starts[j]) (iota m)
  in (map (\i -> xs[i]) starts, lens)

-- Scatter each value to the start of its run (empty runs write to index -1, which scatter ignores),
-- then fill every run by a segmented scan that keeps the run's first element.
-- ==
-- entry: decode
-- input { [1i32, 2i32, 3i32] [2i64, 3i64, 1i64] }
-- output { [1i32, 1i32, 2i32, 2i32, 2i32, 3i32] }
-- input { [9i32, 8i32, 7i32] [0i64, 2i64, 0i64] }
-- output { [8i32, 8i32] }
-- input { [4i32] [3i64] }
-- output { [4i32, 4i32, 4i32] }
-- input { empty([0]i32) empty([0]i64) }
-- output { empty([0]i32) }
-- input { [5i32, 6i32] [0i64, 0i64] }
-- output { empty([0]i32) }
entry decode [m] (vs: [m]i32) (counts: [m]i64) : []i32 =
  let ends = scan (+) 0 counts
  let total = if m == 0 then 0 else ends[m - 1]
  let starts = map2 (\e c -> if c == 0 then -1 else e - c) ends counts
  let flags = scatter (replicate total false) starts (replicate m true)
  let firsts = scatter (replicate total 0) starts vs
  in segmented_scan const 0 flags firsts
