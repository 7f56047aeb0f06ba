-- Sorting: bubble sort with nested loops and in-place updates, and a radix sort built from scan and scatter.

-- ==
-- entry: bubble
-- input { [5i32, 2i32, 9i32, 1i32, 5i32, 6i32] }
-- output { [1i32, 2i32, 5i32, 5i32, 6i32, 9i32] }
-- input { [3i32, -1i32, -7i32, 0i32] }
-- output { [-7i32, -1i32, 0i32, 3i32] }
-- input { [1i32] }
-- output { [1i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- input { [2i32, 2i32, 1i32, 1i32] }
-- output { [1i32, 1i32, 2i32, 2i32] }
-- random input { [100]i32 }
entry bubble [n] (xs: [n]i32) : [n]i32 =
  loop xs = copy xs for i < n do
    -- A loop without an initialiser takes its initial value from the variable of the same name.
    loop xs for j < n - i - 1 do
      if xs[j] > xs[j + 1]
      then let tmp = xs[j]
           let xs[j] = xs[j + 1]
           let xs[j + 1] = tmp
           in xs
      else xs

-- One stable partition by the given bit: elements with the bit clear first.
def radix_pass [n] (bit: i32) (xs: [n]u32) : [n]u32 =
  let bits = map (\x -> i64.u32 ((x >> u32.i32 bit) & 1)) xs
  let zeros = reduce (+) 0 (map (1 -) bits)
  let zeros_upto = scan (+) 0 (map (1 -) bits)
  let ones_upto = scan (+) 0 bits
  let dest = map3 (\b z o -> if b == 0 then z - 1 else zeros + o - 1) bits zeros_upto ones_upto
  in scatter (replicate n 0) dest xs

def radix_sort [n] (xs: [n]u32) : [n]u32 =
  loop xs for bit < 32 do radix_pass bit xs

-- ==
-- entry: radix
-- input { [170u32, 45u32, 75u32, 90u32, 802u32, 24u32, 2u32, 66u32] }
-- output { [2u32, 24u32, 45u32, 66u32, 75u32, 90u32, 170u32, 802u32] }
-- input { [4294967295u32, 0u32, 2147483648u32, 1u32] }
-- output { [0u32, 1u32, 2147483648u32, 4294967295u32] }
-- input { [7u32] }
-- output { [7u32] }
-- input { empty([0]u32) }
-- output { empty([0]u32) }
-- random input { [1000]u32 }
entry radix [n] (xs: [n]u32) : [n]u32 =
  radix_sort xs

-- Signed integers sort as unsigned ones once the sign bit is flipped.
-- ==
-- entry: radix_i32
-- input { [5i32, 2i32, 9i32, 1i32, 5i32, 6i32] }
-- output { [1i32, 2i32, 5i32, 5i32, 6i32, 9i32] }
-- input { [3i32, -1i32, -7i32, 0i32] }
-- output { [-7i32, -1i32, 0i32, 3i32] }
-- input { [1i32] }
-- output { [1i32] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- input { [2i32, 2i32, 1i32, 1i32] }
-- output { [1i32, 1i32, 2i32, 2i32] }
-- input { [2147483647i32, -2147483648i32, 0i32, -1i32, 1i32] }
-- output { [-2147483648i32, -1i32, 0i32, 1i32, 2147483647i32] }
-- random input { [1000]i32 }
entry radix_i32 [n] (xs: [n]i32) : [n]i32 =
  let flip_sign (x: u32) = x ^ 0x8000_0000
  in xs |> map u32.i32 |> map flip_sign |> radix_sort |> map flip_sign |> map i32.u32
