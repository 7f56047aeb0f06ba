-- A loop whose body returns arrays of different sizes from its branches: the loop parameter's
-- size changes across iterations and is known only at run time. Where every branch returns the
-- parameter or an array of the initial size, the size stays (`keep` zips with `xs`).
-- ==
-- input { [1, -2, 3, 0, 5] }
-- output { [3, 3, 3, 3, 3] [1, 3, 0, 5] [1, 3, 5] 1 [-2] [3, -6, 9, 0, 15] 42 }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) empty([0]i32) 0 empty([0]i32) empty([0]i32) 42 }

def keep [n] (xs: [n]i32) =
  let r = loop acc = replicate n 0 for i < 3 do if i == 0 then replicate n 1 else map (+ 1) acc
  in map (.0) (zip r xs)

def grow (xs: []i32) =
  loop acc = [] for x in xs do if x < 0 then acc else acc ++ [x]

def nested (xs: []i32) =
  loop (acc, k) = ([], 0) for x in xs do
    if x == 0 then (acc, k) else if x < 0 then (acc, k + 1) else (acc ++ [x], k)

def shrink [n] (xs: [n]i32) =
  loop ys = xs while length ys > 1 do
    if length ys % 2 == 0 then ys[0:length ys / 2] else ys[1:]

def keep2 [n] (xs: [n]i32) =
  let r = loop acc = xs for i < 3 do if i == 1 then acc else if i == 2 then map (* 2) acc else xs
  in map2 (+) r xs

-- A size bound inside the body (`m`) that the parameter takes in one branch.
def inner (n: i64) =
  let b = loop b = iota 10 for i < n do
            let m = i * 7 in if m < length b then b else map (\j -> j + b[j % length b]) (iota m)
  in i32.i64 (reduce (+) 0 b) % 100

def main (xs: []i32) =
  let (acc, k) = nested xs
  in (keep xs, grow xs, acc, k, shrink xs, keep2 xs, inner 3)
