-- Local opens `m.(e)`: the module's names shadow the local ones; in a numeric module's, its
-- operators are the ones on its type (`f32.(1 / 2)` is 0.5) and its members need no prefix.

module m = { def k = 10i32 def f (x: i32) = x * k }

def g (x: f32) (y: f32) = f32.(sqrt (x * x + y * y) + pi - pi)

-- `open f64` in a module: `sqrt`, `t` and the operators are `f64`'s there.
module open_f64 = {
  open f64
  def root_plus_one (x: t) = sqrt x + 1
  def half : t = 1 / 2
}

-- ==
-- entry: main
-- input { 3f32 4f32 2 }
-- output { 5f32 100 3f32 0.5f32 true 2i64 }
entry main (x: f32) (y: f32) (k: i32) =
  (g x y, m.(f k), f32.(i32 k + 1), f32.(1 / 2), f32.(2 < 3), i64.(reduce (+) 0 [1, 1]))

-- ==
-- entry: opened
-- input { 9f64 }
-- output { 4f64 0.5f64 }
entry opened (x: f64) = (open_f64.root_plus_one x, open_f64.half)
