-- A one-dimensional heat-equation stencil, in the style of Futhark's benchmarks.

def step [n] (xs: [n]f32) : [n]f32 =
  tabulate n (\i ->
    if i == 0 || i == n - 1
    then xs[i]
    else 0.25 * xs[i - 1] + 0.5 * xs[i] + 0.25 * xs[i + 1])

def simulate [n] (steps: i32) (xs: [n]f32) : [n]f32 =
  loop xs for _i < steps do step xs

def max_abs_diff [n] (a: [n]f32) (b: [n]f32) : f32 =
  reduce f32.max 0 (map2 (\x y -> f32.abs (x - y)) a b)

def scan_example [n] (xs: [n]i32) = (scan (+) 0 xs, zip xs (iota n), unzip (zip xs xs))

entry main [n] (steps: i32) (xs: [n]f32) : f32 =
  let ys = simulate steps xs
  in max_abs_diff xs ys
