-- AUTOMAP: the MRI-Q kernel (Parboil) as one formula, without a single explicit `map`.
-- `kx * transpose (replicate nK x)` pairs every sample with every voxel.
-- ==
-- input { [1f32, 0f32] [0f32, 1f32] [0f32, 0f32] [0f32, 0.25f32] [0f32, 0f32] [0f32, 0f32] [1f32, 2f32] [0f32, 0f32] }
-- output { [5f32, 4f32] [0f32, 1f32] }

def main [nK][nX] (kx: [nK]f32) (ky: [nK]f32) (kz: [nK]f32)
                  (x: [nX]f32) (y: [nX]f32) (z: [nX]f32)
                  (phiR: [nK]f32) (phiI: [nK]f32) : ([nX]f32, [nX]f32) =
  let phiM = phiR * phiR + phiI * phiI
  let as = 2 * f32.pi * (kx * transpose (replicate nK x)
                         + ky * transpose (replicate nK y)
                         + kz * transpose (replicate nK z))
  let qr = f32.sum (f32.cos as * phiM)
  let qi = f32.sum (f32.sin as * phiM)
  in (qr, qi)
