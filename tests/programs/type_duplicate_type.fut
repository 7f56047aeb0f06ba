-- Type error: a type defined twice in one module.
-- ==
-- error: duplicate definition of type `point`

module geometry = {
  type point = (f32, f32)
  type point = {x: f32, y: f32}
  def origin : point = {x = 0, y = 0}
}

def main (x: f32) : f32 = geometry.origin.x + x
