-- A variable whose size is an existential from a function's result (`filter`, `concat`, `tail`,
-- `unzip` of such) has one size at every use: `zip g g` and `zip xs ys` after `unzip` type-check.
-- ==
-- input { [3, -1, 4, -1, 5] }
-- output { [6, 8, 10] [9, 16, 25] [4, 5] [3, 4, 5, 3, 4, 5] }

def main (f: []i32) =
  let g = filter (> 0) f
  let doubled = map (\(a, b) -> a + b) (zip g g)
  let (xs, ys) = unzip (map (\x -> (x, x * x)) g)
  let t = tail g
  let c = concat g g
  in ( doubled
     , map (\(x, y) -> x * y / x) (zip xs ys)
     , map (.0) (zip t t)
     , map2 (\a _ -> a) c c
     )
