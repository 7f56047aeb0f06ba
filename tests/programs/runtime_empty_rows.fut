-- A map whose rows are all empty still runs its function once per row: what fails there fails,
-- as in the interpreter, on every backend (a GPU has no element to compute then).

-- ==
-- entry: outer_index
-- input { [[1i32, 2i32]] }
-- error: out of bounds
-- input { empty([0][2]i32) }
-- output { empty([0][0]i32) }
entry outer_index (xss: [][]i32) : [][]i32 =
  map (\xs -> let y = xs[5] in replicate 0 y) xss

-- ==
-- entry: inner_map
-- input { [[1i32, 2i32], [3i32, 4i32]] 7i64 }
-- error: out of bounds
-- input { [[1i32, 2i32], [3i32, 4i32]] 1i64 }
-- output { empty([2][0]i32) }
entry inner_map (xss: [][]i32) (k: i64) : [][]i32 =
  map (\xs -> let y = xs[k] in map (+ y) (take 0 xs)) xss

-- ==
-- entry: division
-- input { [[1i32, 2i32], [0i32, 2i32]] }
-- error: division by zero
-- input { [[1i32, 2i32], [3i32, 2i32]] }
-- output { [[empty([0]i32)], [empty([0]i32)]] }
entry division (xss: [][]i32) : [][][]i32 =
  map (\xs -> let y = 10 / xs[0] in replicate 1 (replicate 0 y)) xss

-- ==
-- entry: two_results
-- input { [[1i32, 2i32], [0i32, 2i32]] }
-- error: assertion
-- input { [[1i32, 2i32], [3i32, 2i32]] }
-- output { empty([2][0]i32) empty([2][0]i32) }
entry two_results (xss: [][]i32) : ([][]i32, [][]i32) =
  unzip (map (\xs -> let y = assert (xs[0] > 0) 1 in (replicate 0 y, replicate 0 y)) xss)
