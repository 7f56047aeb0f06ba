-- Geometry with records and parameterised type abbreviations: polygon area, perimeter, bounding box, translation.

type point = {x: f64, y: f64}
type polygon [n] = [n]point
type pair 't = (t, t)
type bbox = {lo: point, hi: point}

def pt (x: f64) (y: f64) : point = {x, y}
def sub (a: point) (b: point) : point = {x = a.x - b.x, y = a.y - b.y}
def cross (a: point) (b: point) : f64 = a.x * b.y - a.y * b.x
def dist (a: point) (b: point) : f64 = let d = sub a b in f64.sqrt (d.x * d.x + d.y * d.y)

def make_polygon [n] (xs: [n]f64) (ys: [n]f64) : polygon [n] =
  map2 pt xs ys

-- Consecutive vertices, the last one paired with the first.
def edges [n] (p: polygon [n]) : [n](pair point) =
  zip p (rotate 1 p)

-- The shoelace formula.
def area [n] (p: polygon [n]) : f64 =
  f64.abs (f64.sum (map (\(a, b) -> cross a b) (edges p))) / 2

def perimeter [n] (p: polygon [n]) : f64 =
  f64.sum (map (uncurry dist) (edges p))

def bounds [n] (p: polygon [n]) : bbox =
  let xs = map (.x) p
  let ys = map (.y) p
  in {lo = pt (f64.minimum xs) (f64.minimum ys), hi = pt (f64.maximum xs) (f64.maximum ys)}

def translate [n] (d: point) (p: polygon [n]) : polygon [n] =
  map (\(q: point) -> let q' = q with x = q.x + d.x
                      in q' with y = q'.y + d.y)
      p

-- ==
-- input { [0.0f64, 4.0f64, 4.0f64, 0.0f64] [0.0f64, 0.0f64, 3.0f64, 3.0f64] }
-- output { 12.0f64 14.0f64 0.0f64 0.0f64 4.0f64 3.0f64 }
-- input { [0.0f64, 3.0f64, 0.0f64] [0.0f64, 0.0f64, 4.0f64] }
-- output { 6.0f64 12.0f64 0.0f64 0.0f64 3.0f64 4.0f64 }
-- input { [1.0f64, -2.0f64, 0.5f64, 3.0f64] [2.0f64, 1.0f64, -1.5f64, 0.0f64] }
-- output { 9.0f64 12.441714638269959f64 -2.0f64 -1.5f64 3.0f64 2.0f64 }
-- input { empty([0]f64) empty([0]f64) }
-- output { 0.0f64 0.0f64 f64.inf f64.inf -f64.inf -f64.inf }
entry main [n] (xs: [n]f64) (ys: [n]f64) : (f64, f64, f64, f64, f64, f64) =
  let p = make_polygon xs ys
  let {lo, hi} = bounds p
  in (area p, perimeter p, lo.x, lo.y, hi.x, hi.y)

-- ==
-- entry: translated
-- input { 1.0f64 -1.0f64 [0.0f64, 3.0f64, 0.0f64] [0.0f64, 0.0f64, 4.0f64] }
-- output { [1.0f64, 4.0f64, 1.0f64] [-1.0f64, -1.0f64, 3.0f64] }
-- input { 0.5f64 2.0f64 empty([0]f64) empty([0]f64) }
-- output { empty([0]f64) empty([0]f64) }
entry translated [n] (dx: f64) (dy: f64) (xs: [n]f64) (ys: [n]f64) : ([n]f64, [n]f64) =
  let p = translate (pt dx dy) (make_polygon xs ys)
  in (map (.x) p, map (.y) p)
