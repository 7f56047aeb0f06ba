// The npm package `ogham`: a thin layer over the wasm-bindgen output in pkg/ that loads the
// compiler's wasm the right way for the host (a file read in Node, a fetch in browsers).
import initWasm, {
  initSync, compile as compileRaw, run as runRaw, randomArgs as randomArgsRaw, version as versionRaw,
} from './pkg/ogham_web.js';

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
  return runRaw(String(source), String(entry), String(args), options ?? {});
}

export function version() {
  ensureLoaded();
  return versionRaw();
}
