-- AUTOMAP: inside an explicit `map`, `x * ys` scales the whole vector: an outer product.
-- Without the `map` the same lambda would multiply elementwise.
-- ==
-- entry: outer
-- input { [1, 2] [10, 20, 30] }
-- output { [[10, 20, 30], [20, 40, 60]] }
entry outer (xs: []i32) (ys: []i32) : [][]i32 = map (\x -> x * ys) xs

-- ==
-- entry: elementwise
-- input { [1, 2, 3] [10, 20, 30] }
-- output { [10, 40, 90] }
entry elementwise (xs: []i32) (ys: []i32) : []i32 = (\x -> x * ys) xs
