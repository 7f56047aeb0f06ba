// The benchmark page: a workload of ../workloads.mjs on Ogham's webgpu backend (the npm
// package, the program compiled once with `load`), TensorFlow.js's webgpu backend and jax-js's
// webgpu device, timed from typed arrays to typed arrays. Each result is compared with Ogham's
// wasm backend run in the same page (the reference that the Node table compares the peers with)
// and, for the peers, with Ogham's webgpu result when it ran in the same page. `window.bench` is
// driven by ./driver.mjs.
import { init, load, version } from '/web/index.js';
import { workloads } from '../workloads.mjs';
import { timeRuns, agreement } from '../common.mjs';

const log = (s) => {
  document.getElementById('log').textContent += `${s}\n`;
};
const message = (e) => String(e?.message ?? e).split('\n')[0];
const pkgVersion = async (name) =>
  (await (await fetch(`/bench/node_modules/${name}/package.json`)).json()).version;

async function setup() {
  await init();
  const adapter = await navigator.gpu?.requestAdapter();
  return {
    ogham: version(),
    adapter: adapter
      ? [adapter.info?.vendor, adapter.info?.architecture, adapter.info?.description].filter(Boolean).join(' ')
      : null,
    tf: await pkgVersion('@tensorflow/tfjs'),
    tfWebgpu: await pkgVersion('@tensorflow/tfjs-backend-webgpu'),
    jax: await pkgVersion('@jax-js/jax'),
  };
}

// The peers open their GPU devices only when a workload first needs them, so that a page that
// runs one implementation holds one device.
let tfReady = null;
let jaxReady = null;

function loadTf() {
  tfReady ??= (async () => {
    const tf = window.tf;
    if (!(await tf.setBackend('webgpu'))) throw new Error('tf.setBackend("webgpu") failed');
    await tf.ready();
    return tf;
  })();
  return tfReady;
}

function loadJax() {
  jaxReady ??= (async () => {
    const m = await import('@jax-js/jax');
    const devices = await m.init('webgpu');
    if (!devices.includes('webgpu')) throw new Error('jax-js found no webgpu device');
    m.defaultDevice('webgpu');
    return { np: m.numpy, nn: m.nn, jit: m.jit, grad: m.grad };
  })();
  return jaxReady;
}

const sources = new Map();
async function source(file) {
  if (!sources.has(file)) sources.set(file, await (await fetch(`/examples/bench/${file}.fut`)).text());
  return sources.get(file);
}

const ready = setup();

/**
 * Run one workload: `size` is "full" or "smoke"; `impls` which of "ogham", "tf" and "jax" to
 * time (in that order); `warmup` and `runs` as in Node; `budgetMs` stops the timed runs of a cell
 * early once they have taken that long (at least one run). Each result is compared with the
 * reference, and the peers' also with Ogham's webgpu result when it ran in this page.
 */
async function run(name, { size = 'full', impls = ['ogham', 'tf', 'jax'], warmup = 1, runs = 3, budgetMs = Infinity } = {}) {
  await ready;
  const w = workloads.find((x) => x.name === name);
  if (!w) throw new Error(`no workload named ${name}`);
  const inputs = w.setup(w.size[size]);
  const src = await source(w.file);
  const opts = { warmup, runs, budgetMs };
  const row = { name, res: {} };
  log(`${name} (${size}): ${impls.join(', ')}`);

  let ref = null;
  try {
    const cpu = await load(src, { backend: 'wasm' });
    ref = await w.ogham(cpu, inputs);
    cpu.free();
  } catch (e) {
    row.refError = message(e);
  }

  const outs = {};
  const tfCache = {};
  const jaxCache = {};
  const cells = {
    ogham: async () => {
      const p = await load(src, { backend: 'webgpu' });
      try {
        return await timeRuns(() => w.ogham(p, inputs), opts);
      } finally {
        p.free();
      }
    },
    tf: async () => {
      const tf = await loadTf();
      return timeRuns(() => w.tf(tf, inputs, tfCache), opts);
    },
    jax: async () => {
      const jax = await loadJax();
      return timeRuns(() => w.jax(jax, inputs, jaxCache), opts);
    },
  };
  for (const key of impls) {
    try {
      const r = await cells[key]();
      outs[key] = r.out;
      delete r.out;
      row.res[key] = r;
    } catch (e) {
      row.res[key] = { error: message(e) };
    }
  }
  for (const [key, r] of Object.entries(row.res)) {
    if (r.error) continue;
    if (ref) Object.assign(r, agreement(outs[key], ref));
    if (key !== 'ogham' && outs.ogham) r.agreeOgham = agreement(outs[key], outs.ogham).agree;
  }
  log(JSON.stringify(row));
  return row;
}

window.bench = {
  names: workloads.map((w) => w.name),
  ready,
  run,
};
