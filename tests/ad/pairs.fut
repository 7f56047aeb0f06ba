-- Arrays read at both indices of every pair, as in n-body: in reverse mode each pair adds
-- contributions to the adjoints of `ws[i]`, `ws[j]`, `ps[i]` and `ps[j]`. The GPU adds them
-- all into one histogram per array, each pair computed once; pairs with i >= j contribute
-- nothing. The potential is quadratic, so the results are exact.

def energy [n] (ws: [n]f32) (ps: [n][3]f32) : f32 =
  f32.sum (map (\i -> f32.sum (map (\j ->
    if i >= j then 0
    else let d = map2 (-) ps[i] ps[j]
         in ws[i] * ws[j] * f32.sum (map (\x -> x * x) d))
    (iota n))) (iota n))

-- ==
-- entry: grad
-- input { [1f32, 2f32, 3f32, 0.5f32]
--         [[0f32, 0f32, 0f32], [1f32, 0f32, 0f32], [0f32, 2f32, 1f32], [1f32, -1f32, 2f32]] }
-- output { [20.0f32, 21.5f32, 22.5f32, 49.0f32]
--          [[-5.0f32, -11.0f32, -8.0f32], [16.0f32, -22.0f32, -16.0f32],
--           [-15.0f32, 45.0f32, 15.0f32], [4.0f32, -12.0f32, 9.0f32]] }
entry grad [n] (ws: [n]f32) (ps: [n][3]f32) = vjp (\(w, p) -> energy w p) (ws, ps) 1

-- The same adjoints of the positions, written out: 2 ws[i] ws[j] (ps[i] - ps[j]) over j.
-- ==
-- entry: by_hand
-- input { [1f32, 2f32, 3f32, 0.5f32]
--         [[0f32, 0f32, 0f32], [1f32, 0f32, 0f32], [0f32, 2f32, 1f32], [1f32, -1f32, 2f32]] }
-- output { true }
entry by_hand [n] (ws: [n]f32) (ps: [n][3]f32) =
  let (_, dps) = vjp (\(w, p) -> energy w p) (ws, ps) 1
  let hand = map (\i -> map (\k -> f32.sum (map (\j -> 2 * ws[i] * ws[j] * (ps[i, k] - ps[j, k]))
                                               (iota n)))
                            (iota 3))
                 (iota n)
  in and (map2 (\a b -> and (map2 (==) a b)) dps hand)
