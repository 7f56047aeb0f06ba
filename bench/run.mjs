// The benchmark, two tables:
// - Node: every workload of workloads.mjs on Ogham's wasm backend (SIMD and, where SIMD applies,
//   the same program built without SIMD), TensorFlow.js (wasm backend) and jax-js (wasm device);
// - WebGPU: the same workloads in headless Chromium on Ogham's webgpu backend (the npm package),
//   TensorFlow.js (webgpu backend) and jax-js (webgpu device), driven by browser/driver.mjs;
// with warm-up and several timed runs; writes docs/benchmarks.md.
//
//   node bench/run.mjs [--runs N] [--warmup N] [--gpu-runs N] [--gpu-warmup N] [--gpu-budget S]
//                      [--only TEXT] [--wasm-only | --webgpu-only] [--no-write]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workloads } from './workloads.mjs';
import { loadOgham, loadPeers, agreement, timeInterleaved, root } from './harness.mjs';
import { missing, runIsolated } from './browser/driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const runs = Number(opt('--runs', 11));
// Enough warm-up calls for V8 to have tiered every module (and each worker's instance) up to
// optimised code: with 2, a 2-thread cell could still time baseline code.
const warmup = Number(opt('--warmup', 5));
// The WebGPU table has its own, smaller defaults: on a software adapter some cells take seconds.
const gpuRuns = Number(opt('--gpu-runs', 5));
const gpuWarmup = Number(opt('--gpu-warmup', 1));
const gpuBudget = Number(opt('--gpu-budget', 30));
const only = opt('--only', null);
const write = !argv.includes('--no-write');
const doWasm = !argv.includes('--webgpu-only');
const doGpu = !argv.includes('--wasm-only');
const selected = workloads.filter((w) => !only || w.name.includes(only));
const docPath = path.join(root, 'docs', 'benchmarks.md');
const previous = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';

// Beyond these, a result is marked wrong: floats relative to the largest magnitude, integers as
// the fraction of elements that differ (escape counts may differ on the bailout boundary).
const TOL_FLOAT = 1e-3;
const TOL_INT = 0.01;
const wrong = (r) => r.agree > (r.isInt ? TOL_INT : TOL_FLOAT) || Number.isNaN(r.agree);

