-- String and character literals, as in Futhark: a string is the array of its UTF-8 bytes
-- (`[]u8`), a character an integer literal of its code point.

def caesar [n] (k: u8) (s: [n]u8) : [n]u8 =
  map (\c -> if c >= 'a' && c <= 'z' then 'a' + (c - 'a' + k) % 26 else c) s

def count [n] (c: u8) (s: [n]u8) : i64 = i64.sum (map (\x -> i64.bool (x == c)) s)

-- ==
-- input { 3u8 }
-- output { 6i64 [104u8, 195u8, 169u8] 98 2i64 0i64 "khoor, zruog!" [9u8, 10u8, 39u8, 34u8, 92u8] 955 }
entry main (k: u8) =
  (length "héllo", "hé", 'a' + 1, count 'l' "hello", length "", caesar k "hello, world!",
   "\t\n'\"\\", 'λ')
