-- 64-bit integers whose values fit in 32 bits, at the edges of that range: the GPU backend
-- computes i64 and u64 in 32 bits and must give the 64-bit results exactly (or report that a
-- value needs 64 bits, which none of these does).

-- Products, sums and differences that just fit.
-- ==
-- entry: arith
-- input { [46340i64, -46341i64, 2147483647i64, -2147483648i64, -2147483647i64]
--         [46340i64, 46340i64, 0i64, 0i64, -1i64] }
-- output { [2147395600i64, -2147441940i64, 0i64, 0i64, 2147483647i64]
--          [92680i64, -1i64, 2147483647i64, -2147483648i64, -2147483648i64]
--          [0i64, -92681i64, 2147483647i64, -2147483648i64, -2147483646i64] }
entry arith (xs: []i64) (ys: []i64) =
  (map2 (*) xs ys, map2 (+) xs ys, map2 (-) xs ys)

-- Leading and trailing zeros and set bits count all 64 bits.
-- ==
-- entry: bit_counts
-- input { [0i64, 1i64, -1i64, -2147483648i64, 2147483647i64] [0u64, 1u64, 4294967295u64] }
-- output { [64, 63, 0, 0, 33] [64, 0, 0, 31, 0] [0, 1, 64, 33, 31]
--          [64, 63, 32] [64, 0, 0] [0, 1, 32] }
entry bit_counts (xs: []i64) (us: []u64) =
  ( map i64.clz xs, map i64.ctz xs, map i64.popc xs
  , map u64.clz us, map u64.ctz us, map u64.popc us )

-- Shifts whose 64-bit results fit: bits shifted out of the low word are all sign bits, or
-- everything is shifted past bit 63.
-- ==
-- entry: shifts
-- input { [-1i64, 1i64, -2147483648i64, 3i64, 5i64] [31i64, 30i64, 33i64, 64i64, 0i64] }
-- output { [-2147483648i64, 1073741824i64, 0i64, 0i64, 5i64]
--          [-1i64, 0i64, -1i64, 0i64, 5i64] }
entry shifts (xs: []i64) (ks: []i64) =
  (map2 (<<) xs ks, map2 (>>) xs ks)

-- Floats converted to integers truncate, and wrap beyond the integer's range.
-- ==
-- entry: conversions
-- input { [3.0e9f32, -3.0e9f32, 2.5f32, -2.5f32, 1.8446744e19f32, 1.0e20f32] }
-- output { [-1294967296i32, 1294967296i32, 2i32, -2i32, 0i32, 0i32]
--          [3000000000u32, 1294967296u32, 2u32, 4294967294u32, 0u32, 0u32]
--          [2147483520i64, -2147483648i64]
--          [0u64, 4294967040u64] }
entry conversions (xs: []f32) =
  ( map i32.f32 xs, map u32.f32 xs
  , map i64.f32 [2147483520f32, -2147483648f32]
  , map u64.f32 [-0.5f32, 4294967040f32] )
