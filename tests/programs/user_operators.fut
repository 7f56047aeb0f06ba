-- A program's own operators (prefix and infix definitions, sections, AUTOMAP over them) and
-- attributes, which are read and ignored.

type pt = {x: f32, y: f32}

def (a: pt) +^ (b: pt) : pt = {x = a.x + b.x, y = a.y + b.y}

def (<+>) (x: f32) (y: f32) : f32 = x * 10 + y

def a |+| b = a + b * 2

#[inline]
def (*.) [n] (xs: [n]f32) (ys: [n]f32) : f32 = f32.sum (map2 (*) xs ys)

-- ==
-- entry: main
-- input { [1f32, 2f32] [3f32, 4f32] }
-- output { [13f32, 24f32] 11f32 [11f32, 21f32] [21f32, 22f32] [11f32, 21f32] 11i32 123f32 4f32 6f32 }
entry main [n] (xs: [n]f32) (ys: [n]f32) : ([n]f32, f32, [n]f32, [n]f32, [n]f32, i32, f32, f32, f32) =
  let p = #[unsafe] ({x = 1, y = 2} +^ {x = 3, y = 4})
  in ( map2 (<+>) xs ys
     , xs *. ys
     , map (<+> 1) xs
     , map (2 <+>) xs
     , xs <+> 1
     , 1 |+| 2 |+| 3
     , #[sequential] (1 <+> 2 <+> 3)
     , p.x
     , p.y
     )

-- ==
-- entry: rows
-- input { [[1f32, 2f32], [3f32, 4f32]] }
-- output { [5f32, 25f32] }
entry rows [n] [m] (xss: [n][m]f32) : [n]f32 =
  #[sequential_inner] map2 (*.) xss xss

-- ==
-- entry: local_operator
-- input { [1f32, 3f32] }
-- output { [0f32, 2f32] 4f32 }
entry local_operator [n] (xs: [n]f32) : ([n]f32, f32) =
  let (<->) (a: f32) (b: f32) : f32 = f32.abs (a - b)
  in (map (<-> 1) xs, xs[0] <-> 5)

-- The numeric modules' operators: `f32.+` is `+` on `f32`.
-- ==
-- entry: qualified
-- input { [1f32, 2f32] 3 4 }
-- output { 3f32 13i32 true [2f32, 4f32] [0f32, -1f32] [false, true] }
entry qualified (xs: []f32) (a: i32) (b: i32) : (f32, i32, bool, []f32, []f32, []bool) =
  (reduce (f32.+) 0 xs, a i32.* b i32.+ 1, a i32.< b, map (f32.* 2) xs, map (1 f32.-) xs, map (f32.> 1) xs)
