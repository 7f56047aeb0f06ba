// The benchmark's smoke test: every workload at a tiny size, once, on Ogham (SIMD and scalar
// modules), TensorFlow.js and jax-js; the results must agree. scripts/test runs it when the
// benchmark's packages are installed (`npm ci` in bench/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { workloads } from './workloads.mjs';
import { loadOgham, loadPeers, maxRelDiff, mismatchFraction } from './harness.mjs';

const peers = await loadPeers();

for (const w of workloads) {
  test(`${w.name} agrees across Ogham, TF.js and jax-js`, async () => {
    const inputs = w.setup(w.size.smoke);
    const ours = w.ogham(await loadOgham(w.file), inputs);
    const isInt = ours.every((r) => r instanceof Int32Array);
    const agree = (other, who) => {
      if (isInt) {
        // Escape counts may differ where a point sits on the bailout boundary.
        assert.ok(mismatchFraction(other, ours) <= 0.01, `${who}: integer results differ`);
      } else {
        const d = maxRelDiff(other, ours);
        assert.ok(d <= 1e-4, `${who}: results differ by ${d} (relative)`);
      }
    };
    if (w.simd) agree(w.ogham(await loadOgham(w.file, { simd: false }), inputs), 'Ogham without SIMD');
    agree(await w.tf(peers.tf, inputs, {}), 'TF.js');
    agree(await w.jax(peers.jax, inputs, {}), 'jax-js');
  });
}
