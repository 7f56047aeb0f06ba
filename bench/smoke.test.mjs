// The benchmark's smoke test: every workload at a tiny size, once.
// - Node: Ogham's wasm modules (SIMD and scalar), TensorFlow.js and jax-js on wasm must agree.
// - Headless Chromium: Ogham's webgpu backend must agree with Ogham's wasm backend (run in the
//   same page) and with the peers on WebGPU that ran and agree with that reference. A workload
//   the GPU backend cannot run is skipped with its reason, as `ogham test --backend gpu` does.
// scripts/test runs it when the benchmark's packages are installed (`npm ci` in bench/); without
// them, or without /usr/bin/chromium and the built package (web/build.sh), the parts that need
// them are skipped with a message.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { workloads } from './workloads.mjs';
import { maxRelDiff, mismatchFraction, timeInterleaved } from './common.mjs';
import { missing, openBenchPage } from './browser/driver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodePeers = ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@jax-js/jax'];
const lacking = nodePeers.filter((p) => !existsSync(path.join(here, 'node_modules', p)));

/** Assert that `other` agrees with `ours` (integer results: at most 1% of elements differ). */
function assertAgree(other, ours, who) {
  const isInt = ours.every((r) => r instanceof Int32Array);
  if (isInt) {
    // Escape counts may differ where a point sits on the bailout boundary.
    assert.ok(mismatchFraction(other, ours) <= 0.01, `${who}: integer results differ`);
  } else {
    const d = maxRelDiff(other, ours);
    assert.ok(d <= 1e-4, `${who}: results differ by ${d} (relative)`);
  }
}

test('implementations are timed in turns, and one that throws takes no more', async () => {
  const order = [];
  let calls = 0;
  const res = await timeInterleaved({
    a: { fn: () => order.push('a') },
    b: { fn: () => { order.push('b'); if (++calls > 2) throw new Error('broke\nat line 2'); } },
    c: { fn: async () => order.push('c'), probe: () => 7 },
  }, { warmup: 1, runs: 4 });
  // Warm-ups one after another, then rounds in rotated order; `b` fails in its third call.
  assert.deepEqual(order.join(''), 'abc' + 'abc' + 'bca' + 'ac' + 'ca');
  assert.deepEqual(res.b, { error: 'broke' });
  assert.equal(res.a.runs, 4);
  assert.equal(res.c.runs, 4);
  assert.equal(res.c.probeMedian, 7);
  assert.ok(res.a.min <= res.a.median && res.a.median <= res.a.max);
});

if (lacking.length) {
  test('the benchmark in Node', { skip: `bench/node_modules lacks ${lacking.join(', ')} (run npm ci in bench/)` }, () => {});
} else {
  const { loadOgham, loadPeers } = await import('./harness.mjs');
  const peers = await loadPeers();
  for (const w of workloads) {
    test(`${w.name} agrees across Ogham, TF.js and jax-js`, async () => {
      const inputs = w.setup(w.size.smoke);
      const ours = await w.ogham(await loadOgham(w.file), inputs);
      if (w.simd) assertAgree(await w.ogham(await loadOgham(w.file, { simd: false }), inputs), ours, 'Ogham without SIMD');
      assertAgree(await w.tf(peers.tf, inputs, {}), ours, 'TF.js');
      assertAgree(await w.jax(peers.jax, inputs, {}), ours, 'jax-js');
    });
  }
}

const noBrowser = await missing();
if (noBrowser) {
  test('the benchmark on WebGPU in headless Chromium', { skip: noBrowser }, () => {});
} else {
  // One page for every workload: at these sizes no library comes near the GPU's limits.
  const page = await openBenchPage();
  after(() => page.close());
  const tolerance = (r) => (r.isInt ? 0.01 : 1e-4);
  for (const w of workloads) {
    test(`${w.name} on WebGPU: Ogham agrees with its wasm backend and the peers`, async (t) => {
      const row = await page.run(w.name, { size: 'smoke', warmup: 0, runs: 1 });
      assert.equal(row.refError, undefined, `Ogham's wasm reference failed: ${row.refError}`);
      const o = row.res.ogham;
      if (o.error) {
        t.skip(`Ogham's webgpu backend cannot run it here: ${o.error}`);
        return;
      }
      assert.ok(o.agree <= tolerance(o), `Ogham webgpu differs from Ogham wasm by ${o.agree}`);
      // A peer that fails or disagrees with the reference is its own problem (docs/benchmarks.md
      // states which); those that agree with the reference must agree with Ogham on WebGPU.
      let compared = 0;
      for (const [key, who] of [['tf', 'TF.js'], ['jax', 'jax-js']]) {
        const p = row.res[key];
        if (p.error) t.diagnostic(`${who} failed on WebGPU: ${p.error}`);
        else if (p.agree > tolerance(p)) t.diagnostic(`${who} on WebGPU differs from the reference by ${p.agree}`);
        else {
          assert.ok(p.agreeOgham <= tolerance(p), `${who} differs from Ogham webgpu by ${p.agreeOgham}`);
          compared++;
        }
      }
      assert.ok(compared > 0, 'no peer on WebGPU agreed with the reference to compare with');
    });
  }
}
