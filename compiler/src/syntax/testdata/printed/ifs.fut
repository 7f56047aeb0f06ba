def clamp (lo: f32) (hi: f32) (x: f32) = if x < lo then lo else if x > hi then hi else x

def grade (score: i32) : i32 =
  if score >= 90 then 4 else if score >= 80 then 3 else if score >= 70 then 2 else 0

def choose b x y = (if b then x else y) + 1

def inner (b: bool) = 1 + if b then 2 else 3
