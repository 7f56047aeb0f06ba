-- `reduce`, `scan` and histograms whose `ne` is not their operator's neutral element. Futhark
-- leaves such results open; Ogham gives the interpreter's on every backend: `ne` folded in once,
-- left to right (a parallel backend would otherwise count it once per thread or workgroup).
-- Sizes that span many workgroups.

-- ==
-- entry: sums
-- input { 0i64 } output { 7i64 7i64 3i32 }
-- input { 1i64 } output { 7i64 14i64 3i32 }
-- input { 5i64 } output { 17i64 27i64 3i32 }
-- input { 100000i64 } output { 4999950007i64 6249975014i64 3i32 }
entry sums (n: i64) : (i64, i64, i32) =
  let xs = iota n
  let s = scan (+) 7 xs
  let x = reduce (^) 3 (map (\i -> i32.i64 (i % 2)) xs)
  in (reduce (+) 7 xs, if n > 0 then s[n - 1] + s[n / 2] else 7, x)

-- Products of ones and twos in wrapping i32 arithmetic, a scan's last element, and f32 sums
-- that are exact.
-- ==
-- entry: products
-- input { 0i64 } output { 2i32 0i32 0.5f32 }
-- input { 5i64 } output { 8i32 8i32 2.5f32 }
-- input { 100000i64 } output { 0i32 0i32 50000.5f32 }
entry products (n: i64) : (i32, i32, f32) =
  let xs = map (\i -> 1 + i32.i64 (i % 2)) (iota n)
  let s = scan (*) 1 xs
  in (reduce (*) 2 xs, if n > 0 then s[n - 1] * 2 else 0, reduce (+) 0.5 (map (\i -> f32.i64 (i % 2)) (iota n)))

-- Per row, element by element, and in histograms.
-- ==
-- entry: rows
-- input { 3i64 } output { [3i64, 6i64, 9i64] [12i64, 11i64] [[1i64, 3i64], [2i64, 5i64], [3i64, 7i64]] [8i64, 8i64, 8i64, 7i64] }
-- input { 4000i64 } output { [3i64, 7998003i64, 15996003i64] [4009i64, 7998008i64] [[1i64, 3i64], [2i64, 5i64], [3i64, 7i64]] [1007i64, 1007i64, 1007i64, 1007i64] }
entry rows (n: i64) : ([3]i64, [2]i64, [3][2]i64, [4]i64) =
  let xss = map (\i -> map (\j -> i * j) (iota 3)) (iota n)
  let per_row = map (\r -> reduce (+) 3 r) (transpose xss)
  let pairs = reduce (map2 (+)) [9, 8] (map (\i -> [1, i]) (iota n))
  let scanned = scan (map2 (+)) [0, 1] (replicate 3 [1, 2])
  let counts = hist (+) 7 4 (map (% 4) (iota n)) (replicate n 1)
  in (per_row, pairs, scanned, counts)

-- Tuples whose components each combine their own pair (sums, a product, a minimum, which is
-- left alone), directly and through a function.
def add_pairs ((a, b): (i64, f32)) ((c, d): (i64, f32)) : (i64, f32) = (a + c, b + d)

-- ==
-- entry: tuples
-- input { 0i64 } output { 5i64 0.5f32 2i32 3i64 5i64 0.5f32 }
-- input { 4i64 } output { 11i64 2.5f32 8i32 0i64 10i64 1.5f32 }
-- input { 100000i64 } output { 4999950005i64 50000.5f32 0i32 0i64 100006i64 25000.5f32 }
entry tuples (n: i64) : (i64, f32, i32, i64, i64, f32) =
  let xs = iota n
  let (s, h, p, m) =
    reduce (\(a, b, c, d) (x, y, z, w) -> (a + x, b + y, c * z, i64.min d w)) (5, 0.5, 2, 3)
           (map (\i -> (i, f32.i64 (i % 2), 1 + i32.i64 (i % 2), i)) xs)
  let (t, u) = unzip (scan add_pairs (7, 0.5) (map (\i -> (i % 3, f32.i64 (i % 2))) xs))
  let (t_last, u_last) = if n > 0 then (t[n - 1], u[n / 2]) else (5, 0.5)
  in (s, h, p, m, t_last, u_last)

-- Histograms with idempotent operators and an element that is not neutral: the interpreter's
-- bins start from the destination, a GPU's private bins from a true neutral element.
-- ==
-- entry: idempotent_hists
-- input { 0i64 } output { [100f32, 100f32, 100f32, 100f32] [-5i32, -5i32, -5i32, -5i32] [255u8, 255u8, 255u8, 255u8] [false, false, false, false] }
-- input { 6i64 } output { [0f32, 1f32, 2f32, 3f32] [4i32, 5i32, 2i32, 3i32] [0u8, 1u8, 2u8, 3u8] [false, true, false, false] }
-- input { 100000i64 } output { [0f32, 1f32, 2f32, 3f32] [99996i32, 99997i32, 99998i32, 99999i32] [0u8, 1u8, 2u8, 3u8] [false, true, false, false] }
entry idempotent_hists (n: i64) : ([4]f32, [4]i32, [4]u8, [4]bool) =
  let is = map (% 4) (iota n)
  let mins = reduce_by_index (replicate 4 100f32) f32.min f32.lowest is (map f32.i64 (iota n))
  let maxs = reduce_by_index (replicate 4 (-5i32)) i32.max i32.highest is (map i32.i64 (iota n))
  let ands = reduce_by_index (replicate 4 255u8) (&) 0u8 is (map (\i -> u8.i64 (i % 256)) (iota n))
  let ors = reduce_by_index (replicate 4 false) (||) true is (map (\i -> i == 5) (iota n))
  in (mins, maxs, ands, ors)
