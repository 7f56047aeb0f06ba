-- Hexadecimal float literals: hexadecimal digits, an optional fraction, and a binary exponent
-- `p±d` (a power of two), with or without a type suffix. Without the exponent, `0x…` is an integer.
-- ==
-- input { 2f32 }
-- output { [31.875f64, 17.99609375f64, 3.984375f64, -17.99609375f64] [63.75f32, 0.9375f32, 1.0f32] 255i32 }

def main (k: f32) =
  ([0xf.fp1, 0x11.ffp0f64, 0xf.fp-2f64, -0x11.ffp0],
   [k * 0xf.fp1f32, 0x0.f0p0f32, 0x1p-24 * 16777216],
   0xff)
