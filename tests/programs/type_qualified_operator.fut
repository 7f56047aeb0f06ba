-- Type error: `f32.+` adds `f32`s.
-- ==
-- error: expected `f32`, found `i32`

def main (x: i32) : i32 = x f32.+ 1
