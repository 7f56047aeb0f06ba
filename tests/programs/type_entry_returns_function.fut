-- Entry points take and return arrays and primitive values, not functions. (A function result
-- whose parameters are such values takes them as further arguments; this one takes a function.)
-- ==
-- error: entry point results must be

entry main (x: i32) : (i32 -> i32) -> i32 =
  \g -> g x
