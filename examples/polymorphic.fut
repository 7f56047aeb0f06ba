-- A small polymorphic library: functions with type parameters, each used at more than one type.

def swap 'a 'b ((x, y): (a, b)) : (b, a) = (y, x)

def twice 'a (f: a -> a) (x: a) : a = f (f x)

def count [n] 'a (p: a -> bool) (xs: [n]a) : i64 =
  i64.sum (map (\x -> if p x then 1 else 0) xs)

-- The index of the first greatest element under the given ordering (0 for an empty array).
def argmax [n] 'a (gt: a -> a -> bool) (xs: [n]a) : i64 =
  loop best = 0 for i < n do
    if gt xs[i] xs[best] then i else best

-- Applies f to each pair of neighbours.
def pairwise [n] 'a 'b (f: a -> a -> b) (xs: [n]a) : []b =
  tabulate (i64.max 0 (n - 1)) (\i -> f xs[i] xs[i + 1])

-- ==
-- entry: swaps
-- input { 3i32 1.5f32 }
-- output { 1.5f32 3i32 7i64 true }
entry swaps (a: i32) (b: f32) : (f32, i32, i64, bool) =
  let (x, y) = swap (a, b)
  let (p, q) = swap (true, 7i64)
  in (x, y, p, q)

-- ==
-- entry: twice_both
-- input { 1i32 2.5f64 }
-- output { 7i32 10.0f64 }
-- input { -10i32 0.0f64 }
-- output { -4i32 0.0f64 }
entry twice_both (x: i32) (y: f64) : (i32, f64) =
  (twice (+ 3) x, twice (* 2) y)

-- ==
-- entry: counts
-- input { [1i32, 2i32, 3i32, 4i32] [0.1f32, 0.9f32, 0.6f32] }
-- output { 2i64 2i64 }
-- input { empty([0]i32) empty([0]f32) }
-- output { 0i64 0i64 }
-- input { [7i32] [0.5f32] }
-- output { 0i64 0i64 }
entry counts (xs: []i32) (ys: []f32) : (i64, i64) =
  (count (\x -> x % 2 == 0) xs, count (> 0.5) ys)

-- ==
-- entry: argmaxes
-- input { [3i32, 9i32, 2i32, 9i32] [0.5f32, -1.0f32, 2.5f32] }
-- output { 1i64 2i64 }
-- input { empty([0]i32) empty([0]f32) }
-- output { 0i64 0i64 }
-- input { [-5i32] [1.0f32, 1.0f32] }
-- output { 0i64 0i64 }
entry argmaxes (xs: []i32) (ys: []f32) : (i64, i64) =
  (argmax (>) xs, argmax (>) ys)

-- ==
-- entry: neighbours
-- input { [1i32, 4i32, 9i32, 16i32] [1i64, 2i64, 2i64, 3i64] }
-- output { [3i32, 5i32, 7i32] [false, true, false] }
-- input { [5i32] [1i64] }
-- output { empty([0]i32) empty([0]bool) }
-- input { empty([0]i32) empty([0]i64) }
-- output { empty([0]i32) empty([0]bool) }
entry neighbours (xs: []i32) (ys: []i64) : ([]i32, []bool) =
  (pairwise (\a b -> b - a) xs, pairwise (==) ys)
