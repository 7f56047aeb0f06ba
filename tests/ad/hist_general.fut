-- Reverse mode of hist with operators other than +, *, min and max: the elements are sorted by
-- bin and each gets the folds of its bin's elements before and after it (seed-001 §4.6).

-- x ⊙ y = x + y + xy = (1 + x)(1 + y) - 1, so a bin is (1 + d)·Π(1 + a) - 1 and
-- ∂/∂a_i = (1 + d)·Π_{j≠i}(1 + a_j), ∂/∂d = Π(1 + a). Indices 5 and -1 are out of range.
def op (x: f64) (y: f64) = x + y + x * y

def h (is: []i64) (as: []f64, d: []f64) = reduce_by_index (copy d) op 0 is as

-- ==
-- entry: shifted_product
-- input { [0i64, 2i64, 0i64, 5i64, 1i64, 0i64, -1i64] [0.5, 2.0, -0.5, 3.0, 1.5, 2.0, 4.0] [0.1, 0.2, 0.3] }
-- output { [1.475, 2.0, 2.9] [1.65, 3.9, 4.95, 0.0, 2.4, 0.825, 0.0] [2.25, 5.0, 9.0] }
-- input { empty([0]i64) empty([0]f64) [0.1, 0.2] }
-- output { [0.1, 0.2] empty([0]f64) [1.0, 2.0] }
entry shifted_product (is: []i64) (as: []f64) (d: []f64) =
  let (da, dd) = vjp (h is) (as, d) (map (\i -> f64.i64 (i + 1)) (indices d))
  in (h is (as, d), da, dd)

-- Complex multiplication on (re, im) pairs: bin 0 = (1 + i)·2 = 2 + 2i, bin 1 = i·i = -1.
-- Adjoint (1, 0) on bin 0: ∂re/∂(re, im) of a factor is the other factor's (re, -im), so
-- (2, 0) for 1 + i and (1, -1) for 2. Adjoint (0, 1) on bin 1: ∂im/∂(re, im) of a factor is
-- the other's (im, re) = (1, 0).
def cmul (a: f64, b: f64) (c: f64, d: f64) = (a * c - b * d, a * d + b * c)

-- ==
-- entry: complex
-- input { [0i64, 1i64, 0i64, 1i64] [1.0, 0.0, 2.0, 0.0] [1.0, 1.0, 0.0, 1.0] }
-- output { [2.0, -1.0] [2.0, 0.0] [2.0, 1.0, 1.0, 1.0] [0.0, 0.0, -1.0, 0.0] }
entry complex (is: []i64) (re: []f64) (im: []f64) =
  let f (re, im) = unzip (hist cmul (1, 0) 2 is (zip re im))
  let (hr, hi) = f (re, im)
  let (dre, dim) = vjp f (re, im) ([1, 0], [0, 1])
  in (hr, hi, dre, dim)

-- Bins of rows, combined elementwise: the same operator per column. Row 0 shares bin 1 with
-- row 2, so its adjoint is the seed times 1 + row 2: [1·1.5, 2·0.5].
-- ==
-- entry: rows
-- input { [1i64, 0i64, 1i64] [[1.0, 2.0], [3.0, 4.0], [0.5, -0.5]] }
-- output { [[1.5, 1.0], [1.0, 1.0], [2.0, 6.0]] }
entry rows [n] (is: [n]i64) (xss: [n][2]f64) =
  vjp (\xss -> hist (map2 op) (replicate 2 0) 2 is xss) xss [[1, 1], [1, 2]]

-- The same in f32, which WebGPU runs.
-- ==
-- entry: single
-- input { [0i64, 2i64, 0i64, 5i64, 1i64, 0i64, -1i64] [0.5f32, 2.0f32, -0.5f32, 3.0f32, 1.5f32, 2.0f32, 4.0f32] }
-- output { [1.5f32, 3.0f32, 4.5f32, 0.0f32, 2.0f32, 0.75f32, 0.0f32] }
entry single (is: []i64) (as: []f32) =
  let op (x: f32) (y: f32) = x + y + x * y
  in vjp (\as -> hist op 0 3 is as) as [1, 2, 3]

-- No bins at all: every element is out of range.
-- ==
-- entry: no_bins
-- input { [0i64, 1i64] [1f32, 2f32] }
-- output { [0f32, 0f32] }
entry no_bins (is: []i64) (as: []f32) =
  let op (x: f32) (y: f32) = x + y + x * y
  in vjp (\as -> hist op 0 0 is as) as []
