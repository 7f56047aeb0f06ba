-- Mandelbrot set: escape-time iteration counts (i32) on a small grid, with a while loop over a tuple.

-- A top-level constant: the squared radius beyond which a point has escaped.
def bailout : f32 = 4

def escape (limit: i32) (cx: f32) (cy: f32) : i32 =
  let (_, _, i) =
    loop (x, y, i) = (0f32, 0f32, 0i32) while i < limit && x * x + y * y <= bailout do
      (x * x - y * y + cx, 2 * x * y + cy, i + 1)
  in i

-- ==
-- input { 4i64 3i64 10i32 }
-- output { [[1i32, 2i32, 2i32, 2i32], [1i32, 4i32, 10i32, 10i32], [1i32, 4i32, 10i32, 10i32]] }
-- input { 8i64 5i64 50i32 }
-- output { [[1i32, 1i32, 2i32, 2i32, 2i32, 2i32, 2i32, 2i32], [1i32, 2i32, 3i32, 3i32, 4i32, 29i32, 4i32, 2i32], [1i32, 4i32, 10i32, 10i32, 50i32, 50i32, 50i32, 4i32], [1i32, 4i32, 10i32, 10i32, 50i32, 50i32, 50i32, 4i32], [1i32, 2i32, 3i32, 3i32, 4i32, 29i32, 4i32, 2i32]] }
-- input { 3i64 1i64 0i32 }
-- output { [[0i32, 0i32, 0i32]] }
-- input { 0i64 2i64 10i32 }
-- output { empty([2][0]i32) }
entry main (w: i64) (h: i64) (limit: i32) : [h][w]i32 =
  tabulate_2d h w (\r c ->
    let cx = -2 + 3 * f32.i64 c / f32.i64 w
    let cy = -1.5 + 3 * f32.i64 r / f32.i64 h
    in escape limit cx cy)
