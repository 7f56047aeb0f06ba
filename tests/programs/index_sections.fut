-- Index sections: `(.[i])` is the function `\x -> x[i]`, with slices and with fields before
-- and after the index (`(.1[1])`).
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] [10, 20] }
-- output { [2, 5] [[2, 3], [5, 6]] [2, 5] 20 }

entry main (xss: [][3]i32) (ys: []i32) : ([]i32, [][]i32, []i32, i32) =
  let ps = map2 (\x xs -> (x, xs)) ys xss
  in (map (.[1]) xss, map (.[1:]) xss, map (.1[1]) ps, (.[1]) ys)
