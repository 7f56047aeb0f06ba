-- Benchmark: escape-time counts of the Mandelbrot iteration over a w×h grid of [-2,1]×[-1.5,1.5].
def escape (limit: i32) (cx: f32) (cy: f32) : i32 =
  let (_, _, i) =
    loop (x, y, i) = (0f32, 0f32, 0i32) while i < limit && x * x + y * y <= 4 do
      (x * x - y * y + cx, 2 * x * y + cy, i + 1)
  in i

-- ==
-- input { 4i64 3i64 10i32 }
-- output { [[1i32, 2i32, 2i32, 2i32], [1i32, 4i32, 10i32, 10i32], [1i32, 4i32, 10i32, 10i32]] }
entry main (w: i64) (h: i64) (limit: i32) : [h][w]i32 =
  tabulate_2d h w (\r c ->
    let cx = -2 + 3 * f32.i64 c / f32.i64 w
    let cy = -1.5 + 3 * f32.i64 r / f32.i64 h
    in escape limit cx cy)
