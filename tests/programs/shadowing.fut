-- Scoping: locals shadow top-level definitions, user definitions shadow prelude functions, and
-- lambda and loop parameters shadow outer names. (Two top-level definitions of one name are an
-- error, as in Futhark: type_duplicate_definition.fut.)
-- ==
-- input { 5i32 }
-- output { 12i32 6i32 7i32 3i64 25i32 10i32 }

def x : i32 = 100

def f (y: i32) : i32 = y + 2

-- A user-defined `length` shadows the prelude's.
def length [n] 't (_: [n]t) : i64 = 3

def main (x: i32) : (i32, i32, i32, i64, i32, i32) =
  let a = let x = x + 2 in x + x
  let b = (\x -> x + 1) x
  let c = f x
  let d = length [1, 2, 3, 4, 5, 6]
  let e = let x = x * x in x
  let g = loop x = x for i < 5 do x + 1
  in (a - 2, b, c, d, e, g)
