-- An argument that aliases another one the call consumes could see it change: an error at the
-- aliasing argument, pointing at the consumed one.
-- ==
-- error: this argument aliases another that the call consumes

def upd [n] (xs: *[n]i32) (ys: [n]i32) : *[n]i32 = xs with [0] = ys[1]

entry main [n] (a: *[n]i32) : [n]i32 = upd a a
