// Runs modules compiled by Ogham's wasm backend with WebAssembly.instantiate (browsers, Node).
// `manifest` is the JSON from `ogham::backend::wasm::Manifest::to_json`. Arrays go in and come
// out as { shape, data } with typed-array data; scalars as numbers, booleans or BigInts (64-bit).
//
// A module built with threads (`ogham build --threads`, `manifest.threads`) imports a shared
// memory and `threads.par_for(k, n, env)`: its parallel maps call that, and a pool of workers
// (worker.mjs, each an instance of the module on the same memory) runs `par.K` over pieces of
// [0, n) with the calling thread, which waits until all are done (with Atomics.wait, or by
// spinning where the thread may not block: a browser's main thread). With one thread, or for a
// module without parallel maps, the pieces run inline. `instantiateShared` is that part alone:
// the npm package (web/) instantiates the modules it compiles with it.

const ARRAYS = {
  bool: Uint8Array, i8: Int8Array, u8: Uint8Array, i16: Int16Array, u16: Uint16Array,
  i32: Int32Array, u32: Uint32Array, f32: Float32Array, i64: BigInt64Array, u64: BigUint64Array,
  f64: Float64Array,
};
const ERR_ARGS = 64;

export function mathImports() {
  const m = {};
  const f32 = Math.fround;
  const fns = {
    exp: Math.exp, log: Math.log, log2: Math.log2, log10: Math.log10, sin: Math.sin, cos: Math.cos,
    tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan, sinh: Math.sinh,
    cosh: Math.cosh, tanh: Math.tanh, cbrt: Math.cbrt, log1p: Math.log1p, asinh: Math.asinh,
    acosh: Math.acosh, atanh: Math.atanh, atan2: Math.atan2, hypot: Math.hypot, pow: Math.pow,
    fmod: (x, y) => x % y,
    // JS has no fused multiply-add: this rounds twice.
    fma: (a, b, c) => a * b + c,
  };
  for (const [name, f] of Object.entries(fns)) {
    m[`f64.${name}`] = f;
    m[`f32.${name}`] = (...xs) => f32(f(...xs));
  }
  m['f64.to_i64_wrapping'] = (x) =>
    !Number.isFinite(x) || Math.abs(x) >= 1.7014118346046923e38 ? 0n : BigInt.asIntN(64, BigInt(Math.trunc(x)));
  // f16 values live in f32; these convert with round-to-nearest-even.
  const f32buf = new Float32Array(1);
  const u32buf = new Uint32Array(f32buf.buffer);
  const toBits = (x) => {
    f32buf[0] = x;
    const b = u32buf[0];
    const sign = (b >>> 16) & 0x8000;
    const exp = (b >>> 23) & 0xff;
    let man = b & 0x7fffff;
    if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
    let e = exp - 127 + 15;
    if (e >= 0x1f) return sign | 0x7c00;
    if (e <= 0) {
      if (e < -10) return sign;
      man |= 0x800000;
      const shift = 14 - e;
      let h = man >>> shift;
      const rem = man & ((1 << shift) - 1);
      const half = 1 << (shift - 1);
      if (rem > half || (rem === half && (h & 1))) h += 1;
      return sign | h;
    }
    let h = (e << 10) | (man >>> 13);
    const rem = man & 0x1fff;
    if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h += 1;
    return sign | h;
  };
  const fromBits = (h) => {
    h &= 0xffff;
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >>> 10) & 0x1f;
    const m = h & 0x3ff;
    if (e === 0) return sign * m * 2 ** -24;
    if (e === 0x1f) return m ? NaN : sign * Infinity;
    return sign * (1 + m / 1024) * 2 ** (e - 15);
  };
  m['f16.to_bits'] = toBits;
  m['f16.from_bits'] = fromBits;
  m['f16.round'] = (x) => fromBits(toBits(x));
  // Rounds through f32 first (twice); exact for values that f32 holds exactly.
  m['f16.from_f64'] = (x) => fromBits(toBits(x));
  return { math: m };
}

