-- AUTOMAP (seed note AT-29): polymorphic `==` between a matrix and a vector, with no result type:
-- whole-array equality of each row, or elementwise, tie.
-- ==
-- error: ambiguous

def eqs (xss: [][]i32) (ys: []i32) = xss == ys

def main (xss: [][]i32) (ys: []i32) : [][]bool = eqs xss ys
