-- Size-dependent types: size parameters, type abbreviations over sizes and types, sizes named by
-- arguments and computed from others, existential sizes bound with `let [k]`, type ascription and
-- size coercion.

type vector [n] 't = [n]t
type matrix [n][m] 't = [n][m]t

def outer [n][m] (xs: vector [n] f32) (ys: vector [m] f32) : matrix [n][m] f32 =
  map (\x -> map (* x) ys) xs

-- ==
-- entry: outer_product
-- input { [1.0f32, 2.0f32] [3.0f32, 4.0f32, 5.0f32] }
-- output { [[3.0f32, 4.0f32, 5.0f32], [6.0f32, 8.0f32, 10.0f32]] }
-- input { [0.5f32] [2.0f32] }
-- output { [[1.0f32]] }
-- input { empty([0]f32) [1.0f32, 2.0f32] }
-- output { empty([0][2]f32) }
entry outer_product [n][m] (xs: [n]f32) (ys: [m]f32) : [n][m]f32 =
  outer xs ys

-- A slice's size is computed from its bounds: `xs[0:n/2]` and `xs[n/2:2*(n/2)]` both have the
-- size `n/2`, so they can be added elementwise.
-- ==
-- entry: pair_sums
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [4i32, 6i32] }
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [4i32, 6i32] }
-- input { [7i32] }
-- output { empty([0]i32) }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
entry pair_sums [n] (xs: [n]i32) : [n/2]i32 =
  map2 (+) xs[0:n/2] xs[n/2:2*(n/2)]

-- Sizes computed from others: `++` adds sizes and `flatten` multiplies them. Where a size is
-- known only at run time (a filter's result), `:>` states it and is checked (here: exactly one
-- zero).
-- ==
-- entry: framed
-- input { [[1i32, 2i32], [0i32, 4i32]] }
-- output { [0i32, 1i32, 2i32, 0i32, 4i32, 0i32] [1i32, 2i32, 4i32] }
-- input { [[1i32, 2i32], [3i32, 4i32]] }
-- error: size mismatch
entry framed [n][m] (xss: [n][m]i32) : ([n*m+2]i32, [n*m-1]i32) =
  let flat = flatten xss
  in ([0] ++ flat ++ [0], filter (!= 0) flat :> [n*m-1]i32)

-- `let [k]` names the size that filter leaves unknown, so later arrays can be given that size.
-- ==
-- entry: nonzero
-- input { [0i32, 3i32, 0i32, -1i32] }
-- output { [3i32, -1i32] [0i64, 1i64] 2i64 }
-- input { [0i32, 0i32] }
-- output { empty([0]i32) empty([0]i64) 0i64 }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i64) 0i64 }
entry nonzero (xs: []i32) : ([]i32, []i64, i64) =
  let [k] (ys: [k]i32) = filter (!= 0) xs
  let positions : [k]i64 = iota k
  in (ys, positions, k)

-- The result's size comes from the argument's: an array literal of two rows of size n.
def dup [n] 't (x: [n]t) : [2][n]t = [x, x]

-- ==
-- entry: duplicate
-- input { [1i32, 2i32, 3i32] }
-- output { [[1i32, 2i32, 3i32], [1i32, 2i32, 3i32]] }
-- input { empty([0]i32) }
-- output { empty([2][0]i32) }
entry duplicate (xs: []i32) : [2][]i32 =
  dup xs

-- A size taken from an argument value; ascriptions state types inside expressions.
-- ==
-- entry: zeros
-- input { 4i64 }
-- output { [0i32, 0i32, 0i32, 0i32] 6i64 }
-- input { 0i64 }
-- output { empty([0]i32) 0i64 }
entry zeros (n: i64) : ([n]i32, i64) =
  let zs = (replicate n 0 : [n]i32)
  let total = (i64.sum (iota n) : i64)
  in (zs, total)
