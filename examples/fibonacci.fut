-- Fibonacci numbers: a for loop over a tuple (i64, then wrapping u64), and all at once as a scan of 2x2 matrices.

-- ==
-- entry: fib
-- input { 0i32 }
-- output { 0i64 }
-- input { 1i32 }
-- output { 1i64 }
-- input { 2i32 }
-- output { 1i64 }
-- input { 10i32 }
-- output { 55i64 }
-- input { 50i32 }
-- output { 12586269025i64 }
-- input { 92i32 }
-- output { 7540113804746346429i64 }
-- input { 93i32 }
-- output { -6246583658587674878i64 }
entry fib (n: i32) : i64 =
  let (a, _) = loop (a, b) = (0i64, 1i64) for _i < n do (b, a + b)
  in a

-- u64 arithmetic wraps modulo 2^64.
-- ==
-- entry: fib_u64
-- input { 10i32 }
-- output { 55u64 }
-- input { 93i32 }
-- output { 12200160415121876738u64 }
-- input { 100i32 }
-- output { 3736710778780434371u64 }
-- input { 200i32 }
-- output { 17323038258947941269u64 }
entry fib_u64 (n: i32) : u64 =
  let (a, _) = loop (a, b) = (0u64, 1u64) for _i < n do (b, a + b)
  in a

-- A 2x2 matrix as a 4-tuple (row-major); matrix product is associative, so scan may use it.
type mat2 = (i64, i64, i64, i64)

def matmul2 ((a, b, c, d): mat2) ((e, f, g, h): mat2) : mat2 =
  (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)

-- Element i is [[1,1],[1,0]]^(i+1), whose top-right entry is fib (i+1).
-- ==
-- entry: fibs
-- input { 1i64 }
-- output { [1i64] }
-- input { 2i64 }
-- output { [1i64, 1i64] }
-- input { 10i64 }
-- output { [1i64, 1i64, 2i64, 3i64, 5i64, 8i64, 13i64, 21i64, 34i64, 55i64] }
-- input { 0i64 }
-- output { empty([0]i64) }
entry fibs (n: i64) : [n]i64 =
  let powers = scan matmul2 (1, 0, 0, 1) (replicate n (1, 1, 1, 0))
  in map (\(_, b, _, _) -> b) powers
