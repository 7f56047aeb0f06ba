-- Numeric module members beyond arithmetic: high halves of products, bitwise `not`, and the
-- float members `recip`, `rsqrt`, `mad`, `to_f64`, `num_bits`, `get_bit`, `set_bit`.

-- ==
-- entry: high_halves
-- input { 123456789i32 987654321i32 -123456789i32 }
-- output { 28389652i32 -28389653i32 4294967294u32 64i8 156u8 28389657i32 }
entry high_halves (a: i32) (b: i32) (c: i32) : (i32, i32, u32, i8, u8, i32) =
  ( i32.mul_hi a b
  , i32.mul_hi c b
  , u32.mul_hi 0xffffffff 0xffffffff
  , i8.mul_hi (-128) (-128)
  , u8.mul_hi 200 200
  , i32.mad_hi a b 5
  )

-- ==
-- entry: high_halves_64
-- input { 1311768467463790320i64 1147797409030816545i64 }
-- output { 81621149086635842i64 -81621149086635843i64 0i64 4611686018427387904i64 -4611686018427387904i64 18446744073709551614u64 1305938385386173474u64 }
entry high_halves_64 (a: i64) (b: i64) : (i64, i64, i64, i64, i64, u64, u64) =
  ( i64.mul_hi a b
  , i64.mul_hi (-a) b
  , i64.mul_hi (-1) (-1)
  , i64.mul_hi i64.lowest i64.lowest
  , i64.mul_hi i64.lowest i64.highest
  , u64.mul_hi u64.highest u64.highest
  , u64.mul_hi 0xfedcba9876543210 0x123456789abcdef0
  )

-- ==
-- entry: bits
-- input { 0i32 }
-- output { -1i32 254u8 32i32 16i32 1i32 1i32 0i32 -1f32 3f32 }
entry bits (z: i32) : (i32, u8, i32, i32, i32, i32, i32, f32, f32) =
  ( i32.not z
  , u8.not 1
  , f32.num_bits
  , f16.num_bits
  , f32.get_bit 31 (-1f32)
  , f32.get_bit 23 1f32
  , f32.get_bit 22 1f32
  , f32.set_bit 31 1f32 1
  , f32.set_bit 22 2f32 1
  )

-- ==
-- entry: reals
-- input { 4f32 }
-- output { 0.25f32 0.5f32 10f64 0.10000000149011612f64 64i32 1i32 }
entry reals (x: f32) : (f32, f32, f64, f64, i32, i32) =
  (f32.recip x, f32.rsqrt x, f64.mad 2 3 4, f32.to_f64 0.1, f64.num_bits, f32.get_bit 30 2f32)

-- ==
-- entry: reals_gpu
-- input { [1f32, 4f32, 0.25f32] }
-- output { [1f32, 0.25f32, 4f32] [1f32, 0.5f32, 2f32] [3f32, 9f32, 1.5f32] }
entry reals_gpu (xs: []f32) : ([]f32, []f32, []f32) =
  (map f32.recip xs, map f32.rsqrt xs, map (\x -> f32.mad x 2 1) xs)
