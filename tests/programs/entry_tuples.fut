-- Entry points take and return tuples, records and arrays of them as their components: a record
-- by its field names' order, an array of tuples as one array per component (whose lengths must
-- agree), and `()` as nothing.
-- ==
-- entry: pairs
-- input { [1f32, 2f32] [10, 20] 0.5f32 3f32 }
-- output { [3.5f32, 6.5f32] [11, 21] }
-- input { [1f32, 2f32] [10] 0.5f32 3f32 }
-- error: size mismatch

-- ==
-- entry: swap
-- input { 1 2i64 }
-- output { 2i64 1 }

-- ==
-- entry: unit
-- input { }
-- output { 7 }

-- ==
-- entry: nested
-- input { [true, false] [[1, 2], [3, 4]] }
-- output { [3, 7] 2i64 [false, true] }

entry pairs (ps: [](f32, i32)) (r: {scale: f32, bias: f32}) : [](f32, i32) =
  map (\(x, i) -> (x * r.scale + r.bias, i + 1)) ps

entry swap (p: (i32, i64)) : (i64, i32) = (p.1, p.0)

entry unit () : i32 = 7

entry nested [n] (a: {rows: [n][2]i32, keep: [n]bool}) : ([n]i32, {flipped: [n]bool, count: i64}) =
  (map i32.sum a.rows, {flipped = map (\k -> !k) a.keep, count = n})
