-- Branches whose sizes are a parameter's and one computed from a local variable (`index - 1`)
-- give the `if` a size known only at run time; the parameter's size stays its own.
-- ==
-- input { [97u8, 98u8, 99u8, 100u8, 101u8, 102u8, 103u8, 104u8] }
-- output { [97u8, 98u8, 99u8, 100u8, 101u8] }
-- input { [97u8, 98u8] }
-- output { [97u8, 98u8] }
-- input { [97u8, 128u8, 129u8, 98u8, 99u8, 100u8, 101u8, 102u8] }
-- output { [97u8, 128u8, 129u8, 98u8, 99u8, 100u8, 101u8] }

-- The first 6 UTF-8 code points, less the last byte, if there are 6.
def truncate (phrase: []u8) : []u8 =
  let (index, count) =
    loop (index, count) = (0, 0) while index < length phrase && count < 6 do
      if (phrase[index] & 0xc0) == 0x80 then (index + 1, count) else (index + 1, count + 1)
  in if count == 6 then phrase[0:index - 1] else phrase

entry main (phrase: []u8) : []u8 = truncate phrase
