-- AUTOMAP (seed note AT-24): an unannotated lambda applied to a matrix: the maps can go inside
-- the lambda, outside it, or one each; all cost two maps.
-- ==
-- error: ambiguous

def main (xss: [][]f64) : [][]f64 = (\r -> f64.sqrt r) xss
