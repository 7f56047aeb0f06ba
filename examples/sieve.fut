-- Sieve of Eratosthenes: a while loop strikes out multiples with scatter; filter keeps the primes.

def sieve (n: i64) : []i64 =
  let len = i64.max 0 (n + 1)
  let (flags, _) =
    loop (flags, p) = (replicate len true, 2) while p * p <= n do
      if flags[p]
      then let multiples = map (\k -> p * k) (p..<(n / p + 1))
           in (scatter flags multiples (map (const false) multiples), p + 1)
      else (flags, p + 1)
  in filter (\i -> i >= 2 && flags[i]) (indices flags)

-- ==
-- entry: primes
-- input { 30i64 }
-- output { [2i64, 3i64, 5i64, 7i64, 11i64, 13i64, 17i64, 19i64, 23i64, 29i64] }
-- input { 1i64 }
-- output { empty([0]i64) }
-- input { 2i64 }
-- output { [2i64] }
-- input { 0i64 }
-- output { empty([0]i64) }
-- input { -5i64 }
-- output { empty([0]i64) }
-- input { 100i64 }
-- output { [2i64, 3i64, 5i64, 7i64, 11i64, 13i64, 17i64, 19i64, 23i64, 29i64, 31i64, 37i64, 41i64, 43i64, 47i64, 53i64, 59i64, 61i64, 67i64, 71i64, 73i64, 79i64, 83i64, 89i64, 97i64] }
entry primes (n: i64) : []i64 =
  sieve n

-- ==
-- entry: count_primes
-- input { 10i64 }
-- output { 4i64 }
-- input { 1000i64 }
-- output { 168i64 }
-- input { 10000i64 }
-- output { 1229i64 }
entry count_primes (n: i64) : i64 =
  length (sieve n)
