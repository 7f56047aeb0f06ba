-- Higher-order functions: functions as arguments and results, sections, pipes and composition.

-- Applies f n times.
def apply_n 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x

-- Returns a partially applied operator.
def adder (k: i32) : i32 -> i32 = (+ k)

-- Returns a lambda that closes over its arguments.
def affine (a: f32) (b: f32) : f32 -> f32 = \x -> a * x + b

-- A lifted type parameter ('^) may be instantiated with a function type.
def first '^a '^b (x: a) (_: b) : a = x

-- ==
-- entry: pipeline
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { 14i32 }
-- input { empty([0]i32) }
-- output { 0i32 }
-- input { [-5i32, 10i32] }
-- output { 20i32 }
entry pipeline (xs: []i32) : i32 =
  xs |> map (* 2) |> filter (> 4) |> reduce (+) 0

-- f >-> g applies f first; g <-< f is the same function.
-- ==
-- entry: composed
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [6i32, 9i32, 12i32, 15i32] [4i32, 7i32, 10i32, 13i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }
-- input { [-5i32, 10i32] }
-- output { [-12i32, 33i32] [-14i32, 31i32] }
entry composed [n] (xs: [n]i32) : ([n]i32, [n]i32) =
  (map ((+ 1) >-> (* 3)) xs, map ((+ 1) <-< (* 3)) xs)

-- ==
-- entry: backwards
-- input { 3i32 }
-- output { 7i32 }
-- input { 15i32 }
-- output { 5i32 }
entry backwards (x: i32) : i32 =
  i32.abs <| x - 10

-- ==
-- entry: sections
-- input { 7i32 }
-- output { 14i32 14i32 3i32 3i32 false }
-- input { -4i32 }
-- output { -8i32 -8i32 14i32 -2i32 true }
entry sections (x: i32) : (i32, i32, i32, i32, bool) =
  ((2 *) x, (* 2) x, (10 -) x, (/ 2) x, (< 5) x)

-- ==
-- entry: combinators
-- input { 10i32 3i32 }
-- output { -7i32 7i32 103i32 13i32 10i32 10i32 }
-- input { -2i32 5i32 }
-- output { 7i32 -7i32 -15i32 3i32 -2i32 -2i32 }
entry combinators (x: i32) (y: i32) : (i32, i32, i32, i32, i32, i32) =
  ( flip (-) x y
  , (-) x y
  , curry (\(a, b) -> a * 10 + b) x y
  , uncurry (+) (x, y)
  , id x
  , const x y
  )

-- ==
-- entry: affine_map
-- input { 2.0f32 1.0f32 [0.0f32, 1.0f32, -0.5f32] }
-- output { [1.0f32, 3.0f32, 0.0f32] }
-- input { 0.5f32 0.0f32 empty([0]f32) }
-- output { empty([0]f32) }
entry affine_map [n] (a: f32) (b: f32) (xs: [n]f32) : [n]f32 =
  map (affine a b) xs

-- ==
-- entry: iterate
-- input { 3i32 1i32 }
-- output { 10i32 15i32 10i32 6i32 }
-- input { 0i32 5i32 }
-- output { 5i32 5i32 5i32 6i32 }
-- input { 10i32 1i32 }
-- output { 31i32 2047i32 101i32 6i32 }
entry iterate (n: i32) (x: i32) : (i32, i32, i32, i32) =
  ( apply_n n (adder 3) x
  , apply_n n (\y -> y * 2 + 1) x
  , apply_n n (adder n) x
  , (first (+ 1) (* 2)) 5
  )
