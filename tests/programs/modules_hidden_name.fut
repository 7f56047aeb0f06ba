-- Ascription hides the names the module type leaves out.
-- ==
-- error: module `m` has no `helper`

module m : { val f: i32 -> i32 } = {
  def helper (x: i32) = x + 1
  def f (x: i32) = helper (helper x)
}

entry main (x: i32) = m.f x + m.helper x