/**
 * Compile and instantiate a module. `opts.threads`: how many threads a module built with threads
 * uses (the calling one included; default: every core).
 */
export async function load(bytes, manifest, opts = {}) {
  if (!manifest.threads) {
    const { instance } = await WebAssembly.instantiate(bytes, mathImports());
    return new Program(instance.exports, manifest, null);
  }
  const module = await WebAssembly.compile(bytes);
  const threads = opts.threads ?? (await cores());
  const { exports, pool } = await instantiateShared(module, { threads });
  return new Program(exports, manifest, pool);
}

/**
 * Instantiate `module` (a `WebAssembly.Module` built with threads) on a new shared memory, with
 * a pool of `threads - 1` workers if it has parallel maps. `math`: the `math` imports of this
 * thread (default: `mathImports()`'s); `workerMath`: `{module, names}` to have each worker take
 * its `math` imports from the exports of another module instead of `mathImports()`: it
 * instantiates `module` (every import a function that throws) and imports `math.NAME` from its
 * export `names[NAME]`. Resolves to `{exports, memory, pool}` (`pool` null without workers;
 * `pool.close()` stops them).
 */
export async function instantiateShared(module, { threads = 1, math, workerMath } = {}) {
  let memory;
  try {
    memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
  } catch (e) {
    throw new Error(`this module was built with threads and needs a shared memory, which this host cannot create (${e.message}); build it without --threads`);
  }
  const parallel = WebAssembly.Module.exports(module).some((e) => e.name.startsWith('par.'));
  const workers = Math.max(1, Math.floor(threads)) - 1;
  const pool = workers > 0 && parallel ? await Pool.start(module, memory, workers, workerMath) : null;
  let x = null;
  let busy = false;
  // Each parallel map's last serial cost (ms): one cheaper than SERIAL_MS (a small map inside a
  // loop) runs on the calling thread, where waking the workers would cost more than it saves.
  const cost = new Map();
  // Looked up once: a small map inside a loop calls this thousands of times.
  const fns = [];
  const parFor = (k, n, env) => {
    const f = (fns[k] ??= x[`par.${k}`]);
    const t0 = performance.now();
    if (!pool || busy || n < 2n || cost.get(k) < SERIAL_MS) {
      f(env, 0n, n);
      cost.set(k, performance.now() - t0);
      return;
    }
    busy = true;
    try {
      pool.run(x, k, n, env, f);
    } finally {
      busy = false;
    }
    cost.set(k, (performance.now() - t0) * pool.threads);
  };
  const imports = { math: math ?? mathImports().math, env: { memory }, threads: { par_for: parFor } };
  try {
    // A Module instantiates to an Instance.
    x = (await WebAssembly.instantiate(module, imports)).exports;
  } catch (e) {
    pool?.close();
    throw e;
  }
  return { exports: x, memory, pool };
}

export async function cores() {
  if (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) return navigator.hardwareConcurrency;
  try {
    const os = await import('node:os');
    return os.availableParallelism?.() ?? os.cpus().length;
  } catch {
    return 1;
  }
}

// Atomics.wait is refused on a browser's main thread.
function canBlock() {
  if (typeof process !== 'undefined' && process.versions?.node) return true;
  return typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;
}

const SERIAL_MS = 0.25;

// The control block shared with the workers: Int32 slots, then BigInt64 slots from byte 32.
const GEN = 0, PENDING = 1, TASK_K = 2, TASK_ENV = 3, ERR = 4, ERR_CODE = 5, ERR_SITE = 6, QUIT = 7;
const N = 4, NEXT = 5, GRAIN = 6;

