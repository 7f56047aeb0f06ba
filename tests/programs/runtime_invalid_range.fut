-- Run-time error: ranges whose end lies on the wrong side of the start, or whose stride is zero.
-- ==
-- input { 1i32 2i32 5i32 }
-- output { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- input { 5i32 6i32 1i32 }
-- error: [Ii]nvalid|[Rr]ange
-- input { 1i32 1i32 5i32 }
-- error: [Ii]nvalid|[Rr]ange

def main (a: i32) (second: i32) (b: i32) : []i32 =
  a..second...b
