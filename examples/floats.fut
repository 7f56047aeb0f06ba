-- Floating point in f16, f32 and f64: literals with suffixes, conversions, pi, transcendental functions,
-- rounding, infinities and NaN.

-- ==
-- entry: half
-- input { 1.5f16 0.25f16 }
-- output { 1.75f16 0.375f16 1.225f16 1.5f32 }
-- input { 2.0f16 -0.5f16 }
-- output { 1.5f16 -1.0f16 1.414f16 2.0f32 }
-- input { 0.1f16 0.2f16 }
-- output { 0.2998f16 0.01999f16 0.3162f16 0.099975586f32 }
entry half (x: f16) (y: f16) : (f16, f16, f16, f32) =
  (x + y, x * y, f16.sqrt x, f32.f16 x)

-- ==
-- entry: circle
-- input { 1.0f64 }
-- output { 3.141592653589793f64 6.283185307179586f64 }
-- input { 2.5f64 }
-- output { 19.634954084936208f64 15.707963267948966f64 }
-- input { 0.0f64 }
-- output { 0.0f64 0.0f64 }
entry circle (r: f64) : (f64, f64) =
  (f64.pi * r * r, 2 * f64.pi * r)

-- ==
-- entry: trig
-- input { 0.0f64 }
-- output { 0.0f64 1.0f64 0.0f64 }
-- input { 0.5f64 }
-- output { 0.479425538604203f64 0.8775825618903728f64 0.46211715726000974f64 }
-- input { -1.25f64 }
-- output { -0.9489846193555862f64 0.3153223623952687f64 -0.8482836399575129f64 }
entry trig (x: f64) : (f64, f64, f64) =
  (f64.sin x, f64.cos x, f64.tanh x)

-- Conversion to an integer truncates towards zero.
-- ==
-- entry: rounding
-- input { 2.5f64 }
-- output { 2.0f64 3.0f64 2i64 2.0f64 }
-- input { -2.5f64 }
-- output { -3.0f64 -2.0f64 -2i64 -2.0f64 }
-- input { 3.0f64 }
-- output { 3.0f64 3.0f64 3i64 3.0f64 }
-- input { -0.75f64 }
-- output { -1.0f64 0.0f64 0i64 0.0f64 }
entry rounding (x: f64) : (f64, f64, i64, f64) =
  (f64.floor x, f64.ceil x, i64.f64 x, f64.i64 (i64.f64 x))

-- ==
-- entry: special
-- input { 1.0f64 }
-- output { false false false 1.0f64 }
-- input { 0.0f64 }
-- output { false false true f64.inf }
-- input { f64.inf }
-- output { false true true 0.0f64 }
-- input { -f64.inf }
-- output { false false true -0.0f64 }
-- input { f64.nan }
-- output { true false true f64.nan }
entry special (x: f64) : (bool, bool, bool, f64) =
  (f64.isnan x, x == f64.inf, f64.isnan (x / x), 1 / x)

-- ==
-- entry: powers
-- input { 2.0f64 10.0f64 }
-- output { 1024.0f64 1024.0f64 2.0f64 2.0f64 }
-- input { 9.0f64 0.5f64 }
-- output { 3.0f64 3.0f64 9.0f64 9.000000000000002f64 }
-- input { 1.5f64 2.0f64 }
-- output { 2.25f64 2.25f64 1.5f64 1.5f64 }
entry powers (b: f64) (e: f64) : (f64, f64, f64, f64) =
  (b ** e, f64.pow b e, f64.log (f64.exp b), f64.exp (f64.log b))

-- ==
-- entry: conversions
-- input { 0.1f64 }
-- output { 0.1f32 0i32 0.1f16 0.10000000149011612f64 }
-- input { -7.9f64 }
-- output { -7.9f32 -7i32 -7.9f16 -7.900000095367432f64 }
-- input { 65504.0f64 }
-- output { 65504.0f32 65504i32 65500.0f16 65504.0f64 }
entry conversions (x: f64) : (f32, i32, f16, f64) =
  (f32.f64 x, i32.f64 x, f16.f64 x, f64.f32 (f32.f64 x))

-- Unsuffixed float literals default to f64; suffixes and context pick other types.
-- ==
-- entry: literals
-- input { 1i32 }
-- output { 1500.0f64 0.5f32 2.0f16 0.25f64 1.0f32 }
entry literals (_: i32) : (f64, f32, f16, f64, f32) =
  let a = 1.5e3
  let b: f32 = 0.5
  in (a, b, 2f16, 0.25f64, 1f32)