export class Pool {
  // `math`: where the workers take their `math` imports from (see `instantiateShared`). The
  // workers' URLs are written out in `new Worker(new URL(...))`, the form bundlers look for.
  static async start(module, memory, workers, math) {
    const sab = new SharedArrayBuffer(64);
    const init = { module, memory, ctl: sab, math };
    const ws = [];
    try {
      if (typeof process !== 'undefined' && process.versions?.node) {
        const { Worker } = await import('node:worker_threads');
        for (let i = 0; i < workers; i++) {
          ws.push(new Worker(new URL('./worker.mjs', import.meta.url), { workerData: init }));
        }
        await Promise.all(ws.map((w) => new Promise((ok, fail) => {
          w.once('message', (m) => (m === 'ready' ? ok() : fail(new Error(m))));
          w.once('error', fail);
        })));
        for (const w of ws) w.unref();
      } else {
        for (let i = 0; i < workers; i++) {
          const w = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
          w.postMessage(init);
          ws.push(w);
        }
        await Promise.all(ws.map((w) => new Promise((ok, fail) => {
          w.onmessage = (e) => (e.data === 'ready' ? ok() : fail(new Error(e.data)));
          w.onerror = (e) => fail(new Error(e.message || 'a worker thread did not start'));
        })));
      }
    } catch (e) {
      for (const w of ws) w.terminate();
      throw e;
    }
    return new Pool(ws, sab);
  }

  constructor(workers, sab) {
    this.workers = workers;
    this.block = canBlock();
    this.i = new Int32Array(sab);
    this.b = new BigInt64Array(sab);
  }

  get threads() {
    return this.workers.length + 1;
  }

  // Run par.k over [0, n) on every thread.
  run(x, k, n, env, f) {
    const { i, b } = this;
    const grain = n / BigInt(this.threads * 8) || 1n;
    i[TASK_K] = k;
    i[TASK_ENV] = env;
    i[ERR] = 0;
    b[N] = n;
    b[GRAIN] = grain;
    Atomics.store(b, NEXT, 0n);
    Atomics.store(i, PENDING, this.workers.length);
    Atomics.add(i, GEN, 1);
    Atomics.notify(i, GEN);
    let mine = null;
    for (;;) {
      const s = Atomics.add(b, NEXT, grain);
      if (s >= n) break;
      try {
        f(env, s, s + grain < n ? s + grain : n);
      } catch (e) {
        Atomics.store(b, NEXT, n);
        mine = e;
        break;
      }
    }
    // Where this thread may not block, it spins: the other threads are at their last pieces.
    for (;;) {
      const p = Atomics.load(i, PENDING);
      if (p === 0) break;
      if (this.block) Atomics.wait(i, PENDING, p);
    }
    if (mine || i[ERR]) {
      // Report the error a serial run reports (that of the first failing iteration): run the
      // map again on this thread. Iterations only write their own rows.
      f(env, 0n, n);
    }
    if (mine) throw mine;
    if (i[ERR]) {
      x.err_code.value = i[ERR_CODE];
      x.err_site.value = i[ERR_SITE];
      throw new Error('a worker thread trapped');
    }
  }

  close() {
    Atomics.store(this.i, QUIT, 1);
    Atomics.add(this.i, GEN, 1);
    Atomics.notify(this.i, GEN);
    for (const w of this.workers) w.terminate();
  }
}

function readScalar(view, addr, t) {
  switch (t) {
    case 'bool': return view.getUint8(addr) !== 0;
    case 'i8': return view.getInt8(addr);
    case 'u8': return view.getUint8(addr);
    case 'i16': return view.getInt16(addr, true);
    case 'u16': return view.getUint16(addr, true);
    case 'i32': return view.getInt32(addr, true);
    case 'u32': return view.getUint32(addr, true);
    case 'i64': return view.getBigInt64(addr, true);
    case 'u64': return view.getBigUint64(addr, true);
    case 'f32': return view.getFloat32(addr, true);
    case 'f64': return view.getFloat64(addr, true);
    default: throw new Error(`unsupported type ${t}`);
  }
}

