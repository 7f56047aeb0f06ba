-- Derivatives through sizes computed from others: a padded array (`[n+2]`) read through three
-- shifted slices, and `flatten` of a literal of two rows (`[2*n]`).
def pad [n] (xs: [n]f32) : [n+2]f32 = [0] ++ xs ++ [0]

def smooth [n] (xs: [n]f32) : [n]f32 =
  let p = pad xs
  in map3 (\a b c -> (a + b + c) / 3) p[0:n] p[1:n+1] p[2:n+2]

-- ==
-- entry: grad
-- input { [1f32, 2f32, 3f32, 4f32] }
-- output { [0.6666667f32, 1f32, 1f32, 0.6666667f32] }
entry grad [n] (xs: [n]f32) : [n]f32 = vjp (\v -> f32.sum (smooth v)) xs 1f32

-- ==
-- entry: twice
-- input { [1f32, 2f32] }
-- output { [2f32, 4f32] 6f32 }
entry twice [n] (xs: [n]f32) : ([n]f32, f32) =
  let f v = f32.sum (map (\x -> x * x / 2) (flatten [v, v]))
  in (vjp f xs 1f32, jvp f xs (replicate n 1))
