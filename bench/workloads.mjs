// The benchmark workloads: for each, its inputs (deterministic pseudo-random data), the Ogham
// program (examples/bench/) and entry point, and the same computation written idiomatically for
// TensorFlow.js and jax-js. Every implementation goes from JS typed arrays to JS typed arrays, so
// that the timings compare like with like: inputs are uploaded to the library, the computation
// runs, and the results are read back. The same code runs in Node (Ogham's wasm modules through
// runtime/js/ogham.mjs, TF.js's wasm backend, jax-js's wasm device) and in a browser page
// (Ogham's `webgpu` backend through the npm package, TF.js's webgpu backend, jax-js's webgpu
// device): nothing here imports a module.

/** Deterministic f32 data in [lo, hi) (mulberry32). */
export function randomF32(n, seed, lo = 0, hi = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 4294967296);
  }
  return out;
}

const arr = (shape, data) => ({ shape, data });

// Ogham's results as flat typed arrays: runtime/js/ogham.mjs returns a scalar as a number and an
// array as {shape, data}; the npm package returns {type, shape, data} for both.
const flat = (rs) => rs.map((r) => (typeof r === 'object' ? r.data : Float32Array.of(r)));

// TF.js tensors read back asynchronously (on webgpu a synchronous read stalls the GPU pipeline),
// then freed.
async function tfRead(ts) {
  try {
    return await Promise.all(ts.map((t) => t.data()));
  } finally {
    for (const t of ts) t.dispose();
  }
}

// jax-js arrays are reference counted: every function takes ownership of its arguments, so a
// value used twice is passed as `x.ref` the first time.
const jaxArray = (np, data, shape) => np.array(data).reshape(shape);

/**
 * Each workload: `name`, `file` (under examples/bench/), `simd` (whether the non-SIMD build is
 * measured too), `sizes` (full and smoke), `setup(size)` → inputs, `work(size, inputs)` → {flops}
 * or {bytes} for the rate, and the three implementations, each `(lib, inputs) → Promise<Float32Array
 * | Int32Array | [...]>` (flat results, several for gradients). `ogham` gets a loaded program whose
 * `run(entry, args)` may return its results or a promise of them.
 */
