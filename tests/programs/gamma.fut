-- `gamma` and `lgamma` (`ln |Γ(x)|`) on every backend: values either side of the reflection at
-- 0.5, C's results at the poles (NaN for Γ, +inf for ln |Γ|), at ±0 and at the infinities, and
-- derivatives (Γ(x) ψ(x) and ψ(x)). One value per result, since a test's tolerance scales with
-- the largest element of each result.
-- ==
-- entry: values32
-- input { 0.5f32 } output { 1.772453850905516f32 0.57236494292470009f32 }
-- input { 5f32 } output { 24f32 3.1780538303479456f32 }
-- input { -0.5f32 } output { -3.5449077018110321f32 1.2655121234846454f32 }
-- input { 2.5f32 } output { 1.329340388179137f32 0.28468287047291916f32 }
-- input { 10.125f32 } output { 481236.73096154937f32 13.084114592176066f32 }
-- input { -3.75f32 } output { 0.2678661288614166f32 -1.3172679424463637f32 }
-- input { 30.25f32 } output { 2.0628053137753469e+31f32 72.104204742008f32 }
-- input { 0.0009765625f32 } output { 1023.4237493455678f32 6.9309089024194619f32 }

-- ==
-- entry: specials
-- input { [0f32, -0f32, -3f32, 40f32, f32.inf, -f32.inf, f32.nan] }
-- output { [f32.inf, -f32.inf, f32.nan, f32.inf, f32.inf, f32.nan, f32.nan]
--          [f32.inf, f32.inf, f32.inf, 106.63176026064346f32, f32.inf, f32.inf, f32.nan] }

-- ==
-- entry: derivatives
-- input { 2.5f32 }
-- output { 0.93473452162608553f32 0.70315664064524319f32 }

-- ==
-- entry: values64
-- input { 100.5 } output { 9.320963104082716e+156 361.43554046777762 }
-- input { -100.5 } output { -3.3536908198076787e-159 -364.90096830942735 }
-- input { 1000.0 } output { f64.inf 5905.2204232091812 }
-- input { 0.25 } output { 3.625609908221908 1.2880225246980774 }

entry values32 (x: f32) : (f32, f32) = (f32.gamma x, f32.lgamma x)

entry specials (xs: []f32) : ([]f32, []f32) = (map f32.gamma xs, map f32.lgamma xs)

entry derivatives (x: f32) : (f32, f32) = (jvp f32.gamma x 1, vjp f32.lgamma x 1)

entry values64 (x: f64) : (f64, f64) = (f64.gamma x, f64.lgamma x)
