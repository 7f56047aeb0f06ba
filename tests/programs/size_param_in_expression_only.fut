-- Type error: a size parameter must be a whole dimension of some parameter; inside a computed
-- size (`[n+1]`) a call could not tell it.
-- ==
-- error: the size parameter `n` is not the size of any parameter(.|\n)*appears only in the computed size `n \+ 1`

def main [n] (xs: [n+1]i32) : i32 = i32.sum xs
