-- A physics loop with a while: a projectile with drag, stepped until it lands; the derivative of
-- the landing distance with respect to the launch speed and angle (both modes).
def flight (speed: f64, angle: f64) : f64 =
  let dt = 0.01
  let k = 0.1
  let (x, _, _, _) =
    loop (x, y, vx, vy) = (0, 0, speed * f64.cos angle, speed * f64.sin angle)
    while y >= 0 do
      let v = f64.sqrt (vx * vx + vy * vy)
      let ax = -k * v * vx
      let ay = -9.81 - k * v * vy
      in (x + dt * vx, y + dt * vy, vx + dt * ax, vy + dt * ay)
  in x

-- ==
-- entry: main
-- input { 10.0 0.7 }
-- output { 6.06519029623123f64 0.43777844228920004f64 -4.38065774477735f64 0.4377784422891998f64 }
entry main (speed: f64) (angle: f64) =
  let (ds, da) = vjp flight (speed, angle) 1
  in (flight (speed, angle), ds, da, jvp flight (speed, angle) (1, 0))

-- The landing distance alone: the objective whose gradient `ogham bench --ad` measures.
-- ==
-- entry: objective
-- input { 50.0 0.7 }
entry objective (speed: f64) (angle: f64) : f64 = flight (speed, angle)
