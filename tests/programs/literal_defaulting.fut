-- Unconstrained integer literals default to i32 and float literals to f64; context decides otherwise.
-- ==
-- input { 0i8 }
-- output { 1i32 2.5f64 -2147483648i32 3i8 4i64 0.5f32 }

def main (k: i8) =
  let a = 1
  let b = 2.5
  let c = 1 << 31
  let d = k + 3
  let e = length [1, 2, 3] + 1
  let f = 1 / 2 : f32
  in (a, b, c, d, e, f)
