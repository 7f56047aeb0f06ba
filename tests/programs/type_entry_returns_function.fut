-- Entry points take and return arrays and primitive values, not functions.
-- ==
-- error: function|entry

entry main (x: i32) : i32 -> i32 =
  (+ x)
