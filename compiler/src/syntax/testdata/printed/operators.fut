def bits (x: u32) : u32 = x << 3 | x >> 2 ^ (x & 255) >>> 1

def logic (a: bool) (b: bool) = !a && b || a != b

def arith (x: i32) (y: i32) = -x * y + x / y - x % y + x // y - x %% y + x ** 2

def floats (x: f64) = 1.5 * x - 0.002 + 3.0f64 / 5.0

def compose = (+ 1) >-> (* 2) <-< \x -> x - 1

def pipes (xs: []i32) = xs |> map (+ 1) |> filter (> 0) |> reduce (+) 0

def backwards (xs: []i32) = reduce (+) 0 <| map (2 *) <| xs

def infix (a: i32) (b: i32) = a `i32.max` b `i32.min` 10

def sections = (map (+) [1, 2], map (`i32.max` 3) [1, 2], (.1) (1, 2), (-))

def negs (x: i32) = (-1, -x, -(x + 1), f (-1), 0 - -1)
