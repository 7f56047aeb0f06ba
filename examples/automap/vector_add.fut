-- AUTOMAP: `+` on two vectors is lifted to an elementwise sum (`map2 (+)`).
-- ==
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [5, 7, 9] }

def main (xs: []i32) (ys: []i32) : []i32 =
  xs + ys
