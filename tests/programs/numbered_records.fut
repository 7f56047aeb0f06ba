-- A record whose fields are labelled 0 to n-1 is the n-tuple, as in Futhark: in values, types
-- and patterns, in any order of the labels.
-- ==
-- input { 2i32 }
-- output { 3i32 3i32 true 7i32 2i32 }

def swap ({0 = a, 1 = b}: {0: i32, 1: i32}) : (i32, i32) = (b, a)

def main (x: i32) =
  let (a, b) = {1 = x + 2, 0 = x + 1}
  let t : (i32, bool) = {0 = x * 2, 1 = true}
  let (c, d) = swap (a, b)
  in (a, d, t.1, c + b - x + 1, {x = x}.x)
