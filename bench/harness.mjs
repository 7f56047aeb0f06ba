// Shared by the benchmark (run.mjs) and its smoke test: compiles the Ogham programs with the CLI
// (`ogham build`, SIMD and scalar modules), loads them with the JS executor (runtime/js/ogham.mjs),
// and loads the peers: TensorFlow.js on its wasm backend and jax-js on its wasm device.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { load } from '../runtime/js/ogham.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The CLI: $OGHAM if set, else the debug build (in $CARGO_TARGET_DIR if set), else `cargo run`. */
function ogham(args) {
  const bin = process.env.OGHAM ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'debug/ogham');
  if (existsSync(bin)) {
    execFileSync(bin, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  } else {
    execFileSync('cargo', ['run', '--quiet', '-p', 'ogham-cli', '--', ...args], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
}

/**
 * Compile examples/bench/FILE.fut (with threads) and load it; `simd: false` builds the scalar
 * module; `threads` is how many threads its parallel maps use (default: every core).
 */
export async function loadOgham(file, { simd = true, threads } = {}) {
  const dir = path.join(root, 'bench', '.build');
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, simd ? file : `${file}-nosimd`);
  const src = path.join(root, 'examples', 'bench', `${file}.fut`);
  ogham(['build', src, '-o', out, '--threads', ...(simd ? [] : ['--no-simd'])]);
  return load(readFileSync(`${out}.wasm`), JSON.parse(readFileSync(`${out}.json`, 'utf8')), { threads });
}

/** TensorFlow.js with the wasm backend, and jax-js on the wasm device. */
export async function loadPeers() {
  const tf = await import('@tensorflow/tfjs');
  await import('@tensorflow/tfjs-backend-wasm');
  await tf.setBackend('wasm');
  await tf.ready();
  const jax = await import('@jax-js/jax');
  await jax.init('wasm');
  jax.defaultDevice('wasm');
  return {
    tf,
    jax: { np: jax.numpy, nn: jax.nn, jit: jax.jit, grad: jax.grad },
    versions: {
      tf: tf.version.tfjs,
      tfBackend: tf.getBackend(),
      tfSimd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
      tfThreads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT'),
      jax: JSON.parse(readFileSync(path.join(root, 'bench/node_modules/@jax-js/jax/package.json'), 'utf8')).version,
    },
  };
}

export { maxRelDiff, mismatchFraction, agreement, timeRuns, timeInterleaved } from './common.mjs';
