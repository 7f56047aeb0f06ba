-- A parameter or a `let` may bind an operator name, `(<=)`: in its scope, the operator and its
-- sections are that value, as in Futhark; elsewhere they are the built-in ones.
-- ==
-- input { [3, 1, 2] }
-- output { [1, 2, 3] [3, 2, 1] 2 [11, 12, 13] false true 5 7 12 12 }

def sort_by [n] ((<=): i32 -> i32 -> bool) (xs: [n]i32) : [n]i32 =
  loop xs = copy xs for i < n do
    loop xs for j < n - 1 - i do
      let (a, b) = (xs[j], xs[j + 1])
      in if b <= a then (let xs[j] = b in xs with [j + 1] = a) else xs

def g (+) x y = x + y
def h (*) (x: i32) = map (* x) [1, 2, 3]
def k (<=) = (<=) 1i32 2

def main (xs: []i32) =
  let shadowed = let (+) = (i32.max) in 2 + 5
  let lf = let (*) a b = a + b in 3 * 4
  let mine = let (+^) a b = a * 10 + b in 1 +^ 2
  in (sort_by (<=) xs, sort_by (>=) xs, g (-) 5 3, h (+) 10, k (>), 1 <= 2, shadowed, lf, mine, 3 * 4)
