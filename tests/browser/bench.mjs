// Benchmark: the compiler inside wasm in headless Chromium. For every example, the median (of
// RUNS) time of `compile` from source to the wasm module (parse, check, lower, ad, wasm), to
// its text, and from source to WGSL (parse, check, lower, ad, wgsl), as the package's own
// per-stage timings report them; then the median and maximum over all examples, and the gzip
// size of the compiler's wasm. Run after www/build.sh:
//   node tests/browser/bench.mjs
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './serve.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = [];
for (const sub of ['', 'automap/', 'ad/']) {
  for (const f of readdirSync(`${root}examples/${sub}`).sort()) {
    if (f.endsWith('.fut')) examples.push([sub + f.replace(/\.fut$/, ''), readFileSync(`${root}examples/${sub}${f}`, 'utf8')]);
  }
}

const server = await startServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const rows = await page.evaluate(async ({ examples, runs }) => {
    const m = await import('/ogham/index.js');
    await m.init();
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const out = [];
    for (const [name, src] of examples) {
      m.compile(src); // warm-up
      const toWasm = [];
      const toText = [];
      const toWgsl = [];
      let errors = 0;
      let gpu = true;
      for (let k = 0; k < runs; k++) {
        const c = m.compile(src);
        errors = c.diagnostics.length;
        const t = c.timings;
        const w = ['parse', 'check', 'lower', 'ad', 'wasm'].reduce((a, s) => a + (t[s] ?? 0), 0);
        toWasm.push(w);
        toText.push(w + (t.wat ?? 0));
        toWgsl.push(['parse', 'check', 'lower', 'ad', 'wgsl'].reduce((a, s) => a + (t[s] ?? 0), 0));
        gpu = !(c.stages.wgsl ?? '').startsWith('// The GPU backend cannot');
      }
      out.push({ name, wasm: median(toWasm), wat: median(toText), wgsl: median(toWgsl), gpu, errors });
    }
    return out;
  }, { examples, runs: RUNS });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`compile time inside wasm (Chromium ${browser.version()}), median of ${RUNS} runs, ms`);
  console.log('example'.padEnd(32), 'to wasm'.padStart(9), 'to wat'.padStart(9), 'to WGSL'.padStart(9));
  for (const r of rows) {
    const notes = [r.errors ? `${r.errors} diagnostics` : '', r.gpu ? '' : 'WGSL: rejected by the GPU backend'].filter(Boolean);
    console.log(r.name.padEnd(32), r.wasm.toFixed(2).padStart(9), r.wat.toFixed(2).padStart(9), r.wgsl.toFixed(2).padStart(9), notes.length ? `(${notes.join('; ')})` : '');
  }
  const slowest = (key) => rows.reduce((a, b) => (b[key] > a[key] ? b : a));
  const summary = (key, label) => {
    const s = slowest(key);
    console.log(`${label}: median ${median(rows.map((r) => r[key])).toFixed(2)} ms, max ${s[key].toFixed(2)} ms (${s.name})`);
  };
  console.log(`examples: ${rows.length} (${rows.filter((r) => r.gpu).length} compile for the GPU)`);
  summary('wasm', 'source to wasm');
  summary('wat', 'source to wat ');
  summary('wgsl', 'source to WGSL');
  const wasm = readFileSync(`${root}web/pkg/ogham_web_bg.wasm`);
  console.log(`compiler wasm bundle: ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} bytes gzipped`);
} finally {
  await browser.close();
  server.stop();
}
