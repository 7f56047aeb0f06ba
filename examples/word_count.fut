-- Word counting without strings: a text is an array of token ids into a vocabulary, counted by reduce_by_index.

def word_counts [n] (vocab: i64) (tokens: [n]i32) : [vocab]i64 =
  reduce_by_index (replicate vocab 0) (+) 0 (map i64.i32 tokens) (replicate n 1)

-- ==
-- entry: counts
-- input { 5i64 [0i32, 3i32, 3i32, 1i32, 0i32, 3i32] }
-- output { [2i64, 1i64, 0i64, 3i64, 0i64] }
-- input { 3i64 empty([0]i32) }
-- output { [0i64, 0i64, 0i64] }
-- input { 2i64 [1i32, 1i32, 1i32] }
-- output { [0i64, 3i64] }
-- input { 4i64 [3i32, 0i32, 2i32, 1i32] }
-- output { [1i64, 1i64, 1i64, 1i64] }
entry counts [n] (vocab: i64) (tokens: [n]i32) : [vocab]i64 =
  word_counts vocab tokens

-- The most frequent word and its count (the lowest id wins ties; -1 for an empty text).
-- ==
-- entry: most_frequent
-- input { 5i64 [0i32, 3i32, 3i32, 1i32, 0i32, 3i32] }
-- output { 3i32 3i64 }
-- input { 3i64 empty([0]i32) }
-- output { -1i32 0i64 }
-- input { 2i64 [1i32, 1i32, 1i32] }
-- output { 1i32 3i64 }
-- input { 4i64 [3i32, 0i32, 2i32, 1i32] }
-- output { 0i32 1i64 }
entry most_frequent [n] (vocab: i64) (tokens: [n]i32) : (i32, i64) =
  let better (w1, c1) (w2, c2) : (i32, i64) =
    if c1 > c2 || (c1 == c2 && w1 < w2) then (w1, c1) else (w2, c2)
  in reduce better (-1, 0) (zip (map i32.i64 (iota vocab)) (word_counts vocab tokens))

-- ==
-- entry: distinct
-- input { 5i64 [0i32, 3i32, 3i32, 1i32, 0i32, 3i32] }
-- output { 3i64 }
-- input { 3i64 empty([0]i32) }
-- output { 0i64 }
-- input { 2i64 [1i32, 1i32, 1i32] }
-- output { 1i64 }
-- input { 4i64 [3i32, 0i32, 2i32, 1i32] }
-- output { 4i64 }
entry distinct [n] (vocab: i64) (tokens: [n]i32) : i64 =
  word_counts vocab tokens |> map (\c -> if c > 0 then 1 else 0) |> i64.sum
