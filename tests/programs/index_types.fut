-- A point index may be any signed integer type, as in Futhark (slice bounds are i64); it is
-- checked against the bounds like any other.

-- ==
-- input { [10f32, 20f32, 30f32] 2i32 1i8 }
-- output { 30f32 20f32 10f32 [10f32, 7f32, 30f32] [20f32, 30f32] }
-- input { [10f32, 20f32, 30f32] -1i32 0i8 }
-- error: index \[-1\] out of bounds
def main (xs: []f32) (i: i32) (j: i8) : (f32, f32, f32, []f32, []f32) =
  let k = 0
  let ys = copy xs with [j] = 7
  in (xs[i], xs[j], xs[k], ys, map (\(p: i16) -> xs[p]) [1, 2])
