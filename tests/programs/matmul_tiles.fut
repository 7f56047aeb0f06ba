-- Matrix-product nests at sizes that leave partial tiles: on GPUs a workgroup computes a
-- 128×128 tile of the result, staging the operands' rows 8 elements at a time, so rows and
-- columns past the edges of the result and a last partial chunk along the rows (or none: k = 0,
-- where each element is the neutral element) must not change the results. Cases without an
-- output are compared with the interpreter.

-- ==
-- entry: product
-- input { [[-3f32, 2f32, 0f32, -2f32, 3f32], [0f32, -2f32, 3f32, 1f32, -1f32], [3f32, 1f32, -1f32, -3f32, 2f32]]
--         [[-2f32, 1f32, -1f32, 2f32, 0f32, -2f32, 1f32], [0f32, -2f32, 1f32, -1f32, 2f32, 0f32, -2f32], [2f32, 0f32, -2f32, 1f32, -1f32, 2f32, 0f32], [-1f32, 2f32, 0f32, -2f32, 1f32, -1f32, 2f32], [1f32, -1f32, 2f32, 0f32, -2f32, 1f32, -1f32]] }
-- output { [[11f32, -14f32, 11f32, -4f32, -4f32, 11f32, -14f32], [4f32, 7f32, -10f32, 3f32, -4f32, 4f32, 7f32], [-3f32, -7f32, 4f32, 10f32, -4f32, -3f32, -7f32]] }
-- input { [[2f32], [3f32]] [[1f32, -1f32, 4f32]] }
-- output { [[2f32, -2f32, 8f32], [3f32, -3f32, 12f32]] }
-- input { empty([2][0]f32) empty([0][3]f32) }
-- output { [[0f32, 0f32, 0f32], [0f32, 0f32, 0f32]] }
-- input { empty([0][4]f32) [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32], [7f32, 8f32]] }
-- output { empty([0][2]f32) }
-- input { [[1f32, 2f32, 3f32], [4f32, 5f32, 6f32]] empty([3][0]f32) }
-- output { empty([2][0]f32) }
-- random input { [200][70]f32 [70][150]f32 }
-- random input { [130][9]f32 [9][129]f32 }
-- random input { [129][1]f32 [1][257]f32 }
-- random input { [257][16]f32 [16][5]f32 }
-- random input { [3][300]f32 [300][2]f32 }
-- random input { [1][8]f32 [8][1]f32 }
entry product [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b)) a

-- The second operand given by rows (its elements along the rows adjacent, unlike a transposed
-- matrix's).
-- ==
-- entry: product_bt
-- random input { [140][23]f32 [131][23]f32 }
-- random input { [5][0]f32 [7][0]f32 }
entry product_bt [n][m][p] (a: [n][m]f32) (bt: [p][m]f32) : [n][p]f32 =
  map (\r -> map (\c -> f32.sum (map2 (*) r c)) bt) a

-- ==
-- entry: i32_product
-- input { [[-3i32, 2i32, 0i32, -2i32, 3i32], [0i32, -2i32, 3i32, 1i32, -1i32], [3i32, 1i32, -1i32, -3i32, 2i32]]
--         [[-2i32, 1i32, -1i32, 2i32, 0i32, -2i32, 1i32], [0i32, -2i32, 1i32, -1i32, 2i32, 0i32, -2i32], [2i32, 0i32, -2i32, 1i32, -1i32, 2i32, 0i32], [-1i32, 2i32, 0i32, -2i32, 1i32, -1i32, 2i32], [1i32, -1i32, 2i32, 0i32, -2i32, 1i32, -1i32]] }
-- output { [[11i32, -14i32, 11i32, -4i32, -4i32, 11i32, -14i32], [4i32, 7i32, -10i32, 3i32, -4i32, 4i32, 7i32], [-3i32, -7i32, 4i32, 10i32, -4i32, -3i32, -7i32]] }
-- random input { [131][19]i32 [19][133]i32 }
entry i32_product [n][m][p] (a: [n][m]i32) (b: [m][p]i32) : [n][p]i32 =
  map (\r -> map (\c -> i32.sum (map2 (*) r c)) (transpose b)) a

-- 64-bit integers: two words each where the GPU computes them in 64 bits.
-- ==
-- entry: i64_product
-- input { [[3000000000i64, 1i64], [-1i64, 4000000000i64]] [[2i64], [5i64]] }
-- output { [[6000000005i64], [19999999998i64]] }
-- random input { [33][10]i64 [10][140]i64 }
entry i64_product [n][m][p] (a: [n][m]i64) (b: [m][p]i64) : [n][p]i64 =
  map (\r -> map (\c -> i64.sum (map2 (*) r c)) (transpose b)) a

-- The max-plus semiring: `f` is (+), the fold `max` from negative infinity.
-- ==
-- entry: max_plus
-- input { [[-3f32, 2f32, 0f32, -2f32, 3f32], [0f32, -2f32, 3f32, 1f32, -1f32], [3f32, 1f32, -1f32, -3f32, 2f32]]
--         [[-2f32, 1f32, -1f32, 2f32, 0f32, -2f32, 1f32], [0f32, -2f32, 1f32, -1f32, 2f32, 0f32, -2f32], [2f32, 0f32, -2f32, 1f32, -1f32, 2f32, 0f32], [-1f32, 2f32, 0f32, -2f32, 1f32, -1f32, 2f32], [1f32, -1f32, 2f32, 0f32, -2f32, 1f32, -1f32]] }
-- output { [[4f32, 2f32, 5f32, 3f32, 4f32, 4f32, 2f32], [5f32, 3f32, 1f32, 4f32, 2f32, 5f32, 3f32], [3f32, 4f32, 4f32, 5f32, 3f32, 3f32, 4f32]] }
-- input { empty([1][0]f32) empty([0][2]f32) }
-- output { [[-f32.inf, -f32.inf]] }
-- random input { [150][37]f32 [37][140]f32 }
entry max_plus [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\r -> map (\c -> reduce f32.max (-f32.inf) (map2 (+) r c)) bt) a

-- Booleans (a word each in workgroup memory): which pairs of rows share a true element.
-- ==
-- entry: overlaps
-- input { [[true, false, false], [false, false, true]] [[false, false, true], [true, true, false]] }
-- output { [[false, true], [true, false]] }
-- random input { [129][12]bool [135][12]bool }
entry overlaps [n][m][p] (a: [n][m]bool) (b: [p][m]bool) : [n][p]bool =
  map (\r -> map (\c -> reduce (||) false (map2 (&&) r c)) b) a
