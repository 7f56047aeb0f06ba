-- Reverse mode of scans whose elements mix floats with flags or counts, and of scans whose
-- elements are rows combined elementwise (scanned column by column).

-- A segmented sum: ys = [1, 3, 3, 7]; x0 reaches y0 and y1, x2 reaches y2 and y3.
def segadd (f1: bool, x1: f64) (f2: bool, x2: f64) = (f1 || f2, if f2 then x2 else x1 + x2)

-- ==
-- entry: segsum
-- input { [true, false, true, false] [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, 1.0, 2.0, 1.0] }
-- input { empty([0]bool) empty([0]f64) }
-- output { empty([0]f64) }
entry segsum [n] (fs: [n]bool) (xs: [n]f64) =
  vjp (\xs -> (unzip (scan segadd (false, 0) (zip fs xs))).1) xs (replicate n 1)

-- A segmented product: ys = [2, 6, 24], so d/dx = [1 + 3 + 12, 2 + 8, 6].
def segmul (f1: bool, x1: f32) (f2: bool, x2: f32) = (f1 || f2, if f2 then x2 else x1 * x2)

-- ==
-- entry: segprod
-- input { [true, false, false, true] [2f32, 3f32, 4f32, 5f32] }
-- output { [16f32, 10f32, 6f32, 1f32] }
entry segprod [n] (fs: [n]bool) (xs: [n]f32) =
  vjp (\xs -> (unzip (scan segmul (false, 1) (zip fs xs))).1) xs (replicate n 1)

-- A running maximum with a count: ms = [1, 3, 3], cs = [1, 2, 3], f = Σ ms·cs; x1 is the
-- maximum of the last two prefixes (2 + 3).
def maxcount (m1: f64, c1: i64) (m2: f64, c2: i64) = (f64.max m1 m2, c1 + c2)

-- ==
-- entry: runmax
-- input { [1.0, 3.0, 2.0] }
-- output { [1.0, 5.0, 0.0] }
entry runmax (xs: []f64) =
  let f xs =
    let (ms, cs) = unzip (scan maxcount (-f64.inf, 0) (map (\x -> (x, 1)) xs))
    in f64.sum (map2 (\m c -> m * f64.i64 c) ms cs)
  in vjp f xs 1

-- Rows: each column is scanned with x ⊙ y = xy + x + y; y0 + y1 = x0 + (x0·x1 + x0 + x1), so
-- d/dx0 = 2 + x1 and d/dx1 = 1 + x0.
-- ==
-- entry: rows
-- input { [[1f32, 2f32], [3f32, 4f32]] }
-- output { [[5f32, 6f32], [2f32, 3f32]] }
entry rows [n][d] (xss: [n][d]f32) =
  let op (x: f32) (y: f32) = x * y + x + y
  in vjp (\xss -> scan (map2 op) (replicate d 0) xss) xss (replicate n (replicate d 1))
