-- AUTOMAP: linear interpolation written for scalars, used on vectors. The definition gets no
-- insertions (its parameters are scalars); the call sites are lifted.

def lerp (v: f64) (w: f64) (t: f64) = v + (w - v) * t

-- ==
-- entry: lerp_vvs
-- input { [0.0, 10.0] [1.0, 20.0] 0.5 }
-- output { [0.5, 15.0] }
entry lerp_vvs (vs: []f64) (ws: []f64) (t: f64) : []f64 = lerp vs ws t

-- ==
-- entry: lerp_vvv
-- input { [0.0, 10.0] [1.0, 20.0] [0.5, 0.25] }
-- output { [0.5, 12.5] }
entry lerp_vvv (vs: []f64) (ws: []f64) (ts: []f64) : []f64 = lerp vs ws ts

-- ==
-- entry: lerp_ssv
-- input { 0.0 10.0 [0.5, 0.25] }
-- output { [5.0, 2.5] }
entry lerp_ssv (v: f64) (w: f64) (ts: []f64) : []f64 = lerp v w ts
