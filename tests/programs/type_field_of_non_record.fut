-- Type error: projecting a field out of a value that is not a record.
-- ==
-- error: field

def main (x: i32) : i32 =
  x.foo
