-- The gradient of a loss over a batch: the weights' adjoints are sums over the samples of outer
-- products, and the inputs' adjoints vectors times the weights; the compiled backends compute
-- both as matrix products (opt::outer_products). In f32, so that GPUs run it too.
def matvec [m][n] (w: [m][n]f32) (v: [n]f32) : [m]f32 = map (\r -> f32.sum (map2 (*) r v)) w

def loss [n][i][h] (xs: [n][i]f32) (w1: [h][i]f32) (w2: [h]f32) : f32 =
  f32.sum (map (\x -> f32.sum (map2 (*) w2 (map f32.tanh (matvec w1 x)))) xs)

-- ==
-- input { [[1.0f32, 2.0f32, -1.0f32], [0.5f32, -0.5f32, 2.0f32], [0.0f32, 1.0f32, 1.0f32],
--          [3.0f32, 0.0f32, -2.0f32], [0.25f32, 0.75f32, -0.5f32]]
--         [[0.1f32, -0.2f32, 0.3f32], [0.4f32, 0.5f32, -0.6f32]] [1.5f32, -2.5f32] }
-- output { [[3.6085844e-2f32, -0.30178684f32, 0.4261862f32], [-0.190927f32, -0.52949435f32, 0.68908596f32],
--           [-0.84155643f32, -1.5346029f32, 1.9306294f32], [0.104886815f32, -0.3150208f32, 0.46038726f32],
--           [-0.43851963f32, -1.0005645f32, 1.2842002f32]]
--          [[5.9809337f32, 4.216428f32, -1.2339435f32], [-1.1311014f32, -3.5611343f32, -2.816539f32]]
--          [-0.36181644f32, 1.6495783f32] }
-- input { empty([0][3]f32) [[0.1f32, -0.2f32, 0.3f32], [0.4f32, 0.5f32, -0.6f32]] [1.5f32, -2.5f32] }
-- output { empty([0][3]f32) [[0.0f32, 0.0f32, 0.0f32], [0.0f32, 0.0f32, 0.0f32]] [0.0f32, 0.0f32] }
entry main [n][i][h] (xs: [n][i]f32) (w1: [h][i]f32) (w2: [h]f32) =
  vjp (\(xs, w1, w2) -> loss xs w1 w2) (xs, w1, w2) 1
