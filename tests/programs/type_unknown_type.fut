-- Type error: a type name that was never defined.
-- ==
-- error: unknown type .vec3.

def main (v: vec3) : f32 =
  v.x
