-- Reductions and scans at sizes around their chunks and workgroups (a GPU folds contiguous
-- chunks of 8 elements per invocation, up to 1024 workgroups of 256), with an operator that does
-- not commute (affine maps `x -> a*x + b` composed in order, in wrapping i32 arithmetic, so every
-- backend must keep the order exactly) and with sums of f32s that are exact.

def compose (a1: i32, b1: i32) (a2: i32, b2: i32) : (i32, i32) =
  (a1 * a2, b1 * a2 + b2)

-- Odd factors, so products never become 0.
def affines (n: i64) : [n](i32, i32) =
  tabulate n (\i -> (i32.i64 (i % 4) * 2 + 1, i32.i64 (i % 11) - 5))

def small (n: i64) : [n]f32 =
  tabulate n (\i -> f32.i64 (i % 3))

-- ==
-- entry: affine_reduce
-- input { 0i64 }
-- output { 1i32 0i32 }
-- input { 1i64 }
-- output { 1i32 -5i32 }
-- input { 9i64 }
-- output { 11025i32 -72333i32 }
-- input { 2049i64 }
-- output { -1360359423i32 -941982546i32 }
-- input { 262147i64 }
-- output { 523763727i32 923152325i32 }
-- input { 3000017i64 }
-- output { -621219679i32 -2005951277i32 }
entry affine_reduce (n: i64) : (i32, i32) =
  reduce compose (1, 0) (affines n)

-- The scan's first, middle and last elements, and a checksum of all of it.
-- ==
-- entry: affine_scan
-- input { 1i64 }
-- output { 1i32 -5i32 1i32 -5i32 1i32 -5i32 0i32 }
-- input { 9i64 }
-- output { 1i32 -5i32 105i32 -689i32 11025i32 -72333i32 -1261994i32 }
-- input { 2049i64 }
-- output { 1i32 -5i32 1700087809i32 1762530305i32 -1360359423i32 -941982546i32 1565755417i32 }
-- input { 262147i64 }
-- output { 1i32 -5i32 -806617085i32 -1792905499i32 523763727i32 923152325i32 -2044634619i32 }
-- input { 3000017i64 }
-- output { 1i32 -5i32 -1445055535i32 -41584449i32 -621219679i32 -2005951277i32 1869599488i32 }
entry affine_scan (n: i64) : (i32, i32, i32, i32, i32, i32, i32) =
  let s = scan compose (1, 0) (affines n)
  let check = i32.sum (map2 (\(a, b) i -> (a ^ b) * (i32.i64 i % 1009)) s (iota n))
  in (s[0].0, s[0].1, s[n / 2].0, s[n / 2].1, s[n - 1].0, s[n - 1].1, check)

-- ==
-- entry: f32_sum_and_scan
-- input { 0i64 }
-- output { 0.0f32 0.0f32 0.0f32 }
-- input { 1i64 }
-- output { 0.0f32 0.0f32 0.0f32 }
-- input { 9i64 }
-- output { 9.0f32 4.0f32 9.0f32 }
-- input { 2049i64 }
-- output { 2049.0f32 1024.0f32 2049.0f32 }
-- input { 262147i64 }
-- output { 262146.0f32 131073.0f32 262146.0f32 }
-- input { 3000017i64 }
-- output { 3000016.0f32 1500009.0f32 3000016.0f32 }
entry f32_sum_and_scan (n: i64) : (f32, f32, f32) =
  let xs = small n
  let s = scan (+) 0 xs
  in (f32.sum xs, if n > 0 then s[n / 2] else 0, if n > 0 then s[n - 1] else 0)
