-- A declared return type's unknown sizes may sit anywhere in it, a sum type's payload and a
-- type abbreviation included: the body has any sizes there, and each call gets fresh ones.
-- ==
-- input { 2i64 }
-- output { [0i64, 1i64] 2i64 }
-- input { 0i64 }
-- output { empty([0]i64) 0i64 }

type~ t = #foo []i64 | #bar

def mk (n: i64) : t = if n > 0 then #foo (iota n) else #bar

entry main (n: i64) : ([]i64, i64) =
  let xs = match mk n
           case #foo xs -> xs
           case #bar -> []
  in (xs, length xs)
