-- AUTOMAP (seed note AT-25): nothing is inserted at array literals, so a vector and a scalar
-- cannot be elements of one array.
-- ==
-- error: type mismatch

def main (xs: []i32) = [xs, 0]
