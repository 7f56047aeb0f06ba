-- An in-place update of a slice takes a value whose size is known only at run time (a slice
-- whose bounds are not sizes, or name a variable that was rebound; a `filter`'s result), or
-- writes into such a slice: the sizes are compared when it runs. Sizes known to differ are a
-- type error (type_update_size.fut).

-- ==
-- entry: main
-- input { [0u8, 1u8, 2u8, 3u8, 4u8] 1i64 3i64 }
-- output { [1u8, 2u8, 3u8, 128u8, 1u8, 2u8, 3u8, 0u8] }
-- input { [0u8, 1u8, 2u8, 3u8, 4u8] 1i64 5i64 }
-- error: index \[1:6\] out of bounds
entry main (bs: []u8) i k =
  let k = i64.min 8 k
  let one_bit = [128u8, 1u8, 2u8, 3u8]
  let block = replicate 8 0u8
  let block[0:k] = bs[i:i + k]
  let block[k:k + 4] = one_bit
  in block

-- ==
-- entry: positives
-- input { 2i64 [1, -1, 2] }
-- output { [1, 2, 0, 0] }
-- input { 3i64 [1, -1, 2] }
-- error: size mismatch: the written value of shape \[2\] does not match the expected shape \[3\]
entry positives (n: i64) (xs: []i32) =
  let ys = replicate 4 0
  let ys[0:n] = filter (> 0) xs
  in ys
