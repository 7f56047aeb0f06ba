-- Records and tuples: construction (with field punning), field access, updates with `with`, and patterns.

type account = {id: i32, balance: i64, active: bool}

def deposit (amount: i64) (a: account) : account =
  a with balance = a.balance + amount

def close (a: account) : account =
  a with active = false

-- ==
-- input { 7i32 100i64 25i64 }
-- output { 7i32 125i64 false }
-- input { -1i32 0i64 -5i64 }
-- output { -1i32 -5i64 false }
entry main (id: i32) (balance: i64) (amount: i64) : (i32, i64, bool) =
  let acc = {id, balance, active = true}
  let {id = i, balance = b, active} = close (deposit amount acc)
  in (i, b, active)

-- A nested record, updated through a path of fields.
type particle = {pos: {x: f32, y: f32}, mass: f32}

-- ==
-- entry: nudge
-- input { 1.5f32 2.0f32 0.25f32 }
-- output { 1.75f32 2.0f32 1.0f32 }
entry nudge (x: f32) (y: f32) (dx: f32) : (f32, f32, f32) =
  let p : particle = {pos = {x, y}, mass = 1}
  let q = p with pos.x = p.pos.x + dx
  in (q.pos.x, q.pos.y, q.mass)

-- Tuples are records with numbered fields: t.1 projects, and patterns take them apart.
-- ==
-- entry: tuples
-- input { 3i32 2.5f64 }
-- output { 2.5f64 9i32 9i32 }
-- input { -2i32 0.0f64 }
-- output { 0.0f64 -6i32 -6i32 }
entry tuples (a: i32) (b: f64) : (f64, i32, i32) =
  let t = (a, b, (a * 2, a * 3))
  let (x, _, (_, z)) = t
  let inner = t.2
  in (t.1, inner.0 + x, z)
