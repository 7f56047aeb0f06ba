-- Pattern matching with `match`: tuples of literals, wildcards, negative and boolean literals, and guards via if.

-- FizzBuzz as data: 15, 3 and 5 stand for FizzBuzz, Fizz and Buzz.
-- ==
-- entry: fizzbuzz
-- input { 15i32 }
-- output { [1i32, 2i32, 3i32, 4i32, 5i32, 3i32, 7i32, 8i32, 3i32, 5i32, 11i32, 3i32, 13i32, 14i32, 15i32] }
-- input { 1i32 }
-- output { [1i32] }
-- input { 0i32 }
-- output { empty([0]i32) }
entry fizzbuzz (n: i32) : []i32 =
  map (\i -> match (i % 3, i % 5)
             case (0, 0) -> 15
             case (0, _) -> 3
             case (_, 0) -> 5
             case _ -> i)
      (1..<(n + 1))

-- ==
-- entry: classify
-- input { [0i32, 1i32, -1i32, 5i32, -7i32] }
-- output { [0i32, 1i32, 2i32, 3i32, 3i32] }
entry classify (xs: []i32) : []i32 =
  map (\x -> match x
             case 0 -> 0
             case 1 -> 1
             case -1 -> 2
             case _ -> 3)
      xs

-- ==
-- entry: truth_table
-- input { true true }
-- output { 3i32 }
-- input { true false }
-- output { 2i32 }
-- input { false true }
-- output { 1i32 }
-- input { false false }
-- output { 0i32 }
entry truth_table (a: bool) (b: bool) : i32 =
  match (a, b)
  case (true, true) -> 3
  case (true, false) -> 2
  case (false, true) -> 1
  case (false, false) -> 0

-- A case binds variables that the branch can use.
-- ==
-- entry: quadrant
-- input { 0i32 0i32 }
-- output { 0i32 }
-- input { 0i32 2i32 }
-- output { 5i32 }
-- input { -1i32 0i32 }
-- output { 6i32 }
-- input { 1i32 1i32 }
-- output { 1i32 }
-- input { -1i32 1i32 }
-- output { 2i32 }
-- input { -1i32 -1i32 }
-- output { 3i32 }
-- input { 1i32 -1i32 }
-- output { 4i32 }
entry quadrant (x: i32) (y: i32) : i32 =
  match (x, y)
  case (0, 0) -> 0
  case (0, _) -> 5
  case (_, 0) -> 6
  case (a, b) -> if a > 0 && b > 0 then 1
                 else if a < 0 && b > 0 then 2
                 else if a < 0 then 3
                 else 4
