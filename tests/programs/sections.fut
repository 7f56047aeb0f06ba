-- Operator sections and related forms: (op), (x op), (op y) with non-commutative operators,
-- projection sections (.a.b), backticked functions, and `(-x)`, which is a negation, not a section.
-- ==
-- input { 10i32 }
-- output { 3i32 7i32 3i32 0i32 2i32 -10i32 10i32 2.5f32 4i32 }

type r = {a: {b: i32}}

def main (x: i32) : (i32, i32, i32, i32, i32, i32, i32, f32, i32) =
  let rs : []r = [{a = {b = 4}}, {a = {b = 5}}]
  in ( (-) x 7
     , (x -) 3
     , (/ 3) x
     , (3 /) x
     , (% 4) x
     , (-x)
     , x `i32.max` 3
     , (/ 4) (f32.i32 x)
     , (map (.a.b) rs)[0]
     )
