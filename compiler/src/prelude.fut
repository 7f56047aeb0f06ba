-- The prelude: the library functions that are ordinary source, with Futhark's types. The
-- intrinsics (map, reduce, scan, filter, zip, iota, replicate, the numeric modules, ...) are typed
-- from their signatures in intrinsics.rs and implemented by lowering directly.
--
-- A definition only sees those above it.

def id '^a (x: a) : a = x

def const '^a '^b (x: a) (_: b) : a = x

def flip '^a '^b '^c (f: a -> b -> c) (b: b) (a: a) : c = f a b

def curry '^a '^b '^c (f: (a, b) -> c) (a: a) (b: b) : c = f (a, b)

def uncurry '^a '^b '^c (f: a -> b -> c) (p: (a, b)) : c = f p.0 p.1

def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x

def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while !(p x) do f x

def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while p x do f x

def zip2 [n] 'a 'b (xs: [n]a) (ys: [n]b) : *[n](a, b) = zip xs ys

def unzip2 [n] 'a 'b (xs: [n](a, b)) : ([n]a, [n]b) = unzip xs

def map1 'a [n] 'x (f: a -> x) (xs: [n]a) : *[n]x = map f xs

def map2 'a 'b [n] 'x (f: a -> b -> x) (xs: [n]a) (ys: [n]b) : *[n]x =
  map (\(x, y) -> f x y) (zip xs ys)

def map3 'a 'b 'c [n] 'x (f: a -> b -> c -> x) (xs: [n]a) (ys: [n]b) (zs: [n]c) : *[n]x =
  map (\(x, y, z) -> f x y z) (zip3 xs ys zs)

def map4 'a 'b 'c 'd [n] 'x (f: a -> b -> c -> d -> x) (xs: [n]a) (ys: [n]b) (zs: [n]c) (ws: [n]d) : *[n]x =
  map (\(x, y, z, w) -> f x y z w) (zip4 xs ys zs ws)

def map5 'a 'b 'c 'd 'e [n] 'x (f: a -> b -> c -> d -> e -> x) (xs: [n]a) (ys: [n]b) (zs: [n]c) (ws: [n]d) (vs: [n]e) : *[n]x =
  map (\(x, y, z, w, v) -> f x y z w v) (zip5 xs ys zs ws vs)

def length [n] 't (_: [n]t) : i64 = n

def null [n] 't (_: [n]t) : bool = n == 0

def sized [m] 't (n: i64) (xs: [m]t) : [n]t = xs :> [n]t

-- Arrays are immutable and a copy is laid out in row-major order, which is all Futhark promises.
def manifest 't (a: t) : *t = copy a

-- A barrier to Futhark's optimiser; the value itself.
def opaque '^t (x: t) : t = x

def flatten_3d [n] [m] [l] 't (xs: [n][m][l]t) : [n*m*l]t = flatten (flatten xs)

def flatten_4d [n] [m] [l] [k] 't (xs: [n][m][l][k]t) : [n*m*l*k]t = flatten (flatten_3d xs)

def head [n] 't (xs: [n]t) : t = xs[0]

def last [n] 't (xs: [n]t) : t = xs[n - 1]

def tail [n] 't (xs: [n]t) : [n-1]t = xs[1:]

def init [n] 't (xs: [n]t) : [n-1]t = xs[0:n - 1]

def take [n] 't (i: i64) (xs: [n]t) : [i]t = xs[0:i]

def drop [n] 't (i: i64) (xs: [n]t) : [n-i]t = xs[i:]

def split [n] 't (i: i64) (xs: [n]t) : ([i]t, [n-i]t) = (xs[0:i], xs[i:])

def reverse [n] 't (xs: [n]t) : [n]t = xs[::-1] :> [n]t

def rotate [n] 't (r: i64) (xs: [n]t) : [n]t = map (\i -> xs[(i + r) % n]) (iota n)

def indices [n] 't (_: [n]t) : *[n]i64 = iota n

-- The exclusive scan: element i folds the elements before i (the first is `ne`).
def exscan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a =
  let s = scan op ne as
  in map (\i -> if i == 0 then ne else s[i - 1]) (iota n)

def foldl [n] 'a 'b (f: a -> b -> a) (acc: a) (bs: [n]b) : a =
  loop acc for b in bs do f acc b

def foldr [n] 'a 'b (f: b -> a -> a) (acc: a) (bs: [n]b) : a =
  foldl (flip f) acc (reverse bs)

def tabulate 'a (n: i64) (f: i64 -> a) : *[n]a = map1 f (iota n)

def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a) : *[n][m]a =
  map1 (f >-> tabulate m) (iota n)

def tabulate_3d 'a (n: i64) (m: i64) (o: i64) (f: i64 -> i64 -> i64 -> a) : *[n][m][o]a =
  map1 (f >-> tabulate_2d m o) (iota n)

def all [n] 'a (f: a -> bool) (xs: [n]a) : bool = reduce (&&) true (map f xs)

def any [n] 'a (f: a -> bool) (xs: [n]a) : bool = reduce (||) false (map f xs)

def and [n] (xs: [n]bool) : bool = all id xs

def or [n] (xs: [n]bool) : bool = any id xs

def partition2 [n] 'a (p1: a -> bool) (p2: a -> bool) (xs: [n]a) : ([]a, []a, []a) =
  ( filter p1 xs
  , filter (\x -> !(p1 x) && p2 x) xs
  , filter (\x -> !(p1 x) && !(p2 x)) xs
  )

def spread 't [n] (k: i64) (x: t) (is: [n]i64) (vs: [n]t) : *[k]t =
  scatter (replicate k x) is vs

-- The streams may split the array into chunks of any sizes (and combine per-chunk results with
-- `op`); one chunk, the whole array, is one such split, which any program correct in Futhark
-- computes the same with.
def map_stream [n] 'a 'b (f: (k: i64) -> [k]a -> [k]b) (as: [n]a) : *[n]b = copy (f n as)

def map_stream_per [n] 'a 'b (f: (k: i64) -> [k]a -> [k]b) (as: [n]a) : *[n]b = copy (f n as)

def reduce_stream [n] 'a 'b (_op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a) : b = f n as

def reduce_stream_per [n] 'a 'b (_op: b -> b -> b) (f: (k: i64) -> [k]a -> b) (as: [n]a) : b =
  f n as

-- Out-of-bounds indices are ignored, as in every dimension of Futhark's: an index outside any
-- dimension becomes -1 in the flattened histogram.
def reduce_by_index_2d 'a [k] [n] [m] (dest: *[k][m]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64)) (as: [n]a) : *[k][m]a =
  let flat = map (\(i, j) -> if i >= 0 && i < k && j >= 0 && j < m then i * m + j else -1) is
  in unflatten (reduce_by_index (flatten dest) f ne flat as)

def reduce_by_index_3d 'a [k] [n] [m] [l] (dest: *[k][m][l]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64, i64)) (as: [n]a) : *[k][m][l]a =
  let flat =
    map (\(i, j, h) ->
           if i >= 0 && i < k && j >= 0 && j < m && h >= 0 && h < l then (i * m + j) * l + h else -1)
        is
  in unflatten_3d (reduce_by_index (flatten_3d dest) f ne flat as)
