type point = {x: f64, y: f64}
type^ transform = point -> point

def origin : point = {x = 0, y = 0}

def shift (dx: f64) : transform = \p -> p with x = p.x + dx

def norm ({x, y}: point) = f64.sqrt (x * x + y * y)

def swap (p: point) = {x = p.y, y = p.x}

def centre [n] (ps: [n]point) : point =
  let sx = f64.sum (map (.x) ps)
  let sy = f64.sum (map (.y) ps)
  let k = f64.i64 n
  in {x = sx / k, y = sy / k}

entry main (xs: []f64) (ys: []f64) : f64 =
  let ps = map2 (\x y -> {x, y}) xs ys
  in norm (centre ps |> shift 1.5e-3)
