-- Integer bit tricks: popcount, power-of-two tests, shifts, bit reversal, masks with hex and binary literals.

-- Kernighan's trick: x & (x - 1) clears the lowest set bit.
def popc_loop (x: u64) : i32 =
  let (_, c) = loop (y, c) = (x, 0) while y != 0 do (y & (y - 1), c + 1)
  in c

-- ==
-- entry: popcounts
-- input { [0u64, 1u64, 255u64, 18446744073709551615u64, 9223372036854775808u64, 61680u64] }
-- output { [0i32, 1i32, 8i32, 64i32, 1i32, 8i32] [0i32, 1i32, 8i32, 64i32, 1i32, 8i32] }
-- input { empty([0]u64) }
-- output { empty([0]i32) empty([0]i32) }
entry popcounts (xs: []u64) : ([]i32, []i32) =
  (map u64.popc xs, map popc_loop xs)

-- Bitwise operators bind tighter than comparisons, so no parentheses are needed around x & (x - 1).
-- ==
-- entry: is_pow2
-- input { 0u64 }
-- output { false }
-- input { 1u64 }
-- output { true }
-- input { 2u64 }
-- output { true }
-- input { 3u64 }
-- output { false }
-- input { 64u64 }
-- output { true }
-- input { 96u64 }
-- output { false }
-- input { 9223372036854775808u64 }
-- output { true }
-- input { 18446744073709551615u64 }
-- output { false }
entry is_pow2 (x: u64) : bool =
  x != 0 && x & (x - 1) == 0

-- `>>` is an arithmetic shift on signed types; `>>>` shifts in zeros.
-- ==
-- entry: shifts
-- input { 5i32 }
-- output { 40i32 2i32 2i32 }
-- input { -16i32 }
-- output { -128i32 -8i32 2147483640i32 }
-- input { -1i32 }
-- output { -8i32 -1i32 2147483647i32 }
-- input { 1073741824i32 }
-- output { 0i32 536870912i32 536870912i32 }
entry shifts (x: i32) : (i32, i32, i32) =
  (x << 3, x >> 1, x >>> 1)

-- ==
-- entry: reverse_bits
-- input { 1u8 }
-- output { 128u8 }
-- input { 176u8 }
-- output { 13u8 }
-- input { 255u8 }
-- output { 255u8 }
-- input { 0u8 }
-- output { 0u8 }
-- input { 18u8 }
-- output { 72u8 }
entry reverse_bits (x: u8) : u8 =
  loop r = 0u8 for i < 8 do
    (r << 1) | ((x >> u8.i32 i) & 1)

-- ==
-- entry: masks
-- input { 0u8 }
-- output { 0u8 128u8 255u8 255u8 }
-- input { 90u8 }
-- output { 10u8 218u8 165u8 165u8 }
-- input { 255u8 }
-- output { 15u8 255u8 0u8 0u8 }
-- input { 129u8 }
-- output { 1u8 129u8 126u8 126u8 }
entry masks (x: u8) : (u8, u8, u8, u8) =
  (x & 0x0F, x | 0b1000_0000, x ^ 0xFF, !x)

-- ==
-- entry: leading_trailing
-- input { 1u32 }
-- output { 31i32 0i32 }
-- input { 2147483648u32 }
-- output { 0i32 31i32 }
-- input { 0u32 }
-- output { 32i32 32i32 }
-- input { 12u32 }
-- output { 28i32 2i32 }
-- input { 65535u32 }
-- output { 16i32 0i32 }
entry leading_trailing (x: u32) : (i32, i32) =
  (u32.clz x, u32.ctz x)
