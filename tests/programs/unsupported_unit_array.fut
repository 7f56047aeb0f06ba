-- An array of `()` carries only its sizes (Futhark programs use `[n]()` as a size witness);
-- Ogham represents arrays by their data, so such an array is not supported yet, and says so at
-- the use.
-- ==
-- error: unsupported: an array of `\(\)`

def main (xs: []i32) : i64 = length (map (\_ -> ()) xs)
