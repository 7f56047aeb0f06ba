-- Type error: one name defined twice at the same level (a type and a value may share a name, and
-- a program may define a name the prelude defines).
-- ==
-- error: duplicate definition of value `scale`

type scale = f32

def length [n] 't (_: [n]t) : i64 = n

def scale (x: f32) : scale = 2 * x

def scale (x: f32) : scale = 3 * x

def main (x: f32) : f32 = scale x
