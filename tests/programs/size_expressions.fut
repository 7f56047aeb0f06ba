-- Sizes computed from others (`[n*m]`, `[n+1]`, `[n-1]`, `[n/2]`), as in Futhark: function
-- types state them, `flatten`, `++`, slices and `iota (n+1)` produce them, and two sizes are one
-- size when they are equal as polynomials (`[0] ++ xs ++ [0]` has the size `n+2`).

def flat [n] [m] (xss: [n][m]f32) : [n*m]f32 = flatten xss

def pad [n] (xs: [n]i32) : [n+2]i32 = [0] ++ xs ++ [0]

def diffs [n] (xs: [n]i32) : [n-1]i32 = map2 (-) (tail xs) (init xs)

def numbered [n] (xs: [n]i32) : [n+1](i64, i32) = zip (iota (n+1)) (xs ++ [-1])

def window [n] (k: i64) (i: i64) (xs: [n]i32) : [k](i64, i32) = zip (iota k) xs[i:i+k]

def halves [n] (xs: [n]i32) : ([n/2]i32, [n/2]i32) = (xs[0:n/2], xs[n/2:n/2*2])

-- ==
-- entry: shapes
-- input { [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] [3, 1, 4, 1, 5] }
-- output { [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] [0, 3, 1, 4, 1, 5, 0] [-2, 3, -3, 4] }
-- input { empty([0][2]f32) [7] }
-- output { empty([0]f32) [0, 7, 0] empty([0]i32) }
entry shapes [n] [m] [k] (xss: [n][m]f32) (ys: [k]i32) : ([n*m]f32, [k+2]i32, [k-1]i32) =
  (flat xss, pad ys, diffs ys)

-- ==
-- entry: numbered_sum
-- input { [5, 6, 7] }
-- output { 9i64 17 }
entry numbered_sum [n] (xs: [n]i32) : (i64, i32) =
  let ps = numbered xs
  in (i64.sum (map (.0) ps) + n, i32.sum (map (.1) ps))

-- ==
-- entry: windows
-- input { 2i64 1i64 [10, 20, 30, 40] }
-- output { [0i64, 1i64] [20, 30] }
-- input { 3i64 2i64 [10, 20, 30, 40] }
-- error: out of bounds
entry windows [n] (k: i64) (i: i64) (xs: [n]i32) : ([k]i64, [k]i32) = unzip (window k i xs)

-- ==
-- entry: halves_sum
-- input { [1, 2, 3, 4, 5] }
-- output { [4, 6] }
entry halves_sum [n] (xs: [n]i32) : [n/2]i32 =
  let (a, b) = halves xs
  in map2 (+) a b

-- A computed size of an entry point's parameter is checked when it is called, whichever
-- parameter names its sizes.
-- ==
-- entry: weighted
-- input { [1, 2, 3, 4, 5, 6] [[1, 0, 0], [0, 1, 0]] }
-- output { 6 }
-- input { [1, 2, 3, 4, 5] [[1, 0, 0], [0, 1, 0]] }
-- error: size mismatch: argument `flat` of shape \[5\] does not match `\[m\*n\]i32` with m = 3, n = 2
entry weighted [n] [m] (flat: [n*m]i32) (w: [n][m]i32) : i32 =
  i32.sum (map2 (*) flat (flatten w))

-- A loop whose array grows: its size changes across iterations, so it is existential.
-- ==
-- entry: grow
-- input { 4i64 }
-- output { [0i64, 0i64, 1i64, 2i64, 3i64] }
entry grow (n: i64) : []i64 =
  loop acc = [0] for i < n do acc ++ [i]

-- Idioms of Futhark programs whose types compute sizes: an exclusive scan, a 3-point stencil
-- on shifted slices, blocks from `unflatten`, interleaving, rotation by concatenation.
def exscan [n] (xs: [n]i32) : [n]i32 = [0] ++ init (scan (+) 0 xs)

def stencil [n] (xs: [n]f32) : [n-2]f32 = map3 (\a b c -> a + b + c) xs[0:n-2] xs[1:n-1] xs[2:n]

def blocks [k] (b: i64) (xs: [k]f32) : [k/b]f32 = map f32.sum (unflatten xs : [k/b][b]f32)

def interleave [n] (xs: [n]i32) (ys: [n]i32) : [2*n]i32 = flatten (map2 (\x y -> [x, y]) xs ys)

def rotate_left [n] (xs: [n]i32) : [n]i32 = xs[1:] ++ xs[:1]

-- ==
-- entry: idioms
-- input { [1, 2, 3, 4] [1f32, 2f32, 3f32, 4f32, 5f32, 6f32] }
-- output { [0, 1, 3, 6] [6f32, 9f32, 12f32, 15f32] [3f32, 7f32, 11f32] [1, 1, 2, 2, 3, 3, 4, 4] [2, 3, 4, 1] }
-- input { [1, 2, 3, 4] [1f32, 2f32, 3f32, 4f32, 5f32] }
-- error: size mismatch
entry idioms [n] [m] (xs: [n]i32) (ys: [m]f32) =
  (exscan xs, stencil ys, blocks 2 ys, interleave xs xs, rotate_left xs)

-- An existential result whose size is computed (`?[k].[2*k]`): the body's `k*2`, whose `k`
-- goes out of scope, has that form.
def evens [n] (xs: [n]i32) : ?[k].[k*2]i32 =
  let k = n / 2
  in xs[0:k*2]

-- ==
-- entry: evens_of
-- input { [1, 2, 3, 4, 5] }
-- output { [1, 2, 3, 4] }
-- input { [1] }
-- output { empty([0]i32) }
entry evens_of [n] (xs: [n]i32) : []i32 = evens xs
