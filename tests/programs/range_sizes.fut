-- The ranges whose size Futhark's checker knows to be their end `n`: `0..<n`, `0..1..<n` and
-- `1..2...n` (an `i64` end), so they zip with, and return as, `[n]` arrays. Other ranges have
-- an unknown size.
-- ==
-- input { [10i64, 20i64, 30i64] }
-- output { [10i64, 21i64, 32i64] [11i64, 22i64, 33i64] [0i64, 2i64, 4i64] [1i64, 2i64, 3i64] }
-- input { empty([0]i64) }
-- error: invalid range

def main [n] (xs: [n]i64) : ([n]i64, [n]i64, [n]i64, [n]i64) =
  let a = map2 (+) xs (0..1..<n)
  let b = map2 (+) xs (1..2...n)
  let c = map2 (+) (0..<n) (0..1..<n)
  in (a, b, c, 1..2...n)
