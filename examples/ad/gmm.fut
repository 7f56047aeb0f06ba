-- The ADBench Gaussian mixture model objective (with diagonal inverse covariance factors and the
-- Wishart prior on them), and its gradient with respect to all parameters by one vjp.
def logsumexp [k] (xs: [k]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))

-- alphas: mixture weights (log space); means: [K][d]; icf: log of the inverse standard
-- deviations [K][d]; xs: the points [n][d].
def gmm_objective [n][K][d] (xs: [n][d]f64) (wishart_gamma: f64) (wishart_m: f64)
                            (alphas: [K]f64, means: [K][d]f64, icf: [K][d]f64) : f64 =
  let sum_qs = map f64.sum icf
  let per_point =
    map (\x ->
           let lik = map3 (\a mu q ->
                             let z = map3 (\xi mi qi -> f64.exp qi * (xi - mi)) x mu q
                             in a + f64.sum q - 0.5 * f64.sum (map (\v -> v * v) z))
                          alphas means icf
           in logsumexp lik)
        xs
  let const = -(f64.i64 n) * f64.i64 d * 0.5 * f64.log (2 * f64.pi)
  let prior = f64.sum (map2 (\q sq -> 0.5 * wishart_gamma * wishart_gamma
                                       * f64.sum (map (\v -> f64.exp (2 * v)) q)
                                     - wishart_m * sq) icf sum_qs)
  in const + f64.sum per_point - f64.i64 n * logsumexp alphas + prior

-- ==
-- entry: objective
-- input { [[0.5, 1.0], [-1.0, 0.0], [2.0, 2.5]] [0.1, -0.2] [[0.0, 0.5], [1.5, 2.0]] [[0.1, -0.1], [0.2, 0.0]] }
-- output { -5.973093396699199f64 }
entry objective [n][K][d] (xs: [n][d]f64) (alphas: [K]f64) (means: [K][d]f64) (icf: [K][d]f64) =
  gmm_objective xs 1.0 0.0 (alphas, means, icf)

-- ==
-- entry: gradient
-- input { [[0.5, 1.0], [-1.0, 0.0], [2.0, 2.5]] [0.1, -0.2] [[0.0, 0.5], [1.5, 2.0]] [[0.1, -0.1], [0.2, 0.0]] }
-- output { [4.774081672249886e-2f64, -4.774081672249886e-2f64] [[-0.700626120216523f64,
--   -6.124236141188999e-2f64], [0.34345787975278846f64, 0.23140413988093805f64]]
--   [[1.4238549381117869f64, 2.1509263030335095f64], [1.9600012082443712f64,
--   1.724280695793002f64]] }
entry gradient [n][K][d] (xs: [n][d]f64) (alphas: [K]f64) (means: [K][d]f64) (icf: [K][d]f64) =
  vjp (gmm_objective xs 1.0 0.0) (alphas, means, icf) 1

-- The objective on more points and components, for `ogham bench --ad`.
-- ==
-- entry: objective
-- random input { [2000][16]f64 [8]f64 [8][16]f64 [8][16]f64 }