export const workloads = [
  ...[256, 512, 1024].map((n) => ({
    name: `matmul ${n}`,
    file: 'matmul',
    simd: true,
    size: { full: { n }, smoke: { n: Math.min(n, 33) } },
    setup: ({ n }) => ({ n, a: randomF32(n * n, 1, -1, 1), b: randomF32(n * n, 2, -1, 1) }),
    work: ({ n }) => ({ flops: 2 * n * n * n }),
    ogham: async (p, { n, a, b }) => flat(await p.run('main', [arr([n, n], a), arr([n, n], b)])),
    tf: (tf, { n, a, b }) =>
      tfRead(tf.tidy(() => [tf.matMul(tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n]))])),
    jax: async ({ np }, { n, a, b }) => [await np.matmul(jaxArray(np, a, [n, n]), jaxArray(np, b, [n, n])).data()],
  })),
  {
    name: 'dot 2^22',
    file: 'dot',
    simd: true,
    size: { full: { n: 1 << 22 }, smoke: { n: 1001 } },
    setup: ({ n }) => ({ n, x: randomF32(n, 3, -1, 1), y: randomF32(n, 4, -1, 1) }),
    work: ({ n }) => ({ bytes: 8 * n }),
    ogham: async (p, { n, x, y }) => flat(await p.run('main', [arr([n], x), arr([n], y)])),
    tf: (tf, { x, y }) => tfRead(tf.tidy(() => [tf.dot(tf.tensor1d(x), tf.tensor1d(y))])),
    jax: async ({ np }, { x, y }) => [await np.dot(np.array(x), np.array(y)).data()],
  },
  {
    name: 'prefix sum 2^22',
    file: 'prefix_sum',
    simd: false,
    size: { full: { n: 1 << 22 }, smoke: { n: 1001 } },
    setup: ({ n }) => ({ n, x: randomF32(n, 5, 0, 1) }),
    work: ({ n }) => ({ bytes: 8 * n }),
    ogham: async (p, { n, x }) => flat(await p.run('main', [arr([n], x)])),
    tf: (tf, { x }) => tfRead(tf.tidy(() => [tf.cumsum(tf.tensor1d(x))])),
    jax: async ({ np }, { x }) => [await np.cumsum(np.array(x)).data()],
  },
  {
    name: 'softmax 1024x1024',
    file: 'softmax',
    simd: true,
    size: { full: { n: 1024, m: 1024 }, smoke: { n: 7, m: 37 } },
    setup: ({ n, m }) => ({ n, m, x: randomF32(n * m, 6, -4, 4) }),
    work: ({ n, m }) => ({ bytes: 8 * n * m }),
    ogham: async (p, { n, m, x }) => flat(await p.run('main', [arr([n, m], x)])),
    tf: (tf, { n, m, x }) => tfRead(tf.tidy(() => [tf.softmax(tf.tensor2d(x, [n, m]))])),
    jax: async ({ np, nn, jit }, { n, m, x }, cache) => {
      cache.f ??= jit((a) => nn.softmax(a, -1));
      return [await cache.f(jaxArray(np, x, [n, m])).data()];
    },
  },
  {
    name: 'histogram 2^22 into 256',
    file: 'histogram',
    simd: false,
    size: { full: { n: 1 << 22, k: 256 }, smoke: { n: 1001, k: 16 } },
    setup: ({ n, k }) => ({ n, k, x: randomF32(n, 7, 0, 1) }),
    work: ({ n }) => ({ bytes: 4 * n }),
    ogham: async (p, { n, k, x }) => flat(await p.run('main', [BigInt(k), arr([n], x)])),
    tf: (tf, { k, x }) =>
      tfRead(tf.tidy(() => {
        const bins = tf.clipByValue(tf.floor(tf.mul(tf.tensor1d(x), k)), 0, k - 1).toInt();
        return [tf.bincount(bins, tf.tensor1d([], 'int32'), k)];
      })),
    // jax-js has no scatter-add (`.at[].add`) or bincount: counting with a one-hot matrix is
    // the idiomatic JAX formulation without them.
    jax: async ({ np, nn, jit }, { k, x }, cache) => {
      cache.f ??= jit((a) => {
        const bins = np.clip(np.floor(a.mul(k)), 0, k - 1).astype(np.int32);
        return nn.oneHot(bins, k).sum(0);
      });
      return [await cache.f(np.array(x)).data()];
    },
  },
  {
    name: 'mandelbrot 1024x1024, 64 iterations',
    file: 'mandelbrot',
    simd: false,
    size: { full: { w: 1024, h: 1024, limit: 64 }, smoke: { w: 31, h: 17, limit: 20 } },
    setup: ({ w, h, limit }) => {
      // The peers get the grid of points as input; Ogham computes it (tabulate_2d).
      const cx = new Float32Array(w * h);
      const cy = new Float32Array(w * h);
      const f = Math.fround;
      for (let r = 0; r < h; r++) {
        for (let c = 0; c < w; c++) {
          cx[r * w + c] = f(-2 + f(f(3 * c) / w));
          cy[r * w + c] = f(-1.5 + f(f(3 * r) / h));
        }
      }
      return { w, h, limit, cx, cy };
    },
    // Rate: one iteration of one point counted as 10 flops (3 multiplies, 4 adds, a compare...).
    work: ({ w, h, limit }) => ({ flops: 10 * w * h * limit, approx: true }),
    ogham: async (p, { w, h, limit }) => flat(await p.run('main', [BigInt(w), BigInt(h), limit])),
    tf: (tf, { limit, cx, cy }) =>
      tfRead(tf.tidy(() => {
        const ca = tf.tensor1d(cx);
        const cb = tf.tensor1d(cy);
        let x = tf.zerosLike(ca);
        let y = tf.zerosLike(ca);
        let count = tf.zeros(ca.shape, 'int32');
        let active = tf.onesLike(ca).toBool();
        for (let i = 0; i < limit; i++) {
          active = tf.logicalAnd(active, tf.lessEqual(tf.add(tf.mul(x, x), tf.mul(y, y)), 4));
          count = tf.add(count, active.toInt());
          const nx = tf.add(tf.sub(tf.mul(x, x), tf.mul(y, y)), ca);
          const ny = tf.add(tf.mul(tf.mul(x, y), 2), cb);
          x = tf.where(active, nx, x);
          y = tf.where(active, ny, y);
        }
        return [count];
      })),
    jax: async ({ np, jit }, { limit, cx, cy }, cache) => {
      cache.f ??= jit((ca, cb) => {
        let x = np.zerosLike(ca.ref);
        let y = np.zerosLike(ca.ref);
        let count = np.zeros(ca.shape, { dtype: np.int32 });
        let active = np.onesLike(ca.ref).astype(np.bool);
        for (let i = 0; i < limit; i++) {
          active = np.logicalAnd(active, np.lessEqual(x.ref.mul(x.ref).add(y.ref.mul(y.ref)), 4));
          count = count.add(active.ref.astype(np.int32));
          const nx = x.ref.mul(x.ref).sub(y.ref.mul(y.ref)).add(ca.ref);
          const ny = x.ref.mul(y.ref).mul(2).add(cb.ref);
          x = np.where(active.ref, nx, x);
          y = np.where(active.ref, ny, y);
        }
        x.dispose();
        y.dispose();
        active.dispose();
        ca.dispose();
        cb.dispose();
        return count;
      });
      return [await cache.f(np.array(cx), np.array(cy)).data()];
    },
  },
  {
    name: 'k-means step, 2^16 points, d=16, k=32',
    file: 'kmeans',
    simd: false,
    size: { full: { n: 1 << 16, d: 16, k: 32 }, smoke: { n: 300, d: 5, k: 7 } },
    setup: ({ n, d, k }) => ({ n, d, k, pts: randomF32(n * d, 8, 0, 10), cs: randomF32(k * d, 9, 0, 10) }),
    work: ({ n, d, k }) => ({ flops: 3 * n * k * d + 2 * n * d }),
    ogham: async (p, { n, d, k, pts, cs }) => flat(await p.run('main', [arr([n, d], pts), arr([k, d], cs)])),
    // Squared distances expanded as |p|² - 2 p·c + |c|² (one matmul); cluster sums as a one-hot
    // matrix times the points.
    tf: (tf, { n, d, k, pts, cs }) =>
      tfRead(tf.tidy(() => {
        const p = tf.tensor2d(pts, [n, d]);
        const c = tf.tensor2d(cs, [k, d]);
        const d2 = tf.add(
          tf.sub(tf.sum(tf.square(p), 1, true), tf.mul(tf.matMul(p, c, false, true), 2)),
          tf.sum(tf.square(c), 1),
        );
        const onehot = tf.oneHot(tf.argMin(d2, 1), k);
        const counts = tf.sum(onehot, 0);
        const sums = tf.matMul(onehot, p, true, false);
        const mean = tf.div(sums, tf.maximum(counts, 1).expandDims(1));
        return [tf.where(tf.greater(counts, 0).expandDims(1).tile([1, d]), mean, c)];
      })),
    jax: async ({ np, nn, jit }, { n, d, k, pts, cs }, cache) => {
      cache.f ??= jit((p, c) => {
        const d2 = np
          .sum(np.square(p.ref), 1, { keepdims: true })
          .sub(np.matmul(p.ref, np.transpose(c.ref)).mul(2))
          .add(np.sum(np.square(c.ref), 1));
        const onehot = nn.oneHot(np.argmin(d2, 1), k);
        const counts = onehot.ref.sum(0);
        const sums = np.matmul(np.transpose(onehot), p);
        const mean = sums.div(np.maximum(counts.ref, 1).reshape([k, 1]));
        return np.where(counts.greater(0).reshape([k, 1]), mean, c);
      });
      return [await cache.f(jaxArray(np, pts, [n, d]), jaxArray(np, cs, [k, d])).data()];
    },
  },
  {
    name: 'GMM objective gradient, n=4096, K=16, d=16',
    file: 'gmm',
    simd: false,
    size: { full: { n: 4096, K: 16, d: 16 }, smoke: { n: 20, K: 3, d: 4 } },
    setup: ({ n, K, d }) => ({
      n, K, d,
      xs: randomF32(n * d, 10, -2, 2),
      alphas: randomF32(K, 11, -1, 1),
      means: randomF32(K * d, 12, -2, 2),
      icf: randomF32(K * d, 13, -0.5, 0.5),
    }),
    // The objective's forward pass is about 6 n K d flops; reverse mode about three times that.
    work: ({ n, K, d }) => ({ flops: 18 * n * K * d, approx: true }),
    ogham: async (p, { n, K, d, xs, alphas, means, icf }) =>
      flat(await p.run('main', [arr([n, d], xs), arr([K], alphas), arr([K, d], means), arr([K, d], icf)])),
    tf: (tf, { n, K, d, xs, alphas, means, icf }) =>
      tfRead(tf.tidy(() => {
        const x = tf.tensor2d(xs, [n, d]);
        const c = -n * d * 0.5 * Math.log(2 * Math.PI);
        const f = (a, mu, q) => {
          const z = tf.mul(tf.exp(q), tf.sub(x.expandDims(1), mu.expandDims(0)));
          const lik = tf.sub(tf.add(a, tf.sum(q, 1)), tf.mul(tf.sum(tf.square(z), 2), 0.5));
          const prior = tf.mul(tf.sum(tf.exp(tf.mul(q, 2))), 0.5);
          return tf.add(tf.sub(tf.add(tf.sum(tf.logSumExp(lik, 1)), c), tf.mul(tf.logSumExp(a), n)), prior);
        };
        return tf.grads(f)([tf.tensor1d(alphas), tf.tensor2d(means, [K, d]), tf.tensor2d(icf, [K, d])]);
      })),
    jax: async ({ np, nn, jit, grad }, { n, K, d, xs, alphas, means, icf }, cache) => {
      const c = -n * d * 0.5 * Math.log(2 * Math.PI);
      cache.f ??= jit(
        grad(
          (params, x) => {
            const [a, mu, q] = params;
            const z = np.exp(q.ref).reshape([1, K, d]).mul(x.reshape([n, 1, d]).sub(mu.reshape([1, K, d])));
            const lik = a.ref.add(q.ref.sum(1)).sub(np.square(z).sum(2).mul(0.5));
            const prior = np.exp(q.mul(2)).sum().mul(0.5);
            return nn.logsumexp(lik, 1).sum().add(c).sub(nn.logsumexp(a).mul(n)).add(prior);
          },
        ),
      );
      const g = cache.f([np.array(alphas), jaxArray(np, means, [K, d]), jaxArray(np, icf, [K, d])], jaxArray(np, xs, [n, d]));
      return Promise.all(g.map((t) => t.data()));
    },
  },
  {
    name: 'MLP loss gradient, batch 256, 256-256-10',
    file: 'mlp',
    simd: false,
    size: { full: { n: 256, i: 256, h: 256, k: 10 }, smoke: { n: 9, i: 5, h: 6, k: 3 } },
    setup: ({ n, i, h, k }) => {
      const ys = new Float32Array(n * k);
      const labels = randomF32(n, 14, 0, k);
      for (let r = 0; r < n; r++) ys[r * k + Math.floor(labels[r])] = 1;
      return {
        n, i, h, k, ys,
        xs: randomF32(n * i, 15, -1, 1),
        w1: randomF32(h * i, 16, -0.1, 0.1),
        b1: randomF32(h, 17, -0.1, 0.1),
        w2: randomF32(k * h, 18, -0.1, 0.1),
        b2: randomF32(k, 19, -0.1, 0.1),
      };
    },
    // Forward 2 n (i h + h k) flops, reverse mode twice that again.
    work: ({ n, i, h, k }) => ({ flops: 6 * n * (i * h + h * k), approx: true }),
    ogham: async (p, { n, i, h, k, xs, ys, w1, b1, w2, b2 }) =>
      flat(await p.run('main', [arr([n, i], xs), arr([n, k], ys), arr([h, i], w1), arr([h], b1), arr([k, h], w2), arr([k], b2)])),
    tf: (tf, { n, i, h, k, xs, ys, w1, b1, w2, b2 }) =>
      tfRead(tf.tidy(() => {
        const x = tf.tensor2d(xs, [n, i]);
        const y = tf.tensor2d(ys, [n, k]);
        const f = (W1, B1, W2, B2) => {
          const hid = tf.tanh(tf.add(tf.matMul(x, W1, false, true), B1));
          const lp = tf.logSoftmax(tf.add(tf.matMul(hid, W2, false, true), B2));
          return tf.div(tf.neg(tf.sum(tf.mul(y, lp))), n);
        };
        return tf.grads(f)([tf.tensor2d(w1, [h, i]), tf.tensor1d(b1), tf.tensor2d(w2, [k, h]), tf.tensor1d(b2)]);
      })),
    jax: async ({ np, nn, jit, grad }, { n, i, h, k, xs, ys, w1, b1, w2, b2 }, cache) => {
      cache.f ??= jit(
        grad((params, x, y) => {
          const [W1, B1, W2, B2] = params;
          const hid = np.tanh(np.matmul(x, np.transpose(W1)).add(B1));
          const lp = nn.logSoftmax(np.matmul(hid, np.transpose(W2)).add(B2), -1);
          return y.mul(lp).sum().neg().div(n);
        }),
      );
      const g = cache.f(
        [jaxArray(np, w1, [h, i]), np.array(b1), jaxArray(np, w2, [k, h]), np.array(b2)],
        jaxArray(np, xs, [n, i]),
        jaxArray(np, ys, [n, k]),
      );
      return Promise.all(g.map((t) => t.data()));
    },
  },
];
