-- Sequential loops: `for i < n`, `for x in xs` and `while`, with single and tuple loop parameters.

-- ==
-- entry: gcd
-- input { 48i64 18i64 }
-- output { 6i64 }
-- input { 17i64 5i64 }
-- output { 1i64 }
-- input { 0i64 9i64 }
-- output { 9i64 }
-- input { 12i64 0i64 }
-- output { 12i64 }
-- input { 1071i64 462i64 }
-- output { 21i64 }
entry gcd (a: i64) (b: i64) : i64 =
  let (a, _) = loop (a, b) while b != 0 do (b, a % b)
  in a

-- Steps of the Collatz sequence until it reaches 1.
-- ==
-- entry: collatz
-- input { 1i32 }
-- output { 0i32 }
-- input { 6i32 }
-- output { 8i32 }
-- input { 27i32 }
-- output { 111i32 }
-- input { 97i32 }
-- output { 118i32 }
entry collatz (n: i32) : i32 =
  let (_, steps) =
    loop (n, steps) = (n, 0) while n != 1 do
      ((if n % 2 == 0 then n / 2 else 3 * n + 1), steps + 1)
  in steps

-- ==
-- entry: alternating_sum
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { 3i32 }
-- input { empty([0]i32) }
-- output { 0i32 }
-- input { [10i32] }
-- output { 10i32 }
entry alternating_sum (xs: []i32) : i32 =
  let (s, _) = loop (s, sign) = (0, 1) for x in xs do (s + sign * x, -sign)
  in s

-- Fill the lower triangle of a matrix in place, one row at a time.
-- ==
-- entry: lower_triangle
-- input { 3i64 }
-- output { [[0i32, 0i32, 0i32], [3i32, 4i32, 0i32], [6i32, 7i32, 8i32]] }
-- input { 1i64 }
-- output { [[0i32]] }
-- input { 0i64 }
-- output { empty([0][0]i32) }
entry lower_triangle (n: i64) : [n][n]i32 =
  loop m = replicate n (replicate n 0i32) for i < n do
    loop m for j < i + 1 do
      m with [i, j] = i32.i64 (i * n + j)

-- ==
-- entry: power
-- input { 2i64 10i32 }
-- output { 1024i64 1024i64 }
-- input { 3i64 0i32 }
-- output { 1i64 1i64 }
-- input { -2i64 5i32 }
-- output { -32i64 -32i64 }
-- input { 10i64 18i32 }
-- output { 1000000000000000000i64 1000000000000000000i64 }
entry power (b: i64) (e: i32) : (i64, i64) =
  let r = loop r = 1 for _i < e do r * b
  in (r, b ** i64.i32 e)
