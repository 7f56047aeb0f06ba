def fact (n: i32) : i32 = loop acc = 1 for i < n do acc * (i + 1)

def sum_all [n] (xs: [n]i64) : i64 = loop s = 0i64 for x in xs do s + x

def collatz (n: i64) : i32 =
  let (_, steps) =
    loop (x, steps) = (n, 0) while x != 1 do
      if x % 2 == 0 then (x / 2, steps + 1) else (3 * x + 1, steps + 1)
  in steps

def fib (n: i32) : i64 =
  let (a, _) = loop (a, b) = (0i64, 1i64) for _i < n do (b, a + b)
  in a

def prefix_sums [n] (xs: [n]i32) : [n]i32 =
  let out = replicate n 0
  let acc = 0
  let (out, _) =
    loop (out, acc) for i < n do
      let acc = acc + xs[i]
      let out[i] = acc
      in (out, acc)
  in out

entry main (n: i32) = (fact n, fib n, collatz (i64.i32 n))
