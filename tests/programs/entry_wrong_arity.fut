-- Entry-point argument errors: too few and too many input values.
-- ==
-- input { 1i32 2i32 }
-- output { 3i32 }
-- input { 1i32 }
-- error: argument
-- input { 1i32 2i32 3i32 }
-- error: argument

def main (x: i32) (y: i32) : i32 =
  x + y
