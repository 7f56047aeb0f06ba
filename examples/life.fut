-- One step of Conway's game of life on a torus; neighbours are counted by rotating the board.

def shifted [n][m] (cells: [n][m]i32) (dr: i64) (dc: i64) : [n][m]i32 =
  map (rotate dc) (rotate dr cells)

-- ==
-- entry: step
-- input { [[false, false, false, false, false], [false, false, false, false, false], [false, true, true, true, false], [false, false, false, false, false], [false, false, false, false, false]] }
-- output { [[false, false, false, false, false], [false, false, true, false, false], [false, false, true, false, false], [false, false, true, false, false], [false, false, false, false, false]] }
-- input { [[false, true, false, false, false, false], [false, false, true, false, false, false], [true, true, true, false, false, false], [false, false, false, false, false, false], [false, false, false, false, false, false], [false, false, false, false, false, false]] }
-- output { [[false, false, false, false, false, false], [true, false, true, false, false, false], [false, true, true, false, false, false], [false, true, false, false, false, false], [false, false, false, false, false, false], [false, false, false, false, false, false]] }
-- input { [[false, false, false, false], [false, true, true, false], [false, true, true, false], [false, false, false, false]] }
-- output { [[false, false, false, false], [false, true, true, false], [false, true, true, false], [false, false, false, false]] }
-- input { [[true]] }
-- output { [[false]] }
-- input { [[true, true, false], [true, false, false]] }
-- output { [[true, true, false], [false, false, false]] }
-- input { empty([0][0]bool) }
-- output { empty([0][0]bool) }
-- random input { [32][32]bool }
entry step [n][m] (board: [n][m]bool) : [n][m]bool =
  let cells = map (map i32.bool) board
  let offsets = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
  let neighbours =
    foldl (\acc (dr, dc) -> map2 (map2 (+)) acc (shifted cells dr dc))
          (replicate n (replicate m 0))
          offsets
  in map2 (map2 (\alive k -> k == 3 || (alive && k == 2))) board neighbours
