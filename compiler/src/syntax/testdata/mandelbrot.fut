type complex = (f32, f32)

def dot ((a, b): complex) : f32 = a * a + b * b

def mul ((a, b): complex) ((c, d): complex) : complex =
  (a * c - b * d, a * d + b * c)

def add (x: complex) (y: complex) : complex = (x.0 + y.0, x.1 + y.1)

def divergence (depth: i32) (c: complex) : i32 =
  let (_, i) =
    loop (z, i) = (c, 0)
    while i < depth && dot z < 4.0 do
      (add c (mul z z), i + 1)
  in i

entry mandelbrot (w: i64) (h: i64) (depth: i32) : [h][w]i32 =
  tabulate_2d h w (\y x ->
    let c = (f32.i64 x / f32.i64 w * 3 - 2, f32.i64 y / f32.i64 h * 2 - 1)
    in divergence depth c)
