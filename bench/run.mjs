// The benchmark: every workload of workloads.mjs on Ogham's wasm backend (SIMD and, where SIMD
// applies, the same program built without SIMD), TensorFlow.js (wasm backend) and jax-js (wasm
// device), with warm-up and several timed runs; writes docs/benchmarks.md.
//
//   node bench/run.mjs [--runs N] [--warmup N] [--only TEXT] [--no-write]
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workloads } from './workloads.mjs';
import { loadOgham, loadPeers, maxRelDiff, mismatchFraction, root } from './harness.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const runs = Number(opt('--runs', 7));
const warmup = Number(opt('--warmup', 2));
const only = opt('--only', null);
const write = !argv.includes('--no-write');

const peers = await loadPeers();
const rows = [];

async function time(fn) {
  const times = [];
  let out;
  for (let i = 0; i < warmup; i++) out = await fn();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { out, median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1] };
}

for (const w of workloads) {
  if (only && !w.name.includes(only)) continue;
  const size = w.size.full;
  const inputs = w.setup(size);
  const work = w.work(size);
  const row = { name: w.name, work, res: {} };
  try {
    const simd = await loadOgham(w.file);
    row.res.ogham = await time(async () => w.ogham(simd, inputs));
    if (w.simd) {
      const scalar = await loadOgham(w.file, { simd: false });
      row.res.scalar = await time(async () => w.ogham(scalar, inputs));
    }
  } catch (e) {
    console.log(`${w.name}: Ogham failed: ${e.message}`);
    rows.push({ name: w.name, work, res: { ogham: { error: String(e.message).split('\n')[0] } } });
    continue;
  }
  const tfCache = {};
  const jaxCache = {};
  for (const [key, fn] of [
    ['tf', () => w.tf(peers.tf, inputs, tfCache)],
    ['jax', () => w.jax(peers.jax, inputs, jaxCache)],
  ]) {
    try {
      row.res[key] = await time(fn);
      const ref = row.res.ogham.out;
      const isInt = ref.every((r) => r instanceof Int32Array);
      row.res[key].agree = isInt ? mismatchFraction(row.res[key].out, ref) : maxRelDiff(row.res[key].out, ref);
      row.res[key].isInt = isInt;
    } catch (e) {
      row.res[key] = { error: String(e.message ?? e).split('\n')[0] };
    }
  }
  rows.push(row);
  const show = (r) => (r ? (r.error ? `error: ${r.error}` : `${r.median.toFixed(2)} ms`) : '-');
  console.log(
    `${w.name}: ogham ${show(row.res.ogham)}, no-simd ${show(row.res.scalar)}, tfjs ${show(row.res.tf)}, jax-js ${show(row.res.jax)}`,
  );
}

function rate(work, ms) {
  if (work.flops) return `${(work.flops / ms / 1e6).toFixed(2)} GFLOP/s${work.approx ? '*' : ''}`;
  return `${(work.bytes / ms / 1e6).toFixed(2)} GB/s`;
}
const fmt = (r) => `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;

const lines = [];
lines.push('# Benchmarks: Ogham (wasm backend) against TensorFlow.js and jax-js, in Node');
lines.push('');
lines.push('The table is written by `node bench/run.mjs` (see bench/README.md); the notes after it by hand.');
lines.push('');
lines.push(`Conditions: Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ` +
  `@tensorflow/tfjs ${peers.versions.tf} on its \`${peers.versions.tfBackend}\` backend (SIMD ${peers.versions.tfSimd ? 'on' : 'off'}, threads ${peers.versions.tfThreads ? 'on' : 'off'}), @jax-js/jax ${peers.versions.jax} on its \`wasm\` device; ` +
  `${warmup} warm-up runs then ${runs} timed runs per cell; ${new Date().toISOString().slice(0, 16)}Z.`);
lines.push('');
lines.push('Times are milliseconds per call: median (min–max). Every implementation goes from JS typed arrays to JS');
lines.push('typed arrays (inputs uploaded, computation, results read back). Ogham runs the module that `ogham build`');
lines.push('writes, through `runtime/js/ogham.mjs`, on one thread; "no SIMD" is the same program built with `--no-simd`.');
lines.push('The rate is the median\'s; * marks a nominal flop count (see bench/workloads.mjs). A ratio is the peer\'s');
lines.push('median over Ogham\'s: above 1 means Ogham is faster. "agree" is the largest difference from Ogham\'s');
lines.push('result relative to its largest magnitude (for integer results, the fraction of elements that differ).');
lines.push('');
lines.push('| workload | Ogham | rate | no SIMD | SIMD speed-up | TF.js | ratio | agree | jax-js | ratio | agree |');
lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const o = r.res.ogham;
  if (o.error) {
    lines.push(`| ${r.name} | error: ${o.error.replace(/\|/g, '/')} | – | – | – | – | – | – | – | – | – |`);
    continue;
  }
  const cells = [r.name, fmt(o), rate(r.work, o.median)];
  cells.push(r.res.scalar ? fmt(r.res.scalar) : '–');
  cells.push(r.res.scalar ? `${(r.res.scalar.median / o.median).toFixed(2)}×` : '–');
  for (const k of ['tf', 'jax']) {
    const p = r.res[k];
    if (p.error) {
      cells.push(`error: ${p.error.replace(/\|/g, '/')}`, '–', '–');
    } else {
      cells.push(`${fmt(p)}, ${rate(r.work, p.median)}`, `${(p.median / o.median).toFixed(2)}×`, p.agree.toExponential(1));
    }
  }
  lines.push(`| ${cells.join(' | ')} |`);
}
lines.push('');
const text = `${lines.join('\n')}\n`;
console.log(`\n${text}`);
if (write) {
  const notes = process.env.BENCH_NOTES ? `${process.env.BENCH_NOTES.trim()}\n` : '';
  writeFileSync(path.join(root, 'docs', 'benchmarks.md'), text + notes);
  console.log('wrote docs/benchmarks.md');
}
