-- N-body: the forces are minus the gradient of the potential energy, by one vjp; compared with
-- the forces written out by hand.
def energy [n] (ms: [n]f64) (ps: [n][3]f64) : f64 =
  let pair i j =
    if i >= j then 0
    else let d = map2 (-) ps[i] ps[j]
         let r = f64.sqrt (f64.sum (map (\x -> x * x) d) + 0.01)
         in -(ms[i] * ms[j]) / r
  in f64.sum (map (\i -> f64.sum (map (\j -> pair i j) (iota n))) (iota n))

def forces [n] (ms: [n]f64) (ps: [n][3]f64) : [n][3]f64 =
  map (map f64.neg) (vjp (energy ms) ps 1)

def forces_by_hand [n] (ms: [n]f64) (ps: [n][3]f64) : [n][3]f64 =
  map (\i ->
         map (\k ->
                f64.sum (map (\j ->
                                if i == j then 0
                                else let d = map2 (-) ps[j] ps[i]
                                     let r2 = f64.sum (map (\x -> x * x) d) + 0.01
                                     in ms[i] * ms[j] * d[k] / (r2 * f64.sqrt r2))
                             (iota n)))
             (iota 3))
      (iota n)

-- ==
-- entry: main
-- input { [1.0, 2.0, 0.5] [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0]] }
-- output { -2.6213664144483655f64 [[1.9703706736831474f64, 8.917506020135135e-2f64,
--   4.4587530100675676e-2f64], [-2.0382423056671746f64, 0.135743263968054f64,
--   6.7871631984027e-2f64], [6.7871631984027e-2f64, -0.22491832416940535f64,
--   -0.11245916208470268f64]] }
entry main [n] (ms: [n]f64) (ps: [n][3]f64) = (energy ms ps, forces ms ps)

-- ==
-- tags { needs_f64 }
-- entry: difference
-- input { [1.0, 2.0, 0.5] [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0]] }
-- output { true }
entry difference [n] (ms: [n]f64) (ps: [n][3]f64) =
  let diff ra rb = f64.maximum (map2 (\x y -> f64.abs (x - y)) ra rb)
  in f64.maximum (map2 diff (forces ms ps) (forces_by_hand ms ps)) < 1e-12

-- The potential energy alone: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- random input { [300]f64 [300][3]f64 }
entry objective [n] (ms: [n]f64) (ps: [n][3]f64) : f64 = energy ms ps
