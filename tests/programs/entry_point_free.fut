-- Entry points written point-free: a function result takes the entry point's further
-- arguments, as in Futhark.

-- ==
-- entry: incremented
-- input { [1i32, 2i32, 3i32] }
-- output { [2i32, 3i32, 4i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
entry incremented = map (+ 1i32)

-- ==
-- entry: total
-- input { [1i32, 2i32, 3i32] }
-- output { 6i32 }
entry total = i32.sum

-- ==
-- entry: scaled
-- input { 2f32 [1f32, 2f32] }
-- output { [2f32, 4f32] }
entry scaled (k: f32) = map (* k)

-- ==
-- entry: pair
-- input { 2i32 0.5f32 }
-- output { 2.5f32 2i32 }
entry pair = \(x: i32) (y: f32) -> (f32.i32 x + y, x)
