// The npm package `ogham`: a thin layer over the wasm-bindgen output in pkg/ that loads the
// compiler's wasm the right way for the host (a file read in Node, a fetch in browsers).
import initWasm, {
  initSync, compile as compileRaw, run as runRaw, randomArgs as randomArgsRaw, version as versionRaw,
  load as loadRaw, formatValue, setThreadHost,
} from './pkg/ogham_web.js';
import * as threads from './threads.js';

let ready = null;
let loaded = false;

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** Load the compiler. `source` (optional) is the .wasm's URL, bytes or a compiled module. */
export function init(source) {
  if (!ready) {
    ready = (async () => {
      if (source !== undefined) {
        await initWasm({ module_or_path: source });
      } else if (isNode) {
        const { readFile } = await import('node:fs/promises');
        initSync({ module: await readFile(new URL('./pkg/ogham_web_bg.wasm', import.meta.url)) });
      } else {
        await initWasm({ module_or_path: new URL('./pkg/ogham_web_bg.wasm', import.meta.url) });
      }
      // The wasm backend runs programs on every core where the host allows threads.
      setThreadHost(threads);
      loaded = true;
    })();
  }
  return ready;
}

function ensureLoaded() {
  if (!loaded) throw new Error('ogham: call `await init()` before `compile`');
}

/** Compile through every stage; see index.d.ts for the result's shape. Never throws on bad programs. */
export function compile(source, options = {}) {
  ensureLoaded();
  return compileRaw(String(source), options ?? {});
}

/** Random arguments of the right types for an entry point, in Futhark value syntax. */
export function randomArgs(source, entry, options = {}) {
  ensureLoaded();
  const size = Number(options?.size ?? 8);
  const seed = Number(options?.seed ?? 0);
  return randomArgsRaw(String(source), String(entry), size, seed);
}

/** Run an entry point; resolves to the results, rejects with an Error carrying `diagnostics`. */
export async function run(source, entry, args = '', options = {}) {
  await init();
  return runRaw(String(source), String(entry), typeof args === 'string' ? args : args ?? '', options ?? {});
}

// A result's `text` is computed when first read: printing millions of elements would cost more
// than the run that produced them.
function withText(r) {
  let text;
  Object.defineProperty(r, 'text', {
    get: () => (text ??= formatValue(r)),
    enumerable: false,
    configurable: true,
  });
  return r;
}

/** A program compiled once for one backend (from `load`); `run` only runs it. */
export class Program {
  #raw;

  constructor(raw) {
    this.#raw = raw;
    /** The entry points' names. */
    this.entries = raw.entries;
    /** "wasm", "interp" or "webgpu". */
    this.backend = raw.backend;
    /** How many threads the program's parallel maps run on (wasm; 1 for the other backends). */
    this.threads = raw.threads;
  }

  /** Run `entry`: resolves to the results, rejects with an Error carrying `diagnostics`. */
  async run(entry, args = []) {
    if (!this.#raw) throw new Error('ogham: this program was freed');
    const rs = await this.#raw.run(String(entry), args ?? []);
    return rs.map(withText);
  }

  /** Release the compiled program (its wasm instance and worker threads, or GPU pipelines) now. */
  free() {
    this.#raw?.free();
    this.#raw = null;
  }
}

/**
 * Compile `source` once for `options.backend`, on `options.threads` threads (default: every core
 * where the host allows threads); rejects with an Error carrying `diagnostics`.
 */
export async function load(source, options = {}) {
  await init();
  return new Program(await loadRaw(String(source), options ?? {}));
}

export function version() {
  ensureLoaded();
  return versionRaw();
}
