-- A sum type may carry functions (`type^`): a value knows its constructor where it is made, so
-- `match` applies the function it holds; the other constructors' functions are never called.
-- ==
-- input { 5 }
-- output { 6 15 7 -5 2.25f32 }

type^ t = #foo (i32 -> i32) | #bar i32
type^ u = #scale f32 (f32 -> f32) | #none

def use_p (p: t) (x: i32) =
  match p
  case #foo f -> f x
  case #bar y -> y

def run (q: u) (x: f32) =
  match q
  case #scale k g -> k * g x
  case #none -> x

entry main (x: i32) =
  let ps : (t, t) = (#foo (* 3), #bar 7)
  in (use_p (#foo (+ 1)) x, use_p ps.0 x, use_p ps.1 x, use_p (#foo (\y -> y - 10)) x,
      run (#scale 0.5 (\v -> v + 0.5)) (f32.i32 x - 1))
