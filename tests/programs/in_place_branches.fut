-- Arrays carried through a loop's branches and inner loops are updated in place (a sieve of
-- Eratosthenes whose work is linear in its marks, not quadratic), and the results are those of
-- copying: a branch that shares one array between two results gets copies.
-- ==
-- input { 30i64 }
-- output { [2i64, 3i64, 5i64, 7i64, 11i64, 13i64, 17i64, 19i64, 23i64, 29i64] [2i64, 2i64, 3i64] [1i64, 2i64, 3i64] }
-- input { 200000i64 }
-- output { [17984i64] [2i64, 2i64, 3i64] [1i64, 2i64, 3i64] }

def sieve (n: i64) : []bool =
  let (composite, _) =
    loop (a, p) = (replicate n false, 2) while p * p < n do
      if a[p] then (a, p + 1)
      else let (a, _) = loop (a, m) = (a, p * p) while m < n do (a with [m] = true, m + p)
           in (a, p + 1)
  in composite

def shared : ([]i64, []i64) =
  loop (a, b) = (iota 3, iota 3) for i < 3 do
    if i == 1 then (let t = map (+ 1) a in (t, t))
    else (a with [0] = i, b with [1] = i)

def primes (n: i64) = let s = sieve n in filter (\i -> i >= 2 && !s[i]) (iota n)

entry main (n: i64) =
  let (a, b) = shared
  in if n < 100 then (primes n, a, b) else ([length (primes n)], a, b)
