def f (x: i32) =
  let a = x + 1
  let (b, c) = (a * 2, a * 3)
  let {d, e = g} = {d = b, e = c}
  let h (y: i32) : i32 = y + d + g
  let [n] zs: [n]i32 = iota (i64.i32 x) |> map i32.i64
  let zs[0] = 42
  let k: i32 = n |> i32.i64
  in h k + zs[0]

def nested =
  let x =
    let y = 1
    in y + 1
  let z =
    if x > 0
    then let w = x
         in w
    else 0
  in z * 2

def lam =
  \(x: i32) (y: i32) : i32 ->
    let s = x + y
    in s * s

def asserted (x: i32) = assert (x > 0) (x * 2)
