-- 1-D stencils: a three-point average with clamped boundaries, and a valid-mode convolution with a kernel.

def clamp_index (n: i64) (i: i64) : i64 =
  i64.max 0 (i64.min (n - 1) i)

-- ==
-- entry: smooth
-- input { [3.0f32, 6.0f32, 9.0f32, 12.0f32] }
-- output { [4.0f32, 6.0f32, 9.0f32, 11.0f32] }
-- input { [1.0f32, -1.0f32] }
-- output { [0.33333334f32, -0.33333334f32] }
-- input { [5.0f32] }
-- output { [5.0f32] }
-- input { empty([0]f32) }
-- output { empty([0]f32) }
-- random input { [1000]f32 }
entry smooth [n] (xs: [n]f32) : [n]f32 =
  tabulate n (\i -> (xs[clamp_index n (i - 1)] + xs[i] + xs[clamp_index n (i + 1)]) / 3)

-- One output per position where the whole kernel overlaps the input; the slice `xs[i:i+k]` has the
-- kernel's size `k`, computed from its bounds.
-- ==
-- entry: convolve
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32, 5.0f32] [1.0f32, 0.0f32, -1.0f32] }
-- output { [-2.0f32, -2.0f32, -2.0f32] }
-- input { [0.5f32, 1.5f32, -2.0f32] [2.0f32] }
-- output { [1.0f32, 3.0f32, -4.0f32] }
-- input { [1.0f32, 2.0f32] [1.0f32, 1.0f32, 1.0f32] }
-- output { empty([0]f32) }
-- input { [1.0f32, 2.0f32, 3.0f32] [0.25f32, 0.75f32] }
-- output { [1.75f32, 2.75f32] }
-- input { empty([0]f32) [1.0f32] }
-- output { empty([0]f32) }
-- random input { [1000]f32 [7]f32 }
entry convolve [n][k] (xs: [n]f32) (ker: [k]f32) : []f32 =
  tabulate (i64.max 0 (n - k + 1)) (\i -> f32.sum (map2 (*) ker xs[i:i + k]))
