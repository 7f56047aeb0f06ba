-- Lexical error: a hexadecimal literal without digits.
-- ==
-- error: malformed number

def main (x: i32) : i32 =
  x + 0xZZ
