-- Integer semantics: `/` and `%` round towards negative infinity while `//` and `%%` truncate;
-- fixed-width types wrap around on overflow; conversions between widths wrap or sign-extend.

-- ==
-- entry: division
-- input { 7i32 2i32 }
-- output { 3i32 1i32 3i32 1i32 }
-- input { -7i32 2i32 }
-- output { -4i32 1i32 -3i32 -1i32 }
-- input { 7i32 -2i32 }
-- output { -4i32 -1i32 -3i32 1i32 }
-- input { -7i32 -2i32 }
-- output { 3i32 -1i32 3i32 -1i32 }
-- input { 6i32 3i32 }
-- output { 2i32 0i32 2i32 0i32 }
-- input { -6i32 3i32 }
-- output { -2i32 0i32 -2i32 0i32 }
-- input { 0i32 -5i32 }
-- output { 0i32 0i32 0i32 0i32 }
entry division (a: i32) (b: i32) : (i32, i32, i32, i32) =
  (a / b, a % b, a // b, a %% b)

-- ==
-- entry: unsigned_division
-- input { 4294967295u32 10u32 }
-- output { 429496729u32 5u32 429496729u32 5u32 }
-- input { 7u32 2u32 }
-- output { 3u32 1u32 3u32 1u32 }
-- input { 3u32 5u32 }
-- output { 0u32 3u32 0u32 3u32 }
entry unsigned_division (a: u32) (b: u32) : (u32, u32, u32, u32) =
  (a / b, a % b, a // b, a %% b)

-- ==
-- entry: wrap_i8
-- input { 127i8 }
-- output { -128i8 -2i8 -127i8 126i8 }
-- input { -128i8 }
-- output { -127i8 0i8 -128i8 127i8 }
-- input { 0i8 }
-- output { 1i8 0i8 0i8 -1i8 }
-- input { 100i8 }
-- output { 101i8 -56i8 -100i8 99i8 }
entry wrap_i8 (x: i8) : (i8, i8, i8, i8) =
  (x + 1, x * 2, -x, x - 1)

-- ==
-- entry: wrap_u8
-- input { 255u8 }
-- output { 0u8 254u8 1u8 85u8 }
-- input { 0u8 }
-- output { 1u8 255u8 0u8 0u8 }
-- input { 16u8 }
-- output { 17u8 15u8 0u8 5u8 }
-- input { 200u8 }
-- output { 201u8 199u8 64u8 66u8 }
entry wrap_u8 (x: u8) : (u8, u8, u8, u8) =
  (x + 1, x - 1, x * x, x / 3)

-- ==
-- entry: wrap_i32
-- input { 2147483647i32 }
-- output { -2147483648i32 1i32 -2147483647i32 true }
-- input { -2147483648i32 }
-- output { -2147483647i32 0i32 -2147483648i32 false }
-- input { 46341i32 }
-- output { 46342i32 -2147479015i32 -46341i32 false }
-- input { -3i32 }
-- output { -2i32 9i32 3i32 false }
entry wrap_i32 (x: i32) : (i32, i32, i32, bool) =
  (x + 1, x * x, -x, x == i32.highest && x + 1 == i32.lowest)

-- ==
-- entry: sixteen_bits
-- input { 20000i16 65535u16 }
-- output { -25536i16 0u16 85535i32 }
-- input { -3i16 7u16 }
-- output { -6i16 8u16 4i32 }
entry sixteen_bits (x: i16) (y: u16) : (i16, u16, i32) =
  (x * 2, y + 1, i32.i16 x + i32.u16 y)

-- Narrowing keeps the low bits; widening a signed value sign-extends, an unsigned one zero-extends.
-- ==
-- entry: conversions
-- input { 300i32 }
-- output { 44i8 44u8 300u64 300i64 300i64 }
-- input { -1i32 }
-- output { -1i8 255u8 18446744073709551615u64 -1i64 4294967295i64 }
-- input { -129i32 }
-- output { 127i8 127u8 18446744073709551487u64 -129i64 4294967167i64 }
-- input { 65535i32 }
-- output { -1i8 255u8 65535u64 65535i64 65535i64 }
entry conversions (x: i32) : (i8, u8, u64, i64, i64) =
  (i8.i32 x, u8.i32 x, u64.i32 x, i64.i32 x, i64.u32 (u32.i32 x))

-- ==
-- entry: limits
-- input { 0i64 }
-- output { 127i8 -128i8 255u8 18446744073709551615u64 -9223372036854775808i64 2147483647i32 }
entry limits (_: i64) : (i8, i8, u8, u64, i64, i32) =
  (i8.highest, i8.lowest, u8.highest, u64.highest, i64.lowest, i32.highest)

-- ==
-- entry: abs_sgn
-- input { -5i32 }
-- output { 5i32 -1i32 -5i32 10i32 }
-- input { 0i32 }
-- output { 0i32 0i32 0i32 10i32 }
-- input { 42i32 }
-- output { 42i32 1i32 10i32 42i32 }
-- input { -2147483648i32 }
-- output { -2147483648i32 -1i32 -2147483648i32 10i32 }
entry abs_sgn (x: i32) : (i32, i32, i32, i32) =
  (i32.abs x, i32.sgn x, i32.min x 10, i32.max x 10)
