-- One step of an n-body simulation over records of f32 vectors: all-pairs accelerations, then an Euler update.

type vec3 = {x: f32, y: f32, z: f32}
type body = {pos: vec3, vel: vec3, mass: f32}

def vadd (a: vec3) (b: vec3) : vec3 = {x = a.x + b.x, y = a.y + b.y, z = a.z + b.z}
def vsub (a: vec3) (b: vec3) : vec3 = {x = a.x - b.x, y = a.y - b.y, z = a.z - b.z}
def vscale (s: f32) (a: vec3) : vec3 = {x = s * a.x, y = s * a.y, z = s * a.z}
def dot (a: vec3) (b: vec3) : f32 = a.x * b.x + a.y * b.y + a.z * b.z

-- The acceleration that body j causes on body i, softened by eps so that i == j gives zero.
def accel (eps: f32) (bi: body) (bj: body) : vec3 =
  let r = vsub bj.pos bi.pos
  let d2 = dot r r + eps * eps
  let inv = 1 / (d2 * f32.sqrt d2)
  in vscale (bj.mass * inv) r

def step [n] (dt: f32) (eps: f32) (bodies: [n]body) : [n]body =
  let zero = {x = 0, y = 0, z = 0}
  let accs = map (\bi -> reduce vadd zero (map (accel eps bi) bodies)) bodies
  in map2 (\(b: body) a ->
             let vel = vadd b.vel (vscale dt a)
             let b' = b with vel = vel
             in b' with pos = vadd b.pos (vscale dt vel))
          bodies accs

-- ==
-- input { 0.1f32 0.01f32 [0.0f32, 1.0f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [1.0f32, 1.0f32] }
-- output { [0.0099985f32, 0.9900015f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] [0.099985f32, -0.099985f32] [0.0f32, 0.0f32] [0.0f32, 0.0f32] }
-- input { 0.5f32 0.5f32 [0.0f32, 2.0f32, 0.0f32] [0.0f32, 0.0f32, 2.0f32] [0.0f32, 0.0f32, 0.0f32] [0.0f32, 0.0f32, 0.0f32] [0.0f32, 1.0f32, -1.0f32] [1.0f32, 0.0f32, 0.0f32] [4.0f32, 1.0f32, 2.0f32] }
-- output { [0.057067204f32, 1.7295306f32, 0.021100322f32] [0.11413441f32, 0.5422006f32, 1.2506309f32] [0.5f32, 0.0f32, 0.0f32] [0.11413441f32, -0.5409389f32, 0.042200644f32] [0.22826882f32, 1.0844012f32, -1.4987383f32] [1.0f32, 0.0f32, 0.0f32] }
-- input { 0.1f32 0.1f32 empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) }
-- output { empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) empty([0]f32) }
-- random input { 0.01f32 0.1f32 [64]f32 [64]f32 [64]f32 [64]f32 [64]f32 [64]f32 [64]f32 }
entry main [n] (dt: f32) (eps: f32)
           (xs: [n]f32) (ys: [n]f32) (zs: [n]f32)
           (vxs: [n]f32) (vys: [n]f32) (vzs: [n]f32) (ms: [n]f32)
         : ([n]f32, [n]f32, [n]f32, [n]f32, [n]f32, [n]f32) =
  let pos = map3 (\x y z -> {x, y, z}) xs ys zs
  let vel = map3 (\x y z -> {x, y, z}) vxs vys vzs
  let bodies = map3 (\p v m -> {pos = p, vel = v, mass = m}) pos vel ms
  let bs = step dt eps bodies
  in (map (.pos.x) bs, map (.pos.y) bs, map (.pos.z) bs,
      map (.vel.x) bs, map (.vel.y) bs, map (.vel.z) bs)
