-- Compile error: nothing fixes the sizes of `unflatten`'s result.
-- ==
-- error: the sizes of this `unflatten`'s result are not known here

def main (xs: []i32) : i32 =
  let a = unflatten xs
  in a[0, 0]
