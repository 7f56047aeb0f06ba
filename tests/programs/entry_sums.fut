-- Entry points take and return sum types as their constructor's index (`i8`, the constructors
-- in name order) followed by every constructor's payload in that order; an inactive payload is
-- any value of its type on the way in, and zeros or empty arrays on the way out. An array of sum
-- values is an array of indices and one array per payload component. An index that names no
-- constructor is an error.

type shape = #circle f32 | #rect f32 f32

-- ==
-- entry: area
-- input { 0i8 2f32 0f32 0f32 }
-- output { 12.0f32 }
-- input { 1i8 0f32 3f32 4f32 }
-- output { 12.0f32 }
-- input { 2i8 0f32 3f32 4f32 }
-- error: argument `s` has a constructor index other than 0 \(`#circle`\), 1 \(`#rect`\)
-- input { -1i8 0f32 3f32 4f32 }
-- error: constructor index
entry area (s: shape) : f32 =
  match s
  case #circle r -> 3 * r * r
  case #rect w h -> w * h

-- ==
-- entry: areas
-- input { [0i8, 1i8, 1i8] [1f32, 0f32, 0f32] [0f32, 2f32, 5f32] [0f32, 3f32, 1f32] }
-- output { [3.0f32, 6.0f32, 5.0f32] }
-- input { [0i8, 3i8] [1f32, 0f32] [0f32, 2f32] [0f32, 3f32] }
-- error: constructor index
-- input { empty([0]i8) empty([0]f32) empty([0]f32) empty([0]f32) }
-- output { empty([0]f32) }
entry areas (ss: []shape) : []f32 = map area ss

-- ==
-- entry: grow
-- input { 1i8 0f32 3f32 4f32 }
-- output { 1i8 0f32 4f32 5f32 }
-- input { 0i8 2f32 0f32 0f32 }
-- output { 0i8 3f32 0f32 0f32 }
entry grow (s: shape) : shape =
  match s
  case #circle r -> #circle (r + 1)
  case #rect w h -> #rect (w + 1) (h + 1)

type opt 't = #none | #some t

-- ==
-- entry: find
-- input { [3, 8, 5] 8 }
-- output { 1i8 1i64 }
-- input { [3, 8, 5] 7 }
-- output { 0i8 0i64 }
entry find (xs: []i32) (x: i32) : opt i64 =
  let i = reduce i64.min (length xs) (map2 (\y i -> if y == x then i else length xs) xs (indices xs))
  in if i < length xs then #some i else #none

-- ==
-- entry: firsts
-- input { 1i8 [4, 5, 6] true 1i8 1i8 false }
-- output { 4 }
-- input { 0i8 [4, 5, 6] true 0i8 0i8 false }
-- output { 0 }
-- input { 1i8 [4, 5, 6] true 1i8 5i8 false }
-- error: constructor index
entry firsts (o: opt ([]i32)) (p: (bool, opt (opt bool))) : i32 =
  match (o, p.1)
  case (#some xs, _) -> if length xs > 0 then xs[0] else -1
  case (#none, _) -> 0
