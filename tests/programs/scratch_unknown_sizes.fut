-- Compile error: nothing says how long the rows of this `scratch` are.
-- ==
-- error: the sizes of the elements of this `scratch` are not known here

entry main (n: i64) : i64 = length (scratch n : [n][]i32)