const show = (r) => (r ? (r.error ? `error: ${r.error}` : `${r.median.toFixed(2)} ms`) : '-');
const cellText = (s) => s.replace(/\|/g, '/');
function rate(work, ms) {
  if (work.flops) return `${(work.flops / ms / 1e6).toFixed(2)} GFLOP/s${work.approx ? '*' : ''}`;
  return `${(work.bytes / ms / 1e6).toFixed(2)} GB/s`;
}
const fmt = (r) => `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
const agreeText = (r) => `${r.agree.toExponential(1)}${wrong(r) ? ' **wrong**' : ''}`;
const stamp = () => `${new Date().toISOString().slice(0, 16)}Z`;

/** The Node table (Ogham's wasm modules against the peers' wasm backends) as Markdown lines. */
async function wasmTable() {
  let oghamThreads = 1;
  const peers = await loadPeers();
  const rows = [];
  for (const w of selected) {
    const size = w.size.full;
    const inputs = w.setup(size);
    const work = w.work(size);
    const row = { name: w.name, work, res: {} };
    const opts = { warmup, runs };
    // Every implementation of the workload, timed in turns (`timeInterleaved`).
    const impls = {};
    const loaded = [];
    try {
      const simd = await loadOgham(w.file);
      loaded.push(simd);
      oghamThreads = simd.threads;
      impls.ogham = { fn: () => w.ogham(simd, inputs), probe: () => simd.callMs };
      if (oghamThreads > 1) {
        const one = await loadOgham(w.file, { threads: 1 });
        loaded.push(one);
        impls.one = { fn: () => w.ogham(one, inputs) };
      }
      if (w.simd) {
        const scalar = await loadOgham(w.file, { simd: false });
        loaded.push(scalar);
        impls.scalar = { fn: () => w.ogham(scalar, inputs), probe: () => scalar.callMs };
      }
    } catch (e) {
      for (const p of loaded) p.close();
      console.log(`${w.name}: Ogham failed: ${e.message}`);
      rows.push({ name: w.name, work, res: { ogham: { error: String(e.message).split('\n')[0] } } });
      continue;
    }
    const tfCache = {};
    const jaxCache = {};
    impls.tf = { fn: () => w.tf(peers.tf, inputs, tfCache) };
    impls.jax = { fn: () => w.jax(peers.jax, inputs, jaxCache) };
    row.res = await timeInterleaved(impls, opts);
    for (const p of loaded) p.close();
    if (row.res.ogham.error) {
      console.log(`${w.name}: Ogham failed: ${row.res.ogham.error}`);
      rows.push({ name: w.name, work, res: { ogham: row.res.ogham } });
      continue;
    }
    for (const key of ['tf', 'jax']) {
      if (!row.res[key].error) Object.assign(row.res[key], agreement(row.res[key].out, row.res.ogham.out));
    }
    rows.push(row);
    console.log(
      `${w.name}: ogham ${show(row.res.ogham)}, 1 thread ${show(row.res.one)}, no-simd ${show(row.res.scalar)}, tfjs ${show(row.res.tf)}, jax-js ${show(row.res.jax)}`,
    );
  }

  const v = peers.versions;
  const lines = [];
  lines.push(`Conditions: Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ` +
    `@tensorflow/tfjs ${v.tf} on its \`${v.tfBackend}\` backend (SIMD ${v.tfSimd ? 'on' : 'off'}, threads ${v.tfThreads ? 'on' : 'off'}), @jax-js/jax ${v.jax} on its \`wasm\` device; ` +
    `${warmup} warm-up runs then ${runs} timed runs per cell; ${stamp()}.`);
  lines.push('');
  lines.push('Times are milliseconds per call: median (min–max). Every implementation goes from JS typed arrays to JS');
  lines.push('typed arrays (inputs uploaded, computation, results read back). Ogham runs the module that `ogham build`');
  lines.push(`writes (\`--threads\`), through \`runtime/js/ogham.mjs\`, its parallel maps on ${oghamThreads} thread${oghamThreads === 1 ? '' : 's'} (worker_threads);`);
  lines.push('"1 thread" is the same module on the calling thread alone; "no SIMD" is the same program built with `--no-simd`.');
  lines.push('The SIMD speed-up is the no-SIMD median over the SIMD one, for the whole call and, in parentheses, for the');
  lines.push('module\'s own time (the export\'s call, without copying arguments in and results out).');
  lines.push('The rate is the median\'s; * marks a nominal flop count (see bench/workloads.mjs). A ratio is the peer\'s');
  lines.push('median over Ogham\'s: above 1 means Ogham is faster. "agree" is the largest difference from Ogham\'s');
  lines.push('result relative to its largest magnitude (for integer results, the fraction of elements that differ).');
  lines.push('');
  lines.push('| workload | Ogham | rate | 1 thread | no SIMD | SIMD speed-up | TF.js | ratio | agree | jax-js | ratio | agree |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const o = r.res.ogham;
    if (o.error) {
      lines.push(`| ${r.name} | error: ${cellText(o.error)} | – | – | – | – | – | – | – | – | – | – |`);
      continue;
    }
    const cells = [r.name, fmt(o), rate(r.work, o.median)];
    cells.push(r.res.one ? fmt(r.res.one) : '–');
    cells.push(r.res.scalar ? fmt(r.res.scalar) : '–');
    cells.push(r.res.scalar ? simdSpeedup(r.res.scalar, o) : '–');
    for (const k of ['tf', 'jax']) {
      const p = r.res[k];
      if (p.error) {
        cells.push(`error: ${cellText(p.error)}`, '–', '–');
      } else {
        cells.push(`${fmt(p)}, ${rate(r.work, p.median)}`, `${(p.median / o.median).toFixed(2)}×`, agreeText(p));
      }
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

function simdSpeedup(scalar, simd) {
  const whole = `${(scalar.median / simd.median).toFixed(2)}×`;
  const module = scalar.probeMedian / simd.probeMedian;
  return Number.isFinite(module) ? `${whole} (module ${module.toFixed(2)}×)` : whole;
}

// The issue's targets for the WebGPU table: Ogham at least this many times as fast as the faster
// peer (of those that ran and agreed) on these workloads.
const TARGETS = [
  [/^matmul/, 1.0],
  [/^softmax/, 1.5],
  [/^k-means/, 1.5],
  [/^mandelbrot/, 1.5],
];

/** The WebGPU table (each cell in a fresh headless Chromium) as Markdown lines. */
async function gpuTable() {
  const why = await missing();
  if (why) {
    console.log(`WebGPU table skipped: ${why}`);
    return null;
  }
  const rows = [];
  let info = null;
  const started = Date.now();
  for (const w of selected) {
    const t0 = Date.now();
    const r = await runIsolated(w.name, { size: 'full', warmup: gpuWarmup, runs: gpuRuns, budgetMs: gpuBudget * 1000 });
    info ??= r.info;
    const row = { ...r.row, work: w.work(w.size.full) };
    rows.push(row);
    console.log(
      `${w.name} (WebGPU, ${((Date.now() - t0) / 1000).toFixed(0)} s): ogham ${show(row.res.ogham)}, tfjs ${show(row.res.tf)}, jax-js ${show(row.res.jax)}` +
        (row.refError ? ` (no reference: ${row.refError})` : ''),
    );
  }
  const minutes = ((Date.now() - started) / 60000).toFixed(0);

  const lines = [];
  lines.push(`Conditions: Chromium ${info?.chromium ?? '?'} (headless, \`--enable-unsafe-webgpu\`), WebGPU adapter: ` +
    `${info?.adapter ?? 'none'}; the machine above. Ogham ${info?.ogham ?? '?'} (npm package, \`webgpu\` backend), ` +
    `@tensorflow/tfjs ${info?.tf ?? '?'} with @tensorflow/tfjs-backend-webgpu ${info?.tfWebgpu ?? '?'}, ` +
    `@jax-js/jax ${info?.jax ?? '?'} on its \`webgpu\` device; ${gpuWarmup} warm-up run${gpuWarmup === 1 ? '' : 's'} then ` +
    `${gpuRuns} timed runs per cell, fewer (n=…) where the timed runs of a cell passed ${gpuBudget} s; ` +
    `the table took ${minutes} minutes; ${stamp()}.`);
  lines.push('');
  lines.push('Each cell runs in a fresh browser (a library that loses or fills the GPU cannot affect the others).');
  lines.push('Times are milliseconds per call, median (min–max), from JS typed arrays to JS typed arrays: Ogham\'s program');
  lines.push('is compiled once (`load(source, {backend: "webgpu"})`) and each call of `program.run` converts the typed');
  lines.push('arrays, uploads them, runs the host schedule and its kernels, and reads the results back; TF.js and jax-js');
  lines.push('create tensors from the typed arrays, compute and `await data()`. A ratio is the peer\'s median over Ogham\'s:');
  lines.push('above 1 means Ogham is faster. "agree" compares each result with Ogham\'s wasm backend run on the same');
  lines.push('inputs in the same page (as "agree" in the Node table), relative to the largest magnitude (for integer');
  lines.push(`results, the fraction of elements that differ); **wrong** marks more than ${TOL_FLOAT} (${TOL_INT * 100}% of the elements).`);
  lines.push('');
  lines.push('| workload | Ogham (WebGPU) | rate | agree | TF.js (WebGPU) | ratio | agree | jax-js (WebGPU) | ratio | agree |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  const timed = (r) => `${fmt(r)}${r.runs < gpuRuns ? `, n=${r.runs}` : ''}`;
  for (const r of rows) {
    const o = r.res.ogham;
    const cells = [r.name];
    if (o.error) cells.push(`error: ${cellText(o.error)}`, '–', '–');
    else cells.push(timed(o), rate(r.work, o.median), o.agree === undefined ? '–' : agreeText(o));
    for (const k of ['tf', 'jax']) {
      const p = r.res[k];
      if (p.error) cells.push(`error: ${cellText(p.error)}`, '–', '–');
      else {
        cells.push(
          `${timed(p)}, ${rate(r.work, p.median)}`,
          o.error ? '–' : `${(p.median / o.median).toFixed(2)}×`,
          p.agree === undefined ? '–' : agreeText(p),
        );
      }
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  lines.push('Targets (Ogham\'s median against the faster of the peers that ran and agreed with the reference):');
  lines.push('');
  for (const r of rows) {
    const target = TARGETS.find(([re]) => re.test(r.name))?.[1];
    if (target === undefined) continue;
    const o = r.res.ogham;
    const good = ['tf', 'jax'].filter((k) => !r.res[k].error && !wrong(r.res[k]));
    const failed = ['tf', 'jax'].filter((k) => !good.includes(k)).map((k) => (k === 'tf' ? 'TF.js' : 'jax-js'));
    const excuse = failed.length ? ` (${failed.join(' and ')} did not run or agree)` : '';
    if (o.error || wrong(o)) {
      lines.push(`- ${r.name}: target ≥ ${target.toFixed(1)}×: not met (Ogham ${o.error ? 'failed' : 'disagreed with the reference'}).`);
      continue;
    }
    if (!good.length) {
      lines.push(`- ${r.name}: target ≥ ${target.toFixed(1)}×: no peer to compare with${excuse}.`);
      continue;
    }
    const best = good.reduce((a, b) => (r.res[b].median < r.res[a].median ? b : a));
    const ratio = r.res[best].median / o.median;
    lines.push(`- ${r.name}: ${ratio.toFixed(2)}× the faster peer (${best === 'tf' ? 'TF.js' : 'jax-js'})${excuse}; ` +
      `target ≥ ${target.toFixed(1)}×: ${ratio >= target ? '**met**' : 'not met'}.`);
  }
  return lines;
}

/** The part of the previous document between a section's markers (kept when it is not rerun). */
function previousSection(tag) {
  const m = new RegExp(`<!-- ${tag} -->\\n([\\s\\S]*?)<!-- end ${tag} -->`).exec(previous);
  return m ? m[1].trimEnd().split('\n') : null;
}

const wasmLines = doWasm ? await wasmTable() : previousSection('wasm table');
const gpuLines = doGpu ? await gpuTable() : previousSection('webgpu table');

const out = [];
out.push('# Benchmarks: Ogham against TensorFlow.js and jax-js');
out.push('');
out.push('The tables are written by `node bench/run.mjs` (see bench/README.md); the notes after them by hand.');
out.push('');
out.push('## CPU: Ogham\'s wasm backend in Node');
out.push('');
out.push('<!-- wasm table -->');
out.push(...(wasmLines ?? ['Not run yet: `node bench/run.mjs --wasm-only`.']));
out.push('<!-- end wasm table -->');
out.push('');
out.push('## GPU: Ogham\'s WebGPU backend in headless Chromium');
out.push('');
out.push('<!-- webgpu table -->');
out.push(...(gpuLines ?? ['Not run: headless Chromium, the built package (web/build.sh) or the peers (npm ci in bench/) are missing.']));
out.push('<!-- end webgpu table -->');
out.push('');
const text = `${out.join('\n')}\n`;
console.log(`\n${text}`);
if (write) {
  // Hand-written notes: $BENCH_NOTES, else those of the previous document (check them against the
  // new figures).
  let notes = process.env.BENCH_NOTES ? `\n${process.env.BENCH_NOTES.trim()}\n` : '';
  if (!notes) {
    const i = previous.indexOf('\n## Notes');
    if (i >= 0) {
      notes = previous.slice(i);
      console.log('kept the notes of the previous docs/benchmarks.md: check them against these figures');
    }
  }
  writeFileSync(docPath, text + notes);
  console.log('wrote docs/benchmarks.md');
}
