-- Benchmark: the gradient of the Gaussian mixture model objective (ADBench's, with diagonal
-- inverse covariance factors and the Wishart prior with gamma = 1, m = 0) with respect to the
-- mixture weights, the means and the log inverse standard deviations, by one vjp.
def logsumexp [k] (xs: [k]f32) : f32 =
  let m = f32.maximum xs
  in m + f32.log (f32.sum (map (\x -> f32.exp (x - m)) xs))

def objective [n][K][d] (xs: [n][d]f32) (alphas: [K]f32, means: [K][d]f32, icf: [K][d]f32) : f32 =
  let per_point =
    map (\x ->
           logsumexp (map3 (\a mu q ->
                              let z = map3 (\xi mi qi -> f32.exp qi * (xi - mi)) x mu q
                              in a + f32.sum q - 0.5 * f32.sum (map (\v -> v * v) z))
                           alphas means icf))
        xs
  let const = -(f32.i64 n) * f32.i64 d * 0.5 * f32.log (2 * f32.pi)
  let prior = f32.sum (map (\q -> 0.5 * f32.sum (map (\v -> f32.exp (2 * v)) q)) icf)
  in const + f32.sum per_point - f32.i64 n * logsumexp alphas + prior

-- ==
-- input { [[0.5f32, 1.0f32], [-1.0f32, 0.0f32], [2.0f32, 2.5f32]] [0.1f32, -0.2f32] [[0.0f32, 0.5f32], [1.5f32, 2.0f32]] [[0.1f32, -0.1f32], [0.2f32, 0.0f32]] }
-- output { [4.774081672249886e-2f32, -4.774081672249886e-2f32]
--   [[-0.700626120216523f32, -6.124236141188999e-2f32], [0.34345787975278846f32, 0.23140413988093805f32]]
--   [[1.4238549381117869f32, 2.1509263030335095f32], [1.9600012082443712f32, 1.724280695793002f32]] }
entry main [n][K][d] (xs: [n][d]f32) (alphas: [K]f32) (means: [K][d]f32) (icf: [K][d]f32) =
  vjp (objective xs) (alphas, means, icf) 1
