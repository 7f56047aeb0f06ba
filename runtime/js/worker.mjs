// A worker thread of a program built with threads (see ogham.mjs): an instance of the module on
// the shared memory, which waits for the calling thread to publish a task in the control block
// and runs pieces of it until none is left.
import { mathImports } from './ogham.mjs';

const GEN = 0, PENDING = 1, TASK_K = 2, TASK_ENV = 3, ERR = 4, ERR_CODE = 5, ERR_SITE = 6, QUIT = 7;
const N = 4, NEXT = 5, GRAIN = 6;

const node = typeof process !== 'undefined' && process.versions?.node;
let init;
let post;
if (node) {
  const wt = await import('node:worker_threads');
  init = wt.workerData;
  post = (m) => wt.parentPort.postMessage(m);
} else {
  init = await new Promise((ok) => self.addEventListener('message', (e) => ok(e.data), { once: true }));
  post = (m) => self.postMessage(m);
}

const { module, memory, ctl, math } = init;

// The `math` imports as exports of another module (`instantiateShared`'s `workerMath`):
// instantiated with every import a function that throws, since only pure functions are called.
async function exported({ module: lib, names }) {
  const imports = {};
  for (const { module: m, name } of WebAssembly.Module.imports(lib)) {
    (imports[m] ??= {})[name] = () => {
      throw new Error(`${m}.${name} is not available in a worker thread`);
    };
  }
  const { exports } = await WebAssembly.instantiate(lib, imports);
  return Object.fromEntries(Object.entries(names).map(([k, e]) => [k, exports[e]]));
}

const i = new Int32Array(ctl);
const b = new BigInt64Array(ctl);
let x = null;
try {
  // A parallel map reached inside a parallel map runs on this thread.
  const fns = [];
  const parFor = (k, n, env) => (fns[k] ??= x[`par.${k}`])(env, 0n, n);
  const m = math ? await exported(math) : mathImports().math;
  const imports = { math: m, env: { memory }, threads: { par_for: parFor } };
  x = (await WebAssembly.instantiate(module, imports)).exports;
} catch (e) {
  post(`cannot start a worker thread: ${e.message}`);
}

// Read before saying ready: no task is published until every worker is.
let gen = Atomics.load(i, GEN);
if (x) post('ready');
while (x) {
  Atomics.wait(i, GEN, gen);
  gen = Atomics.load(i, GEN);
  if (Atomics.load(i, QUIT)) break;
  const f = x[`par.${i[TASK_K]}`];
  const env = i[TASK_ENV];
  const n = b[N];
  const grain = b[GRAIN];
  x.reset_thread();
  for (;;) {
    const s = Atomics.add(b, NEXT, grain);
    if (s >= n) break;
    try {
      f(env, s, s + grain < n ? s + grain : n);
    } catch {
      Atomics.store(b, NEXT, n);
      if (Atomics.compareExchange(i, ERR, 0, 1) === 0) {
        i[ERR_CODE] = x.err_code.value;
        i[ERR_SITE] = x.err_site.value;
      }
      x.err_code.value = 0;
      break;
    }
  }
  if (Atomics.sub(i, PENDING, 1) === 1) Atomics.notify(i, PENDING);
}
