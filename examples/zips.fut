-- Zipping and unzipping arrays of tuples (zip..zip5, unzip..unzip5) and mapping over several arrays (map1..map5).

-- ==
-- entry: pairs
-- input { [1i32, 2i32, 3i32] [0.5f32, 0.25f32, 2.0f32] }
-- output { [0.5f32, 0.5f32, 6.0f32] [1i32, 2i32, 3i32] [0.5f32, 0.25f32, 2.0f32] }
-- input { empty([0]i32) empty([0]f32) }
-- output { empty([0]f32) empty([0]i32) empty([0]f32) }
entry pairs [n] (a: [n]i32) (b: [n]f32) : ([n]f32, [n]i32, [n]f32) =
  let ps = zip a b
  let (a', b') = unzip ps
  in (map (\(x, y) -> f32.i32 x * y) ps, a', b')

-- ==
-- entry: triples
-- input { [1i32, 2i32, 3i32] [true, false, true] [0.5f64, 1.5f64, -2.0f64] }
-- output { [2i32, 3i32, 4i32] [false, true, false] [1.0f64, 3.0f64, -4.0f64] }
-- input { empty([0]i32) empty([0]bool) empty([0]f64) }
-- output { empty([0]i32) empty([0]bool) empty([0]f64) }
entry triples [n] (a: [n]i32) (b: [n]bool) (c: [n]f64) : ([n]i32, [n]bool, [n]f64) =
  zip3 a b c |> map (\(x, y, z) -> (x + 1, !y, z * 2)) |> unzip3

-- ==
-- entry: quads
-- input { [1i64, 2i64] [3i64, 4i64] [5i64, 6i64] [7i64, 8i64] }
-- output { [3i64, 4i64] [5i64, 6i64] [7i64, 8i64] [1i64, 2i64] }
-- input { empty([0]i64) empty([0]i64) empty([0]i64) empty([0]i64) }
-- output { empty([0]i64) empty([0]i64) empty([0]i64) empty([0]i64) }
entry quads [n] (a: [n]i64) (b: [n]i64) (c: [n]i64) (d: [n]i64) : ([n]i64, [n]i64, [n]i64, [n]i64) =
  zip4 a b c d |> map (\(w, x, y, z) -> (x, y, z, w)) |> unzip4

-- ==
-- entry: quints
-- input { [1i64, 2i64] [3i64, 4i64] [5i64, 6i64] [7i64, 8i64] [9i64, 10i64] }
-- output { [9i64, 10i64] [1i64, 2i64] [3i64, 4i64] [5i64, 6i64] [7i64, 8i64] }
entry quints [n] (a: [n]i64) (b: [n]i64) (c: [n]i64) (d: [n]i64) (e: [n]i64)
    : ([n]i64, [n]i64, [n]i64, [n]i64, [n]i64) =
  zip5 a b c d e |> map (\(v, w, x, y, z) -> (z, v, w, x, y)) |> unzip5

-- ==
-- entry: increment
-- input { [1i32, 2i32] }
-- output { [2i32, 3i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
entry increment [n] (xs: [n]i32) : [n]i32 =
  map1 (+ 1) xs

-- ==
-- entry: two_products
-- input { [1.0f32, 2.0f32] [3.0f32, 4.0f32] [0.5f32, 1.0f32] [2.0f32, -2.0f32] }
-- output { [4.0f32, 6.0f32] }
entry two_products [n] (w: [n]f32) (x: [n]f32) (y: [n]f32) (z: [n]f32) : [n]f32 =
  map4 (\a b c d -> a * b + c * d) w x y z

-- ==
-- entry: select
-- input { [1i32, 2i32, 3i32] [0.5f32, 0.5f32, 0.5f32] [true, false, true] [10i64, 20i64, 30i64] [1u8, 2u8, 255u8] }
-- output { [1.5f32, 22.0f32, 3.5f32] }
entry select [n] (a: [n]i32) (b: [n]f32) (c: [n]bool) (d: [n]i64) (e: [n]u8) : [n]f32 =
  map5 (\i x pick j k -> if pick then f32.i32 i + x else f32.i64 j + f32.u8 k) a b c d e
