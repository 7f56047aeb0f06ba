-- Type error: `unflatten` with its sizes as arguments (Futhark before 0.25); the hint shows the
-- form that takes them from the type.
-- ==
-- error: unflatten xs : \[n\]\[m\]t

def main (xs: []i32) : [2][3]i32 = unflatten 2 3 xs
