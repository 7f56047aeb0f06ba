-- The branches of an `if` or `match` may give a sum type's payloads different sizes: the result's
-- are then known only at run time, as for arrays. A constructor whose type comes from the other
-- branch (`#some (iota x)` against an `opt ([]i64)`) takes its constructors with sizes of its own.

type opt 't = #some t | #none

def f b (x: i64) =
  if b
  then #some (iota x)
  else (#none : opt ([1]i64)) :> opt ([]i64)

-- ==
-- entry: pick
-- input { true 3i64 }
-- output { [0i64, 1i64, 2i64] }
-- input { false 3i64 }
-- output { [0i64] }
entry pick b x =
  match f b x
  case #some arr -> arr
  case #none -> [0]

def g (n: i64) : opt ([]i64) =
  if n > 0 then #some (replicate n 5) else #none

-- ==
-- entry: pairs
-- input { 2i64 }
-- output { [5i64, 5i64, 7i64, 7i64, 7i64] }
-- input { 0i64 }
-- output { [7i64, 7i64, 7i64] }
-- input { -1i64 }
-- output { empty([0]i64) }
entry pairs (n: i64) =
  let a = match g n
          case #some xs -> xs
          case #none -> []
  let b = if n >= 0 then #some (replicate 3 7) else g n
  in match b
     case #some ys -> a ++ ys
     case #none -> a
