type shape = #circle f32 | #rect f32 f32 | #empty

def area (s: shape) : f32 =
  match s
  case #circle r -> f32.pi * r ** 2
  case #rect w h -> w * h
  case #empty -> 0

def classify (x: i32) : i32 =
  match x
  case 0 -> 0
  case -1 -> 1
  case 2 -> 2
  case _ -> 3

def sign (x: i64) = match (x < 0, x == 0)
                    case (true, _) -> -1
                    case (_, true) -> 0
                    case _ -> 1

entry main (r: f32) = area (#circle r) + area (#rect r 2) + area #empty
