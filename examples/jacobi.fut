-- Jacobi iteration for a diagonally dominant linear system A x = b in f64, with a fixed number of sweeps.

def jacobi_step [n] (a: [n][n]f64) (b: [n]f64) (x: [n]f64) : [n]f64 =
  map3 (\row bi i ->
          let sigma = f64.sum (map3 (\aij xj j -> if j == i then 0 else aij * xj) row x (iota n))
          in (bi - sigma) / row[i])
       a b (iota n)

-- ==
-- input { 50i32 [[4.0f64, 1.0f64, 0.0f64], [1.0f64, 5.0f64, 2.0f64], [0.0f64, 2.0f64, 6.0f64]] [6.0f64, 5.0f64, -2.0f64] }
-- output { [1.2448979591836735f64, 1.0204081632653061f64, -0.673469387755102f64] }
-- input { 3i32 [[2.0f64, 1.0f64], [1.0f64, 3.0f64]] [3.0f64, 5.0f64] }
-- output { [0.9166666666666666f64, 1.4444444444444444f64] }
-- input { 0i32 [[2.0f64]] [4.0f64] }
-- output { [0.0f64] }
-- input { 10i32 [[10.0f64, -1.0f64, 2.0f64, 0.0f64], [-1.0f64, 11.0f64, -1.0f64, 3.0f64], [2.0f64, -1.0f64, 10.0f64, -1.0f64], [0.0f64, 3.0f64, -1.0f64, 8.0f64]] [6.0f64, 25.0f64, -11.0f64, 15.0f64] }
-- output { [1.0001185986914152f64, 1.9997679470100354f64, -0.9998281428744763f64, 0.9997859784600501f64] }
-- input { 5i32 empty([0][0]f64) empty([0]f64) }
-- output { empty([0]f64) }
entry main [n] (iters: i32) (a: [n][n]f64) (b: [n]f64) : [n]f64 =
  loop x = replicate n 0 for _i < iters do
    jacobi_step a b x
