-- Row-wise reductions whose results each element of the row then uses (on the GPU: a segmented
-- reduction per row, then an elementwise kernel reading it), with short and long rows, a
-- non-commutative operator and a sequential loop per row; and histograms with few bins
-- (workgroup-private on the GPU) and many bins, of i32 and f32, with `+`, `max` and `min`, and
-- indices out of range (ignored).

def softmax [m] (xs: [m]f32) : [m]f32 =
  let mx = f32.maximum xs
  let es = map (\x -> f32.exp (x - mx)) xs
  let s = f32.sum es
  in map (/ s) es

def gen (n: i64) (m: i64) : [n][m]f32 =
  tabulate_2d n m (\i j -> f32.i64 ((i * 7 + j * 13) % 17) / 4)

-- ==
-- entry: softmax_rows
-- input { [[1f32, 2f32, 3f32], [0f32, 0f32, 0f32]] }
-- output { [[0.09003057f32, 0.24472846f32, 0.66524094f32], [0.33333334f32, 0.33333334f32, 0.33333334f32]] }
entry softmax_rows [n][m] (xss: [n][m]f32) : [n][m]f32 = map softmax xss

-- Long rows: each row's sum is 1; the last column and the largest element are checked.
-- ==
-- entry: softmax_long
-- input { 3i64 300i64 }
-- output { [1f32, 1f32, 1f32] [3.6489672e-3f32, 3.0071303e-4f32, 1.7042133e-3f32] [1.2736146e-2f32, 1.2786643e-2f32, 1.2592528e-2f32] }
entry softmax_long (n: i64) (m: i64) : ([n]f32, [n]f32, [n]f32) =
  let s = map softmax (gen n m)
  in (map f32.sum s, map (\r -> r[m - 1]) s, map f32.maximum s)

-- ==
-- entry: centre_rows
-- input { [[5i32, 2i32, 9i32], [-1i32, -4i32, 0i32]] }
-- output { [[3i32, 0i32, 7i32], [3i32, 0i32, 4i32]] }
entry centre_rows [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\r -> let mn = i32.minimum r in map (\x -> x - mn) r) xss

-- The last non-zero element of each row (an associative operator that does not commute), added
-- to every element, on rows long enough for a workgroup each.
-- ==
-- entry: last_nonzero
-- input { [[0i32, 3i32, 0i32, 2i32, 0i32], [0i32, 0i32, 0i32, 0i32, 0i32]] }
-- output { [[2i32, 5i32, 2i32, 4i32, 2i32], [0i32, 0i32, 0i32, 0i32, 0i32]] }
-- input { [[0i32, 3i32, 0i32, 2i32, 0i32, 1i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 7i32, 0i32, 0i32]] }
-- output { [[7i32, 10i32, 7i32, 9i32, 7i32, 8i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 7i32, 14i32, 7i32, 7i32]] }
entry last_nonzero [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\r -> let l = reduce (\a b -> if b != 0 then b else a) 0 r in map (+ l) r) xss

-- Two reductions and a sequential loop per row, all used by every element.
-- ==
-- entry: normalise_rows
-- input { [[1f32, 2f32, 3f32], [4f32, 4f32, 8f32]] }
-- output { [[-1.5f32, 0f32, 1.5f32], [-1.0000001f32, -1.0000001f32, 1.9999999f32]] }
entry normalise_rows [n][m] (xss: [n][m]f32) : [n][m]f32 =
  map (\r -> let lo = f32.minimum r
             let hi = f32.maximum r
             let mean = (loop acc = 0f32 for x in r do acc + x) / f32.i64 m
             in map (\x -> (x - mean) * 3 / (hi - lo)) r) xss

def idx (n: i64) (k: i64) : [n]i64 = map (\j -> (j * 7919) % (k + 3) - 1) (iota n)

