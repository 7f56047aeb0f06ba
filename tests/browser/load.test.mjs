// The package's `load` on WebGPU in headless Chromium (SwiftShader's adapter): a program compiled
// and its pipelines created once, then run many times on typed arrays, with the same results as
// the wasm backend; rejections for what the GPU backend cannot run, per entry point.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './serve.mjs';

let server;
let browser;
let page;

before(async () => {
  assert.ok(existsSync(new URL('../../www/dist/ogham/pkg/ogham_web_bg.wasm', import.meta.url)), 'www/dist is not built: run www/build.sh');
  server = await startServer();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.goto(`${server.url}ogham/package.json`);
  await page.evaluate(async () => {
    const m = await import('/ogham/index.js');
    await m.init();
    window.ogham = m;
  });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const program = `
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) (transpose b)) a
entry axpy (a: f32) (xs: []f32) (ys: []f32) : []f32 = map2 (\\x y -> a * x + y) xs ys
entry total (xs: []f32) : f32 = f32.sum xs
entry count (k: i64) (xs: []i32) : [k]i32 = hist (+) 0 k (map i64.i32 xs) (map (const 1) xs)
entry gather (xs: []i32) (is: []i64) : []i32 = map (\\i -> xs[i]) is
entry wide (xs: []f64) : f64 = f64.sum xs
`;

test('a loaded program runs many times on WebGPU, agreeing with wasm', async () => {
  const r = await page.evaluate(async (src) => {
    const { load } = window.ogham;
    const gpu = await load(src, { backend: 'webgpu' });
    const cpu = await load(src, { backend: 'wasm' });
    const n = 37;
    const a = Float32Array.from({ length: n * n }, (_, i) => ((i * 7) % 13) - 6);
    const b = Float32Array.from({ length: n * n }, (_, i) => ((i * 5) % 11) - 5);
    const args = [{ shape: [n, n], data: a }, { shape: [n, n], data: b }];
    const [want] = await cpu.run('matmul', args);
    const runs = [];
    for (let k = 0; k < 3; k++) {
      const [got] = await gpu.run('matmul', args);
      runs.push({ type: got.type, typed: got.data.constructor.name, shape: got.shape, same: got.data.every((x, i) => x === want.data[i]) });
    }
    const big = 1 << 20;
    const xs = new Float32Array(big).fill(1);
    const ys = Float32Array.from({ length: big }, (_, i) => i % 100);
    const [y] = await gpu.run('axpy', [2, xs, ys]);
    const [t] = await gpu.run('total', [new Float32Array(1000).fill(0.5)]);
    const [c] = await gpu.run('count', [4n, new Int32Array([0, 3, 3, 1])]);
    return {
      backend: gpu.backend,
      entries: gpu.entries,
      runs,
      axpy: y.data.length === big && y.data.every((v, i) => v === 2 + (i % 100)),
      total: { shape: t.shape, value: t.data[0], text: t.text },
      count: Array.from(c.data),
    };
  }, program);
  assert.equal(r.backend, 'webgpu');
  assert.deepEqual(r.entries, ['matmul', 'axpy', 'total', 'count', 'gather', 'wide']);
  for (const run of r.runs) assert.deepEqual(run, { type: 'f32', typed: 'Float32Array', shape: [37, 37], same: true });
  assert.ok(r.axpy, 'axpy on 2^20 elements');
  assert.deepEqual(r.total, { shape: [], value: 500, text: '500.0f32' });
  assert.deepEqual(r.count, [1, 1, 0, 2]);
});

test('concurrent runs of one program on WebGPU each get their own results', async () => {
  const r = await page.evaluate(async (src) => {
    const p = await window.ogham.load(src, { backend: 'webgpu' });
    const xs = Float32Array.from({ length: 5000 }, (_, i) => i % 10);
    const outs = await Promise.all([1, 2, 3].map((a) => p.run('axpy', [a, xs, xs])));
    return outs.map(([o], k) => o.data.every((v, i) => v === (k + 2) * xs[i]));
  }, program);
  assert.deepEqual(r, [true, true, true]);
});

test('what the GPU backend cannot run rejects per entry point, with diagnostics', async () => {
  const r = await page.evaluate(async (src) => {
    const catching = async (f) => {
      try {
        await f();
        return null;
      } catch (e) {
        return { message: e.message, phase: e.phase, line: e.span?.line ?? null, n: e.diagnostics?.length };
      }
    };
    const p = await window.ogham.load(src, { backend: 'webgpu' });
    return {
      f64: await catching(() => p.run('wide', [new Float64Array([1])])),
      kernel: await catching(() => p.run('gather', [new Int32Array([1, 2, 3]), new BigInt64Array([0n, 7n])])),
      args: await catching(() => p.run('gather', [new Int32Array([1]), new Float32Array([0.5])])),
      after: Array.from((await p.run('gather', [new Int32Array([1, 2, 3]), [2, 0]]))[0].data),
      allF64: await catching(() => window.ogham.load('entry main (x: f64) : f64 = x * 2', { backend: 'webgpu' })),
      parse: await catching(() => window.ogham.load('entry main = +', { backend: 'webgpu' })),
    };
  }, program);
  assert.match(r.f64.message, /f64 is not available on WebGPU/);
  assert.equal(r.kernel.message, 'index [7] out of bounds for array of shape [3]');
  assert.equal(r.kernel.phase, 'runtime error');
  assert.equal(r.kernel.line, 7);
  assert.equal(r.args.message, 'argument 2 of `gather`: 0.5 is not an integer of type `i64`');
  assert.deepEqual(r.after, [3, 1]);
  assert.match(r.allF64.message, /f64 is not available on WebGPU/);
  assert.equal(r.allF64.line, 1);
  assert.equal(r.parse.phase, 'parse error');
});
