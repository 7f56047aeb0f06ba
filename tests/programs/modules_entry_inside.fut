-- Entry points are the program's interface: they are declared at the top level.
-- ==
-- error: an entry point cannot be declared in a module

module m = {
  entry main (x: i32) = x
}
