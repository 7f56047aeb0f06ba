-- AUTOMAP (seed note AT-27): the result type needs one map, the argument two reps; one
-- application cannot have both.
-- ==
-- error: no rank-correct elaboration

def f (_: [][]i32) : i32 = 0

def h (x: []i32) : []i32 = f x

def main (x: []i32) : []i32 = h x
