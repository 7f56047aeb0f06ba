-- AUTOMAP (seed note AT-21): the X-matrix check with every map removed and `A` unannotated. The
-- minimal elaborations read `A` as a scalar or a vector, never as the intended matrix.
-- ==
-- error: ambiguous

def outerprod f xs ys = map (\x -> f x ys) xs

def bidd A = outerprod (==) (indices A) (indices A)

def xmat A = bidd A || reverse (bidd A)

def check A = xmat A == (A != 0) |> flatten |> and

def main (a: [][]i32) : bool = check a
