// The npm package on WebGPU in headless Chromium (SwiftShader's adapter): compile shows the WGSL,
// and `run(..., {backend: "webgpu"})` runs the host schedule in the package's wasm against the
// browser's GPU, with the same result shape as the wasm backend and errors as rejections.
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
    const adapter = await navigator.gpu?.requestAdapter();
    window.adapter = adapter ? (adapter.info?.vendor || 'unnamed') + ' ' + (adapter.info?.architecture || '') : null;
  });
  await page.waitForFunction(() => window.ogham !== undefined, null, { timeout: 60_000 });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

/** Run in the page; resolves to {ok, results} or {ok: false, message, phase, span}. */
function gpuRun(source, entry, args) {
  return page.evaluate(async ([source, entry, args]) => {
    try {
      const rs = await window.ogham.run(source, entry, args, { backend: 'webgpu' });
      return { ok: true, results: rs.map((r) => ({ type: r.type, shape: r.shape, data: Array.from(r.data, Number), text: r.text, typed: r.data.constructor.name })) };
    } catch (e) {
      return { ok: false, message: e.message, phase: e.phase, span: e.span, hint: e.hint, isError: e instanceof Error };
    }
  }, [source, entry, args]);
}

const program = `
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) (transpose b)) a
entry psum (xs: []i32) : []i32 = scan (+) 0 xs
entry sumsq (xs: []f32) : f32 = f32.sum (map (\\x -> x * x) xs)
entry iterate (n: i32) (xs: []f32) : []f32 = loop ys = xs for _i < n do map (\\y -> y * 2 + 1) ys
entry at (xs: []i32) (i: i64) : i32 = xs[i]
entry gather (xs: []i32) (is: []i64) : []i32 = map (\\i -> xs[i]) is
`;
const wide = 'entry wide (xs: []f64) : f64 = f64.sum xs\n';

test('Chromium gives a WebGPU adapter', async () => {
  const adapter = await page.evaluate(() => window.adapter);
  assert.ok(adapter !== null, 'navigator.gpu.requestAdapter() returned null (no WebGPU adapter)');
  console.log(`adapter: ${adapter}`);
});

test('compile returns the WGSL and its timing', async () => {
  const c = await page.evaluate((src) => {
    const c = window.ogham.compile(src);
    return { diagnostics: c.diagnostics, wgsl: c.stages.wgsl, t: c.timings.wgsl };
  }, program);
  assert.deepEqual(c.diagnostics, []);
  assert.match(c.wgsl, /@compute/);
  assert.equal(typeof c.t, 'number');
  const f64 = await page.evaluate((src) => window.ogham.compile(src).stages.wgsl, wide);
  assert.match(f64, /^\/\/ The GPU backend cannot compile this program/);
  assert.match(f64, /f64 is not available on WebGPU/);
});

test('a matrix product runs on WebGPU', async () => {
  const a = [[1, 2, 3], [4, 5, 6]];
  const b = [[7, 8], [9, 10], [11, 12]];
  const lit = (m) => `[${m.map((r) => `[${r.map((x) => `${x}f32`).join(', ')}]`).join(', ')}]`;
  const r = await gpuRun(program, 'matmul', `${lit(a)} ${lit(b)}`);
  assert.ok(r.ok, r.message);
  const [m] = r.results;
  assert.equal(m.type, 'f32');
  assert.equal(m.typed, 'Float32Array');
  assert.deepEqual(m.shape, [2, 2]);
  const want = a.flatMap((row) => [0, 1].map((j) => row.reduce((s, x, k) => s + x * b[k][j], 0)));
  assert.deepEqual(m.data, want);
  assert.equal(m.text.replace(/\s+/g, ' '), '[[58.0f32, 64.0f32], [139.0f32, 154.0f32]]');
  // The same result as the wasm backend, text included.
  const w = await page.evaluate(async (args) => (await window.ogham.run(args[0], 'matmul', args[1], { backend: 'wasm' }))[0].text, [program, `${lit(a)} ${lit(b)}`]);
  assert.equal(m.text, w);
});

test('a scan over several workgroups runs on WebGPU', async () => {
  const n = 1000;
  const xs = Array.from({ length: n }, (_, i) => (i % 7) - 3);
  const r = await gpuRun(program, 'psum', `[${xs.map((x) => `${x}i32`).join(', ')}]`);
  assert.ok(r.ok, r.message);
  const [s] = r.results;
  assert.equal(s.typed, 'Int32Array');
  assert.deepEqual(s.shape, [n]);
  let acc = 0;
  assert.deepEqual(s.data, xs.map((x) => (acc += x)));
});

test('a reduction and a loop of kernels run on WebGPU', async () => {
  const r = await gpuRun(program, 'sumsq', `[${Array.from({ length: 600 }, (_, i) => `${i % 10}f32`).join(', ')}]`);
  assert.ok(r.ok, r.message);
  assert.deepEqual(r.results[0].shape, []);
  assert.equal(r.results[0].data[0], 60 * 285);
  const l = await gpuRun(program, 'iterate', '3i32 [0f32, 1f32, 2f32]');
  assert.ok(l.ok, l.message);
  assert.deepEqual(l.results[0].data, [7, 15, 23]);
});

test('run-time errors reject with the diagnostic', async () => {
  const host = await gpuRun(program, 'at', '[1i32, 2i32] 5i64');
  assert.equal(host.ok, false);
  assert.ok(host.isError);
  assert.equal(host.message, 'index [5] out of bounds for array of shape [2]');
  assert.equal(host.phase, 'runtime error');
  assert.equal(host.span.line, 7);
  const kernel = await gpuRun(program, 'gather', '[1i32, 2i32, 3i32] [0i64, 7i64]');
  assert.equal(kernel.ok, false);
  assert.equal(kernel.message, 'index [7] out of bounds for array of shape [3]');
  assert.equal(kernel.span.line, 8);
  const f64 = await gpuRun(wide, 'wide', '[1f64]');
  assert.equal(f64.ok, false);
  assert.match(f64.message, /f64 is not available on WebGPU/);
  // The device is still usable after errors.
  const again = await gpuRun(program, 'iterate', '1i32 [1f32]');
  assert.deepEqual(again.results[0].data, [3]);
});
