-- A numeric literal that does not fit the type its suffix names.
-- ==
-- error: out of range

def main (x: u8) : u8 =
  x + 300u8
