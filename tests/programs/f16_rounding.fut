-- f16 arithmetic rounds to nearest, ties to even, after every operation; overflow gives
-- infinity and results below the smallest normal f16 are subnormal. Results as bit patterns,
-- so every backend must agree exactly.

-- ==
-- entry: arith
-- input { [1.0f16, 1.0009765625f16, 65504.0f16, 65504.0f16, 0.00006103515625f16, 0.000000059604645f16, 0.000000059604645f16, -3.0f16]
--         [0.00048828125f16, 0.00048828125f16, 16.0f16, 8.0f16, 0.5f16, 0.5f16, 0.75f16, 7.0f16] }
-- output { [15360u16, 15362u16, 31744u16, 31743u16, 14336u16, 14336u16, 14848u16, 17408u16] [4096u16, 4097u16, 31744u16, 31744u16, 512u16, 0u16, 1u16, 52544u16] [26624u16, 26625u16, 27647u16, 28671u16, 2048u16, 2u16, 1u16, 46811u16] [15360u16, 15360u16, 23551u16, 23551u16, 8192u16, 3072u16, 3072u16, 16110u16] }
entry arith (xs: []f16) (ys: []f16) : ([]u16, []u16, []u16, []u16) =
  (map2 (\x y -> f16.to_bits (x + y)) xs ys,
   map2 (\x y -> f16.to_bits (x * y)) xs ys,
   map2 (\x y -> f16.to_bits (x / y)) xs ys,
   map (\x -> f16.to_bits (f16.sqrt (f16.abs x))) xs)

-- ==
-- entry: conversions
-- input { [0.1f32, 70000.0f32, -65520.0f32, 1e-8f32, 3.0e-8f32, 2049.0f32] [2049i32, 70000i32, -7i32, 4097i32, 0i32, 1i32] }
-- output { [11878u16, 31744u16, 64512u16, 0u16, 1u16, 26624u16] [26624u16, 31744u16, 50944u16, 27648u16, 0u16, 15360u16] [0i32, 0i32, 0i32, 0i32, 0i32, 2048i32] }
entry conversions (fs: []f32) (is: []i32) : ([]u16, []u16, []i32) =
  (map (\x -> f16.to_bits (f16.f32 x)) fs,
   map (\i -> f16.to_bits (f16.i32 i)) is,
   map (\x -> i32.f16 (f16.f32 x)) fs)

-- ==
-- entry: from_bits
-- input { [0x0001u16, 0x03ffu16, 0x0400u16, 0x7bffu16, 0x7c00u16, 0x8001u16, 0xfc00u16, 0x3c00u16] }
-- output { [5.9604645e-8f32, 6.097555e-5f32, 6.1035156e-5f32, 65504.0f32, f32.inf, -5.9604645e-8f32, -f32.inf, 1.0f32] [false, false, false, false, true, false, true, false] [2u16, 2046u16, 2048u16, 31744u16, 31744u16, 32770u16, 64512u16, 16384u16] }
entry from_bits (bs: []u16) : ([]f32, []bool, []u16) =
  (map (\b -> f32.f16 (f16.from_bits b)) bs,
   map (\b -> f16.isinf (f16.from_bits b)) bs,
   map (\b -> f16.to_bits (f16.from_bits b * 2)) bs)

-- ==
-- entry: sums
-- input { [0.5f16, 0.25f16, 1.5f16, 100.0f16, 0.125f16, 2.0f16] }
-- output { 104.375f16 [0.5f16, 0.75f16, 2.25f16, 102.25f16, 102.375f16, 104.375f16] 2.8398438f16 }
entry sums (xs: []f16) : (f16, []f16, f16) =
  (reduce (+) 0 xs, scan (+) 0 xs, f16.exp (f16.sum xs / 100))
