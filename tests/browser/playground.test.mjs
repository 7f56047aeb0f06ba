// End to end in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): load the
// playground served by `ogham serve`, pick an example, check the panes, run it (on WebGPU too),
// introduce a type error, reproduce a share link, and save a screenshot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './serve.mjs';

const out = fileURLToPath(new URL('./out/', import.meta.url));
let server;
let browser;

before(async () => {
  assert.ok(existsSync(new URL('../../www/dist/index.html', import.meta.url)), 'www/dist is not built: run www/build.sh');
  server = await startServer();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const tid = (id) => `[data-testid="${id}"]`;

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('[data-testid="editor"]')?.value.length > 0, null, { timeout: 60_000 });
  return { page, errors };
}

async function runAndWait(page) {
  await page.click(tid('run'));
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.querySelector('[data-testid="output"]')?.dataset.status),
    null,
    { timeout: 60_000 },
  );
  return page.textContent(`${tid('output')} pre`);
}

test('the playground compiles, runs, reports errors and shares', async () => {
  const { page, errors } = await open(server.url);

  // An example with an AUTOMAP insertion: the Elaborated pane shows the inserted map.
  await page.selectOption(tid('examples'), 'automap/vector_add');
  await page.waitForFunction(() => /-- inserted/.test(document.querySelector('[data-testid="pane-elaborated"]').textContent), null, { timeout: 30_000 });
  const elab = await page.textContent(tid('pane-elaborated'));
  assert.match(elab, /map/);
  assert.match(await page.locator(`${tid('pane-elaborated')} .inserted`).first().textContent(), /inserted/);
  assert.equal(await page.inputValue(tid('entry')), 'main');
  assert.equal(await page.inputValue(tid('args')), '[1, 2, 3] [4, 5, 6]');
  assert.match(await page.textContent(tid('pane-ir')), /main/);
  assert.match(await page.textContent(tid('pane-wasm')), /\(module/);
  assert.match(await page.textContent(tid('pane-wgsl')), /@compute/);
  assert.match(await page.textContent(tid('timings')), /check/);

  // Run on the wasm backend, then on the interpreter.
  await page.selectOption(tid('backend'), 'wasm');
  assert.equal((await runAndWait(page)).trim(), '[5i32, 7i32, 9i32]');
  await page.selectOption(tid('backend'), 'interp');
  assert.equal((await runAndWait(page)).trim(), '[5i32, 7i32, 9i32]');
  assert.match(await page.textContent(tid('timings')), /ms \(interp\)/);
  // Headless Chromium has navigator.gpu (SwiftShader): WebGPU is enabled and runs the example.
  assert.equal(await page.locator(`${tid('backend')} option[value="webgpu"]`).isDisabled(), false);
  await page.selectOption(tid('backend'), 'webgpu');
  assert.equal((await runAndWait(page)).trim(), '[5i32, 7i32, 9i32]');
  assert.match(await page.textContent(tid('timings')), /ms \(webgpu\)/);
  await page.selectOption(tid('backend'), 'wasm');

  // The Derivative pane.
  await page.click('button.tab:has-text("Derivative")');
  assert.ok(await page.isVisible(tid('pane-derivative')));
  assert.match(await page.textContent(`${tid('pane-derivative')} pre`), /main/);

  // A type error on line 8 shows up as a diagnostic on line 8.
  const good = await page.inputValue(tid('editor'));
  await page.fill(tid('editor'), good.trimEnd() + '\n\ndef oops (x: i32) : bool = x + 1\n');
  const line = good.trimEnd().split('\n').length + 2;
  await page.waitForSelector(`${tid('diagnostics')} .diag`, { timeout: 30_000 });
  const diag = await page.textContent(`${tid('diagnostics')} .diag`);
  assert.match(diag, new RegExp(`^line ${line}:\\d+: type error: type mismatch`));
  assert.equal(await page.getAttribute(`${tid('diagnostics')} .diag`, 'data-line'), String(line));

  // A share link reproduces the source, entry, arguments and backend.
  await page.fill(tid('editor'), good);
  await page.fill(tid('args'), '[10, 20, 30] [1, 1, 1]');
  await page.selectOption(tid('backend'), 'interp');
  await page.click(tid('share'));
  await page.waitForFunction(() => document.querySelector('[data-testid="share-link"]').value.includes('#s='));
  const link = await page.inputValue(tid('share-link'));
  const second = await open(link);
  assert.equal(await second.page.inputValue(tid('editor')), good);
  assert.equal(await second.page.inputValue(tid('args')), '[10, 20, 30] [1, 1, 1]');
  assert.equal(await second.page.inputValue(tid('entry')), 'main');
  assert.equal(await second.page.inputValue(tid('backend')), 'interp');
  assert.equal((await runAndWait(second.page)).trim(), '[11i32, 21i32, 31i32]');

  // A 2-D result is drawn as a heatmap, a 1-D one as a line plot.
  await second.page.fill(tid('editor'), 'entry grid (n: i64) : [][]f32 = tabulate_2d n n (\\i j -> f32.i64 (i * j))\nentry line (n: i64) : []f32 = map f32.i64 (iota n)\n');
  await second.page.fill(tid('entry'), 'grid');
  await second.page.fill(tid('args'), '16i64');
  await second.page.waitForFunction(() => /grid/.test(document.querySelector('[data-testid="pane-ir"]').textContent));
  await runAndWait(second.page);
  assert.equal(await second.page.locator(`${tid('output')} img.heatmap`).count(), 1);

  mkdirSync(out, { recursive: true });
  const shot = `${out}playground.png`;
  await page.fill(tid('editor'), good);
  await page.click('button.tab:has-text("Elaborated")');
  await runAndWait(page);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(second.errors, []);
});
