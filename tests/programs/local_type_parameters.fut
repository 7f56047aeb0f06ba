-- A local function with explicit type parameters is polymorphic: each use instantiates them
-- afresh, as with its size parameters. (A local function without them is monomorphic: its
-- parameters' types are inferred from its uses together.)

-- ==
-- entry: uses
-- input { 1 true [1f32, 2f32] }
-- output { [1, 1] [true, true] [[1f32, 2f32], [1f32, 2f32]] 2 }
entry uses (x: i32) (y: bool) (zs: []f32) =
  let twice 't (v: t) : [2]t = [v, v]
  let count 'a (xs: []a) : i32 = reduce (+) 0 (map (\_ -> 1) xs)
  in (twice x, twice y, twice zs, count (twice y))

-- ==
-- entry: higher_order
-- input { [3, 1, 2] [true, false] }
-- output { [2, 1, 3] [false, true] empty([0]i32) 3i64 [[3, 3], [1, 1], [2, 2]] }
entry higher_order (xs: []i32) (bs: []bool) =
  let rev [n] 'a (ys: [n]a) : [n]a = map (\i -> ys[n - 1 - i]) (iota n)
  let none 't (v: t) : ([]t, t) = ([], v)
  let pair 'a 'b (f: a -> b) (v: a) : (b, b) = (f v, f v)
  let (e, _) = none (xs[0])
  let (_, l) = none (length xs)
  in (xs |> rev, rev bs, e, l, map (\x -> let (a, b) = pair (+ 0) x in [a, b]) xs)

-- ==
-- entry: nested
-- input { 2 }
-- output { 2 2.5f32 [[true], [true]] }
entry nested (k: i32) =
  let outer 'a (v: a) =
    let inner 'b (w: b) : (a, b) = (v, w)
    in (inner 2.5f32, inner [true])
  let (p, q) = outer k
  in ((p.0, p.1), [q.1, q.1])

-- AUTOMAP sees each use at its own type: `first [xs]` is an array, so `+ 1` maps over it.
-- ==
-- entry: lifted
-- input { [1, 2, 3] 5 }
-- output { [2, 3, 4] 6 }
entry lifted (xs: []i32) (y: i32) =
  let first 't (v: [1]t) : t = v[0]
  in (first [xs] + 1, first [y] + 1)
