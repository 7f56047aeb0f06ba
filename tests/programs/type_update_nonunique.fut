-- Uniqueness error: updating a parameter that is not marked unique (*).
-- ==
-- error: consum|unique

def main (xs: []i32) : []i32 =
  xs with [0] = 1
