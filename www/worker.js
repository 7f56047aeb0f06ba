// The compiler's Web Worker: compiles and runs programs with the `ogham` package so the page
// never blocks; the page terminates it to stop a runaway program.
import { init, compile, run, randomArgs } from './ogham/index.js';

const ready = init();

function plain(r) {
  // Numbers for plots (BigInts and bools converted); the text keeps exact values.
  return { type: r.type, shape: r.shape, text: r.text, data: Float64Array.from(r.data, Number) };
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    await ready;
  } catch (e) {
    self.postMessage({ kind: 'fatal', message: `the compiler did not load: ${e}` });
    return;
  }
  if (msg.kind === 'compile') {
    const t0 = performance.now();
    const c = compile(msg.source, { derivative: msg.derivative });
    const total = performance.now() - t0;
    self.postMessage({ kind: 'compiled', id: msg.id, result: c, total });
  } else if (msg.kind === 'random') {
    try {
      const args = randomArgs(msg.source, msg.entry, { size: msg.size, seed: msg.seed });
      self.postMessage({ kind: 'random', args });
    } catch (e) {
      const diagnostics = e?.diagnostics ?? [{ message: String(e), severity: 'error', phase: 'error', span: null, hint: null }];
      self.postMessage({ kind: 'random', diagnostics });
    }
  } else if (msg.kind === 'run') {
    const t0 = performance.now();
    try {
      const results = await run(msg.source, msg.entry, msg.args, { backend: msg.backend });
      self.postMessage({ kind: 'ran', id: msg.id, ok: true, results: results.map(plain), ms: performance.now() - t0 });
    } catch (e) {
      const diagnostics = e?.diagnostics ?? [{ message: String(e), severity: 'error', phase: 'error', span: null, hint: null }];
      self.postMessage({ kind: 'ran', id: msg.id, ok: false, diagnostics, ms: performance.now() - t0 });
    }
  }
};
