-- Operator precedence and associativity follow Futhark: `*` over `+`, shifts below `+`, bitwise
-- operators (all one level, left-associative) above comparisons, `&&` above `||`, `**`
-- left-associative, prefix minus tighter than any infix operator, pipes lowest.
-- ==
-- input { 6i32 }
-- output { 7i32 -2i32 24i32 true 64i32 true 2i32 false 0i32 4i32 }

def main (x: i32) : (i32, i32, i32, bool, i32, bool, i32, bool, i32, i32) =
  ( 1 + 2 * 3
  , 10 - 4 - 8
  , 1 + 2 << 3
  , x & 1 == 0
  , 2 ** 3 ** 2
  , true || false && false
  , 7 - 5 |> (* 1)
  , x > 3 && x < 5 || x == 0
  , 1 | 2 & 4
  , -2 ** 2
  )
