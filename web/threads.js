// Threads for the wasm backend: where the host has shared memory and workers (Node's
// worker_threads; a cross-origin isolated page or worker), a program is built with threads and
// its parallel maps run on every core. The executor is runtime/js/ogham.mjs and worker.mjs,
// which web/build.sh copies into pkg/; the compiler (web/src/lib.rs) calls `available` and
// `instantiate` through `setThreadHost`.
import { instantiateShared, cores } from './pkg/ogham.mjs';

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

let count = null;

/** How many threads a program may run on here: every core, or 1 without threads. */
export function available() {
  count ??= (async () => {
    if (typeof WebAssembly.Memory !== 'function' || typeof SharedArrayBuffer !== 'function') return 1;
    if (!isNode && (globalThis.crossOriginIsolated !== true || typeof Worker !== 'function')) return 1;
    return Math.max(1, (await cores()) | 0);
  })();
  return count;
}

/**
 * `bytes`: a module built with threads; `imports`: the calling thread's `{math}` imports, which
 * are the exports of the compiler's own `WebAssembly.Module` `compiler` named by `names`
 * (`{"f32.exp": "math_f32_exp", ...}`). Resolves to `{exports, memory, pool, threads}`.
 */
export async function instantiate(bytes, threads, compiler, imports, names) {
  const module = await WebAssembly.compile(bytes);
  // Workers need the elementary functions only if the program calls them: then each
  // instantiates the compiler for them, so that every thread computes what the interpreter
  // computes.
  const usesMath = WebAssembly.Module.imports(module).some((i) => i.module === 'math');
  const { exports, memory, pool } = await instantiateShared(module, {
    threads,
    math: imports.math,
    workerMath: usesMath ? { module: compiler, names } : undefined,
  });
  return { exports, memory, pool, threads: pool ? pool.threads : 1 };
}
