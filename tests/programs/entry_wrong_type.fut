-- Entry-point argument errors: an input value of the wrong element type or rank.
-- ==
-- input { [1i32, 2i32] }
-- output { 3i32 }
-- input { [1.5f32, 2.0f32] }
-- error: expected|mismatch|argument
-- input { [[1i32], [2i32]] }
-- error: expected|mismatch|argument
-- input { 1i32 }
-- error: expected|mismatch|argument

def main (xs: []i32) : i32 =
  reduce (+) 0 xs