function fill(msg, vals) {
  let k = 0;
  return msg.replace(/\{\}/g, () => (k < vals.length ? String(vals[k++]) : '{}'));
}

// Node's buffers can be had without zeroing them first (`Buffer.allocUnsafeSlow`: never pooled,
// so the buffer is its own ArrayBuffer from offset 0).
const allocUnsafe = globalThis.Buffer?.allocUnsafeSlow;

// A result copied out of the module's memory (the arena is reused by the next call) into a
// fresh, unshared array. In Node, into an uninitialised buffer with `set`: for a 4 MiB result
// that is about 0.22 ms, against 0.35-0.45 ms for `slice` (which zeroes first and, from a shared
// memory, may copy element by element: 2.9 ms for f64). Elsewhere, `slice`.
function copyOut(T, buffer, ptr, n) {
  const src = new T(buffer, ptr, n);
  if (!allocUnsafe) return src.slice();
  const out = new T(allocUnsafe(n * T.BYTES_PER_ELEMENT).buffer, 0, n);
  out.set(src);
  return out;
}

export class Program {
  constructor(exports, manifest, pool) {
    this.x = exports;
    this.manifest = manifest;
    this.pool = pool;
  }

  /** How many threads the parallel maps run on. */
  get threads() {
    return this.pool ? this.pool.threads : 1;
  }

  /** Stop the worker threads (a program built with threads). */
  close() {
    this.pool?.close();
    this.pool = null;
  }

  run(entry, args) {
    const ep = this.manifest.entries.find((e) => e.name === entry);
    if (!ep) {
      const names = this.manifest.entries.map((e) => `\`${e.name}\``).join(', ');
      throw new Error(`unknown entry point \`${entry}\` (entry points: ${names || 'none'})`);
    }
    const x = this.x;
    x.reset();
    try {
      const dims = [];
      const vals = [];
      ep.params.forEach((p, k) => {
        const a = args[k];
        if (p.rank === 0) {
          vals.push(p.elem === 'bool' ? (a ? 1 : 0) : a);
          return;
        }
        const bytes = a.data.byteLength;
        const ptr = x.alloc(BigInt(bytes));
        new Uint8Array(x.memory.buffer, ptr, bytes).set(new Uint8Array(a.data.buffer, a.data.byteOffset, bytes));
        for (const d of a.shape) dims.push(BigInt(d));
        vals.push(ptr);
      });
      let rec;
      const t0 = performance.now();
      try {
        rec = x[ep.export](...dims, ...vals);
      } catch (e) {
        throw this.error(e);
      } finally {
        // The module's own time, without copying arguments in and results out.
        this.callMs = performance.now() - t0;
      }
      const view = new DataView(x.memory.buffer);
      let addr = rec;
      return ep.results.map((r) => {
        if (r.rank === 0) {
          const v = readScalar(view, addr, r.elem);
          addr += 8;
          return v;
        }
        const ptr = Number(view.getBigInt64(addr, true));
        const shape = [];
        for (let k = 1; k <= r.rank; k++) shape.push(Number(view.getBigInt64(addr + 8 * k, true)));
        addr += 8 * (1 + r.rank);
        const n = shape.reduce((a, b) => a * b, 1);
        return { shape, data: copyOut(ARRAYS[r.elem], x.memory.buffer, ptr, n) };
      });
    } finally {
      x.reset();
    }
  }

  error(trap) {
    const code = this.x.err_code.value;
    const site = this.manifest.sites[this.x.err_site.value];
    this.x.err_code.value = 0;
    if (code === 2) return new Error('out of memory: the arena cannot grow');
    if (code !== 1 || !site) return trap;
    const view = new DataView(this.x.memory.buffer);
    const vals = site.args.map((t, k) => readScalar(view, ERR_ARGS + 8 * k, t));
    const e = new Error(fill(site.msg, vals));
    e.span = site.span;
    return e;
  }
}
