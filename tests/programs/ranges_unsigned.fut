-- Ranges over unsigned and narrow types: the step is read as a signed number of the type's width
-- (as in Futhark, `10u8..>7` counts down), and lengths are computed without wrapping.
-- ==
-- input { 10u8 }
-- output { [10u8, 9u8, 8u8] [200u8, 150u8, 100u8, 50u8] [10u8, 8u8, 6u8, 4u8] 200i64 200i64 [65534u16, 65535u16] }

def main (x: u8) =
  ( x..>7
  , 200u8..150...50
  , x..8..>3
  , length (0u8..<200)
  , length (-100i8..<100)
  , 65534u16..65535
  )
