def rev [n] 't (xs: [n]t) : [n]t = xs[::-1]

def evens [n] (xs: [n]i32) = xs[0:n:2]

def window [n] (k: i64) (xs: [n]f32) = xs[k:n - k]

def corner [n][m] (a: [n][m]i32) = a[0, m - 1]

def row_slice [n][m] (a: [n][m]i32) (i: i64) = a[i, :]

def set (xs: *[]i32) (i: i64) (v: i32) : *[]i32 = xs with [i] = v

def grid = [[1, 2, 3], [4, 5, 6]]

def ranges = (1...10, 0..<5, 10..>0, 0..2...10, 1..3..<9)

def cat xs ys = xs ++ ys ++ [0, 0]

def hist [n] (k: i64) (is: [n]i64) : [k]i32 =
  reduce_by_index (replicate k 0) (+) 0 is (replicate n 1)

entry main (xs: []i32) = (rev xs, evens xs, grid[1][2], length (iota 10))
