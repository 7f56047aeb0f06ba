-- Run-time size error: a map whose function returns arrays of different lengths for different elements,
-- also when the first is empty (a GPU's kernel for the elements then has none to run).
-- ==
-- input { [[1i32, -2i32], [-3i32, 4i32]] }
-- output { [[1i32], [4i32]] }
-- input { [[1i32, -2i32], [3i32, 4i32]] }
-- error: size mismatch|irregular
-- input { [[-1i32, -2i32], [3i32, -4i32]] }
-- error: size mismatch|irregular
-- input { [[-1i32, -2i32], [-3i32, -4i32]] }
-- output { empty([2][0]i32) }

def main (xss: [][]i32) : [][]i32 =
  map (\xs -> filter (> 0) xs) xss
