-- A 3x3 box blur of an 8-bit greyscale image: u8 pixels are summed as i32, edges clamp.

-- ==
-- input { [[0u8, 0u8, 0u8], [0u8, 90u8, 0u8], [0u8, 0u8, 0u8]] }
-- output { [[10u8, 10u8, 10u8], [10u8, 10u8, 10u8], [10u8, 10u8, 10u8]] }
-- input { [[255u8, 255u8], [255u8, 255u8]] }
-- output { [[255u8, 255u8], [255u8, 255u8]] }
-- input { [[200u8, 10u8, 250u8, 0u8]] }
-- output { [[136u8, 153u8, 86u8, 83u8]] }
-- input { [[7u8]] }
-- output { [[7u8]] }
-- input { [[0u8, 255u8, 0u8, 255u8], [255u8, 0u8, 255u8, 0u8], [100u8, 100u8, 100u8, 100u8]] }
-- output { [[113u8, 113u8, 141u8, 141u8], [118u8, 118u8, 118u8, 118u8], [123u8, 123u8, 95u8, 95u8]] }
-- input { empty([0][5]u8) }
-- output { empty([0][5]u8) }
-- random input { [64][64]u8 }
entry main [n][m] (img: [n][m]u8) : [n][m]u8 =
  let at (r: i64) (c: i64) : i32 =
    i32.u8 img[i64.max 0 (i64.min (n - 1) r), i64.max 0 (i64.min (m - 1) c)]
  in tabulate_2d n m (\r c ->
       let s = loop s = 0 for dr in [-1, 0, 1] do
                 loop s for dc in [-1, 0, 1] do
                   s + at (r + dr) (c + dc)
       in u8.i32 (s / 9))