-- Bins of a histogram of `n` values into `k` bins (indices -1 and k, k+1 are dropped),
-- checked by their total and a weighted total.
-- ==
-- entry: hist_i32
-- input { 1000i64 5i64 }
-- output { 625i32 1250i32 [125i32, 125i32, 125i32, 125i32, 125i32] }
-- input { 20000i64 5000i64 }
-- output { 19988i32 49962307i32 [4i32, 4i32, 4i32, 4i32, 4i32] }
entry hist_i32 (n: i64) (k: i64) : (i32, i32, [5]i32) =
  let h = hist (+) 0 k (idx n k) (replicate n 1i32)
  in (i32.sum h, i32.sum (map2 (\c b -> c * i32.i64 b) h (iota k)), h[0:5])

-- ==
-- entry: hist_f32
-- input { 1000i64 5i64 }
-- output { 156.25f32 312.5f32 [31.25f32, 31.25f32, 31.25f32, 31.25f32, 31.25f32] }
-- input { 20000i64 5000i64 }
-- output { 4997f32 1.2490577e7f32 [1f32, 1f32, 1f32, 1f32, 1f32] }
entry hist_f32 (n: i64) (k: i64) : (f32, f32, [5]f32) =
  let h = hist (+) 0 k (idx n k) (replicate n 0.25f32)
  in (f32.sum h, f32.sum (map2 (\c b -> c * f32.i64 b) h (iota k)), h[0:5])

-- `max` of i32 and `min` of f32 into bins that start from a destination array.
-- ==
-- entry: hist_minmax
-- input { 1000i64 5i64 }
-- output { [999i32, 998i32, 997i32, 996i32, 995i32] [-1.99985f32, -1.9997f32, -1.99995f32, -1.9998f32, -1.99965f32] }
-- input { 20000i64 5000i64 }
-- output { [19149i32, 18286i32, 17423i32, 16560i32, 15697i32] [-1.9586f32, -1.9172f32, -1.8758f32, -1.8343999f32, -0.94309f32] }
entry hist_minmax (n: i64) (k: i64) : ([5]i32, [5]f32) =
  let is = idx n k
  let hi = reduce_by_index (replicate k (-1i32)) i32.max i32.lowest is (map i32.i64 (iota n))
  let lo = reduce_by_index (replicate k 3f32) f32.min f32.inf is (map (\j -> f32.i64 (j % 5) - 2 + f32.i64 j / 100000) (iota n))
  in (hi[0:5], lo[0:5])

-- Scans per row whose elements are then used elementwise, or reduced (on the GPU: a segmented
-- scan, one invocation per row, then a kernel reading its rows).
-- ==
-- entry: scan_rows
-- input { [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]] }
-- output { [[1i32, 6i32, 18i32], [16i32, 45i32, 90i32]] [10i32, 28i32] }
-- input { empty([0][3]i32) }
-- output { empty([0][3]i32) empty([0]i32) }
entry scan_rows [n][m] (xss: [n][m]i32) : ([n][m]i32, [n]i32) =
  (map (\r -> let c = scan (+) 0 r in map2 (*) c r) xss,
   map (\r -> i32.sum (scan (+) 0 r)) xss)

-- A row reduction two map levels down, and a sum of vectors per row (each element of the sum
-- folds a column).
-- ==
-- entry: nested_rows
-- input { [[[1f32, 3f32], [2f32, 2f32]], [[0f32, 4f32], [5f32, 5f32]]] }
-- output { [[[0.25f32, 0.75f32], [0.5f32, 0.5f32]], [[0f32, 1f32], [0.5f32, 0.5f32]]] [[4f32, 8f32], [5f32, 13f32]] }
entry nested_rows [b][n][m] (xsss: [b][n][m]f32) : ([b][n][m]f32, [b][m]f32) =
  (map (\xss -> map (\r -> let s = f32.sum r in map (/ s) r) xss) xsss,
   map (\xss -> let t = reduce (map2 (+)) (replicate m 0) xss in map2 (+) t xss[0]) xsss)
