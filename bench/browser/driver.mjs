// Drives the benchmark page (./index.html) in headless Chromium with playwright-core: Debian's
// /usr/bin/chromium with WebGPU enabled (SwiftShader's adapter where there is no GPU), the page
// served by ./serve.mjs. Used by ../run.mjs (the WebGPU table) and ../smoke.test.mjs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStaticServer } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

// The flags of tests/browser/serve.mjs (see its CHROMIUM_ARGS): WebGPU on, nothing fetched from
// the network.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Why the browser table cannot run here, or null: what is missing, as a sentence. */
export async function missing() {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is not installed`;
  if (!existsSync(path.join(root, 'web/pkg/ogham_web_bg.wasm'))) return 'web/pkg is not built (run web/build.sh)';
  for (const p of ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-webgpu', '@jax-js/jax']) {
    if (!existsSync(path.join(root, 'bench/node_modules', p))) return `bench/node_modules lacks ${p} (run npm ci in bench/)`;
  }
  try {
    await import('playwright-core');
  } catch {
    return 'playwright-core is not installed (run npm ci in the repository root)';
  }
  return null;
}

const message = (e) => String(e?.message ?? e).split('\n')[0];

/**
 * Open the page. Resolves to {info, run(name, options), close()}: `info` has the versions and the
 * adapter; `run` is the page's `bench.run`.
 */
export async function openBenchPage() {
  const { chromium } = await import('playwright-core');
  const server = await startStaticServer();
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e.message)));
    await page.goto(`${server.url}bench/browser/index.html`);
    await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 120_000 }).catch(() => {
      throw new Error(`the benchmark page did not start: ${pageErrors.join('; ') || 'no error reported'}`);
    });
    const info = await page.evaluate(() => window.bench.ready);
    info.chromium = browser.version();
    return {
      info,
      run: (name, options) => page.evaluate(([n, o]) => window.bench.run(n, o), [name, options]),
      close: async () => {
        await browser.close();
        server.stop();
      },
    };
  } catch (e) {
    await browser?.close();
    server.stop();
    throw e;
  }
}

/**
 * One workload, each implementation in a browser of its own: a GPU process that one library
 * crashes, loses or fills cannot change the others' figures, and every cell starts from the same
 * state. A cell that has not finished after `cellTimeoutMs` is an error. Resolves to the row
 * ({name, res: {ogham, tf, jax}, refError?}) and the page's info.
 */
export async function runIsolated(name, { impls = ['ogham', 'tf', 'jax'], cellTimeoutMs = 900_000, ...options } = {}) {
  const row = { name, res: {} };
  let info = null;
  for (const impl of impls) {
    let b = null;
    let timer;
    try {
      b = await openBenchPage();
      info ??= b.info;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no result after ${cellTimeoutMs / 1000} s`)), cellTimeoutMs);
      });
      const r = await Promise.race([b.run(name, { ...options, impls: [impl] }), timeout]);
      row.res[impl] = r.res[impl];
      if (r.refError) row.refError = r.refError;
    } catch (e) {
      row.res[impl] = { error: message(e) };
    } finally {
      clearTimeout(timer);
      await b?.close().catch(() => {});
    }
  }
  return { row, info };
}
