-- AUTOMAP (seed note AT-18): `length` on a matrix under a scalar `sum` can lift `length` over the
-- rows or replicate its result; both insert one map/rep, so the program is rejected.
-- ==
-- error: ambiguous

def main (xss: [][]i32) : i64 = i64.sum (length xss)
