// The package's wasm backend on every core in headless Chromium: `ogham serve` makes the page
// cross-origin isolated, so a program loaded in the page, or in a dedicated worker as the
// playground's compiler runs, gets worker threads on a shared memory, with the results and the
// run-time errors of one thread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './serve.mjs';

let server;
let browser;
let page;

before(async () => {
  assert.ok(existsSync(new URL('../../www/dist/ogham/threads.js', import.meta.url)), 'www/dist is not built: run www/build.sh');
  server = await startServer();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.goto(`${server.url}ogham/package.json`);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const program = `
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  let bt = transpose b
  in map (\\row -> map (\\col -> f32.sum (map2 (*) row col)) bt) a
entry waves (n: i64) : [n][64]f32 = map (\\i -> map (\\j -> f32.sin (f32.i64 (i * j))) (iota 64)) (iota n)
entry fails (n: i64) (k: i64) : [n]i64 =
  map (\\i -> i64.sum (iota (i % 1000)) + (iota n)[k - i]) (iota n)
`;

// Runs in the page or in a worker: a program loaded with every core (or `threads`) and with one
// thread, each result compared element by element.
async function compare(src, base, threads) {
  const { init, load } = await import(`${base}/ogham/index.js`);
  await init();
  const par = await load(src, { threads });
  const seq = await load(src, { threads: 1 });
  const n = 128;
  const a = { shape: [n, n], data: Float32Array.from({ length: n * n }, (_, i) => ((i * 7) % 13) - 6) };
  const b = { shape: [n, n], data: Float32Array.from({ length: n * n }, (_, i) => ((i * 5) % 11) - 5) };
  const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  const error = async (p) => {
    try {
      await p.run('fails', [3000n, 2900n]);
      return null;
    } catch (e) {
      return `${e.message} at line ${e.span?.line}`;
    }
  };
  const [m] = await par.run('matmul', [a, b]);
  const [m1] = await seq.run('matmul', [a, b]);
  const [w] = await par.run('waves', [300n]);
  const [w1] = await seq.run('waves', [300n]);
  const out = {
    isolated: globalThis.crossOriginIsolated,
    cores: navigator.hardwareConcurrency,
    threads: par.threads,
    one: seq.threads,
    matmul: same(m.data, m1.data) && m.data.length === n * n,
    waves: same(w.data, w1.data),
    error: await error(par),
    serialError: await error(seq),
  };
  par.free();
  seq.free();
  return out;
}

function check(r, threads) {
  assert.equal(r.isolated, true, 'the page is cross-origin isolated');
  assert.equal(r.threads, threads ?? r.cores);
  assert.ok(r.threads > 1 || r.cores === 1, `${r.threads} threads on ${r.cores} cores`);
  assert.equal(r.one, 1);
  assert.ok(r.matmul, 'matmul on every core agrees with one thread');
  assert.ok(r.waves, 'f32.sin on every core agrees with one thread');
  assert.equal(r.error, 'index [-1] out of bounds for array of shape [3000] at line 7');
  assert.equal(r.serialError, r.error);
}

test('a program loaded in the page runs on every core', async () => {
  check(await page.evaluate(`(${compare})(${JSON.stringify(program)}, location.origin)`));
  check(await page.evaluate(`(${compare})(${JSON.stringify(program)}, location.origin, 3)`), 3);
});

test('a program loaded in a dedicated worker runs on every core', async () => {
  const r = await page.evaluate(async ([body, src]) => {
    const code = `self.onmessage = async (e) => self.postMessage(await (${body})(e.data, ${JSON.stringify(location.origin)}));`;
    const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })), { type: 'module' });
    const done = new Promise((ok, fail) => {
      w.onmessage = (e) => ok(e.data);
      w.onerror = (e) => fail(new Error(e.message));
    });
    w.postMessage(src);
    const out = await done;
    w.terminate();
    return out;
  }, [String(compare), program]);
  check(r);
});
