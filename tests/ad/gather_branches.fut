-- Gathers in branches and of rows: a free array read with fixed indices in a `map` lambda's
-- branches (also nested, also in both), or by row, gets its adjoint as (index, value) pairs
-- added by a histogram; a branch not taken contributes nothing, even where its index would be
-- out of bounds.

-- Pairs (i, i + 1) for even i: the adjoint of xs[i] is xs[i + 1] and the other way round.
-- ==
-- entry: pairs
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, 1.0, 4.0, 3.0] }
entry pairs [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (map (\i -> if i % 2 == 0 then xs[i] * xs[(i + 1) % n] else 0) (iota n)))
      xs 1

-- The last element has no successor: xs[i + 1] is out of bounds in the branch not taken.
-- ==
-- entry: shift
-- input { [1f32, 2f32, 3f32] }
-- output { [2f32, 4f32, 3f32] }
entry shift [n] (xs: [n]f32) =
  vjp (\xs -> f32.sum (map (\i -> if i + 1 < n then xs[i + 1] * xs[i] else xs[i]) (iota n)))
      xs 1

-- Nested branches; xs[0] is read by three elements.
-- ==
-- entry: nested
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [7.0, 0.0, 6.0, 0.0] }
entry nested [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (map (\i -> if i % 2 == 0
                                  then (if i % 4 == 0 then xs[i] * 3 else xs[i] * xs[i])
                                  else xs[0] * 2)
                           (iota n)))
      xs 1

-- Rows: element i reads row (2 i) mod 3 with weight i + 1, so row 0 is read twice.
-- ==
-- entry: rows
-- input { [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32]] }
-- output { [[10f32, 5f32], [12f32, 9f32], [12f32, 10f32]] }
entry rows [n] (ps: [n][2]f32) =
  vjp (\ps -> f32.sum (map (\i -> let r = ps[(i * 2) % n] in f32.i64 (i + 1) * (r[0] * r[1]))
                           (iota 4)))
      ps 1

-- The sum over pairs i < j of xs[i] xs[j], as an n-body energy is written: the inner map's
-- reads are in a branch.
-- ==
-- entry: upper
-- input { [1.0, 2.0, 3.0] }
-- output { [5.0, 4.0, 3.0] }
entry upper [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (map (\i -> f64.sum (map (\j -> if i < j then xs[i] * xs[j] else 0)
                                               (iota n)))
                           (iota n)))
      xs 1
