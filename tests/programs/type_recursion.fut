-- Functions may not be recursive: a definition is not in scope in its own body.
-- ==
-- error: recurs|unknown variable .fact.

def fact (n: i32) : i32 =
  if n == 0 then 1 else n * fact (n - 1)

def main (n: i32) : i32 =
  fact n
