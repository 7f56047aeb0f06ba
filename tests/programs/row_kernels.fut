-- Maps whose function works on whole rows: maps and reductions over the row and scalar
-- statements (on the GPU: one kernel, a workgroup or an invocation per row, or the distributed
-- kernels when the row is wider than the workgroup memory the kernel keeps rows in). Short
-- rows, long rows and rows too wide for workgroup memory; commutative and non-commutative
-- operators; array and scalar results; an index out of bounds inside the row's map.

def softmax [m] (xs: [m]f32) : [m]f32 =
  let mx = f32.maximum xs
  let es = map (\x -> f32.exp (x - mx)) xs
  let s = f32.sum es
  in map (/ s) es

def logsumexp [m] (xs: [m]f32) : f32 =
  let mx = f32.maximum xs
  in mx + f32.log (f32.sum (map (\x -> f32.exp (x - mx)) xs))

def standardise [m] (xs: [m]f32) : [m]f32 =
  let mean = f32.sum xs / f32.i64 m
  let ds = map (\x -> x - mean) xs
  let sd = f32.sqrt (f32.sum (map (\d -> d * d) ds) / f32.i64 m)
  in map (/ sd) ds

def gen (n: i64) (m: i64) : [n][m]f32 =
  tabulate_2d n m (\i j -> f32.i64 ((i * 7 + j * 13) % 17) / 4)

-- ==
-- entry: softmax_rows
-- input { [[1f32, 2f32, 3f32], [0f32, 0f32, 0f32]] }
-- output { [[0.09003057f32, 0.24472846f32, 0.66524094f32], [0.33333334f32, 0.33333334f32, 0.33333334f32]] }
entry softmax_rows [n][m] (xss: [n][m]f32) : [n][m]f32 = map softmax xss

-- Each row's sum, its last element and its largest, for rows of 300 (a workgroup each) and
-- 5000 elements (wider than a row kernel keeps in workgroup memory).
-- ==
-- entry: softmax_long
-- input { 3i64 300i64 }
-- output { [1.0000002f32, 1.0000002f32, 1.0000005f32] [3.6489672e-3f32, 3.0071303e-4f32, 1.7042133e-3f32] [1.2736146e-2f32, 1.2786643e-2f32, 1.2592528e-2f32] }
-- input { 2i64 5000i64 }
-- output { [0.99997807f32, 0.9999973f32] [3.604038e-4f32, 2.9591572e-5f32] [7.6297484e-4f32, 7.631767e-4f32] }
entry softmax_long (n: i64) (m: i64) : ([n]f32, [n]f32, [n]f32) =
  let s = map softmax (gen n m)
  in (map f32.sum s, map (\r -> r[m - 1]) s, map f32.maximum s)

-- ==
-- entry: logsumexp_rows
-- input { [[1f32, 2f32, 3f32], [0f32, 0f32, 0f32], [-1f32, 5f32, 2f32]] }
-- output { [3.407606f32, 1.0986123f32, 5.0509458f32] }
entry logsumexp_rows [n][m] (xss: [n][m]f32) : [n]f32 = map logsumexp xss

-- ==
-- entry: logsumexp_gen
-- input { 2i64 700i64 }
-- output { [9.211525f32, 9.214138f32] }
entry logsumexp_gen (n: i64) (m: i64) : [n]f32 = map logsumexp (gen n m)

-- ==
-- entry: standardise_rows
-- input { [[1f32, 2f32, 3f32], [4f32, 4f32, 8f32]] }
-- output { [[-1.2247448f32, 0f32, 1.2247448f32], [-0.7071069f32, -0.7071069f32, 1.4142135f32]] }
entry standardise_rows [n][m] (xss: [n][m]f32) : [n][m]f32 = map standardise xss

-- The sum of squares and the largest element of each standardised row (mean 0, sd 1).
-- ==
-- entry: standardise_long
-- input { 4i64 1000i64 }
-- output { [999.9992f32, 1000.0024f32, 1000.00226f32, 999.99976f32] [1.631634f32, 1.63456f32, 1.6307167f32, 1.6357201f32] }
entry standardise_long (n: i64) (m: i64) : ([n]f32, [n]f32) =
  let s = map standardise (gen n m)
  in (map (\r -> f32.sum (map (\x -> x * x) r)) s, map f32.maximum s)

-- A map over the row followed by a reduction of it: both are results.
-- ==
-- entry: squares_and_sum
-- input { [[1i32, 2i32, 3i32], [-1i32, 0i32, 4i32]] }
-- output { [[2i32, 5i32, 10i32], [2i32, 1i32, 17i32]] [17i32, 20i32] }
entry squares_and_sum [n][m] (xss: [n][m]i32) : ([n][m]i32, [n]i32) =
  unzip (map (\r -> let ys = map (\x -> x * x + 1) r in (ys, i32.sum ys)) xss)

-- Two reductions, one of them not commutative (the last non-zero element), a boolean result
-- and a count, on rows of 5 and 70 elements.
-- ==
-- entry: marks
-- input { [[0i32, 3i32, 0i32, 2i32, 0i32], [0i32, 0i32, 0i32, 0i32, 0i32]] }
-- output { [[false, true, false, true, false], [true, true, true, true, true]] [2i64, 0i64] }
entry marks [n][m] (xss: [n][m]i32) : ([n][m]bool, [n]i64) =
  unzip (map (\r -> let l = reduce (\a b -> if b != 0 then b else a) 0 r
                    let c = i64.sum (map (\x -> if x != 0 then 1 else 0) r)
                    in (map (\x -> x >= l) r, c)) xss)

-- ==
-- entry: marks_long
-- input { 70i64 }
-- output { [false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true, false, false] 3i64 }
entry marks_long (m: i64) : ([m]bool, i64) =
  let (bs, cs) = marks [map (\j -> if j == 1 then 3 else if j == 3 then 2 else if j == 67 then 7 else 0i32) (iota m)]
  in (bs[0], cs[0])

-- Run-time error: an index out of bounds in the map over the row, after its reduction.
-- ==
-- entry: shifted
-- input { [[1f32, 2f32], [3f32, 4f32]] 0i64 }
-- output { [[0.33333334f32, 0.6666667f32], [0.42857143f32, 0.5714286f32]] }
-- input { [[1f32, 2f32], [3f32, 4f32]] 1i64 }
-- error: index \[2\] out of bounds for array of shape \[2\]
entry shifted [n][m] (xss: [n][m]f32) (k: i64) : [n][m]f32 =
  map (\r -> let s = f32.sum r
             let mx = f32.maximum r
             in map (\j -> r[j + k] / s + 0 * mx) (iota m)) xss

-- Many rows (on a software device: one invocation per row), each of 100 elements: the sum of
-- all the probabilities, the largest, and the row standardisations' sums of squares.
-- ==
-- entry: many_rows
-- input { 1100i64 100i64 }
-- output { 1099.9999f32 3.9416507e-2f32 110000f32 }
entry many_rows (n: i64) (m: i64) : (f32, f32, f32) =
  let s = map softmax (gen n m)
  let z = map standardise (gen n m)
  in (f32.sum (map f32.sum s), f32.maximum (map f32.maximum s), f32.sum (map (\r -> f32.sum (map (\x -> x * x) r)) z))
