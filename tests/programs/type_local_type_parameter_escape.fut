-- Type error: a local function's type parameter stands for a different type at each use, so a
-- value from outside the function cannot have it as its type.
-- ==
-- error: the type parameter `b` of the local function `g` would escape its scope

def f x =
  let g 'b (y: b) = if true then y else x
  in g

def main (x: i32) = f x x
