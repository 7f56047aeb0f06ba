-- AUTOMAP: a scalar meets an array; the scalar is replicated (an induced rep, fused away:
-- `xs + 1` elaborates to `map (\x -> x + 1) xs`).

-- ==
-- entry: plus_one
-- input { [3, 4, 5] }
-- output { [4, 5, 6] }
entry plus_one (xs: []i32) : []i32 = xs + 1

-- ==
-- entry: one_plus
-- input { [3, 4, 5] }
-- output { [4, 5, 6] }
entry one_plus (xs: []i32) : []i32 = 1 + xs

-- ==
-- entry: scale3
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] 10 }
-- output { [[[10, 20], [30, 40]], [[50, 60], [70, 80]]] }
entry scale3 (a: [][][]i32) (c: i32) : [][][]i32 = a * c
