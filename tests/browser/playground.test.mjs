// End to end in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core): load the
// playground served by `ogham serve`, pick an example, check the panes, run it (on WebGPU too),
// introduce a type error (listed, and underlined in the editor with the message on hover),
// reproduce a share link, run random arguments, switch the Derivative pane between vjp and jvp,
// open a program from the Docs view, and save a screenshot.
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

// The editor is CodeMirror: its editable element carries the test id and a `value` property.
const editorText = (page) => page.$eval(tid('editor'), (e) => e.value);
async function setEditor(page, text) {
  await page.fill(tid('editor'), text);
  assert.equal(await editorText(page), text);
}

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
  const good = await editorText(page);
  await setEditor(page, good.trimEnd() + '\n\ndef oops (x: i32) : bool = x + 1\n');
  const line = good.trimEnd().split('\n').length + 2;
  await page.waitForSelector(`${tid('diagnostics')} .diag`, { timeout: 30_000 });
  const diag = await page.textContent(`${tid('diagnostics')} .diag`);
  assert.match(diag, new RegExp(`^line ${line}:\\d+: type error: type mismatch`));
  assert.equal(await page.getAttribute(`${tid('diagnostics')} .diag`, 'data-line'), String(line));
  // The editor underlines the span on that line; hovering it shows the message.
  const mark = page.locator('.cm-lintRange-error').first();
  await mark.waitFor({ timeout: 30_000 });
  assert.equal(await mark.evaluate((m) => m.closest('.cm-line').textContent), 'def oops (x: i32) : bool = x + 1');
  await mark.hover();
  await page.waitForSelector('.cm-tooltip-lint', { timeout: 10_000 });
  assert.match(await page.textContent('.cm-tooltip-lint'), /type mismatch/);

  // A share link reproduces the source, entry, arguments and backend.
  await setEditor(page, good);
  await page.fill(tid('args'), '[10, 20, 30] [1, 1, 1]');
  await page.selectOption(tid('backend'), 'interp');
  await page.click(tid('share'));
  await page.waitForFunction(() => document.querySelector('[data-testid="share-link"]').value.includes('#s='));
  const link = await page.inputValue(tid('share-link'));
  const second = await open(link);
  assert.equal(await editorText(second.page), good);
  assert.equal(await second.page.inputValue(tid('args')), '[10, 20, 30] [1, 1, 1]');
  assert.equal(await second.page.inputValue(tid('entry')), 'main');
  assert.equal(await second.page.inputValue(tid('backend')), 'interp');
  assert.equal((await runAndWait(second.page)).trim(), '[11i32, 21i32, 31i32]');

  // A 2-D result is drawn as a heatmap, a 1-D one as a line plot.
  await setEditor(second.page, 'entry grid (n: i64) : [][]f32 = tabulate_2d n n (\\i j -> f32.i64 (i * j))\nentry line (n: i64) : []f32 = map f32.i64 (iota n)\n');
  await second.page.fill(tid('entry'), 'grid');
  await second.page.fill(tid('args'), '16i64');
  await second.page.waitForFunction(() => /grid/.test(document.querySelector('[data-testid="pane-ir"]').textContent));
  await runAndWait(second.page);
  assert.equal(await second.page.locator(`${tid('output')} img.heatmap`).count(), 1);

  mkdirSync(out, { recursive: true });
  const shot = `${out}playground.png`;
  // Random arguments of the entry point's types run.
  await page.fill(tid('random-size'), '4');
  await page.click(tid('random'));
  await page.waitForFunction(() => document.querySelector('[data-testid="args"]').value !== '[1, 2, 3] [4, 5, 6]' &&
    /^\[\d+i32, \d+i32, \d+i32, \d+i32\] \[/.test(document.querySelector('[data-testid="args"]').value));
  assert.match(await runAndWait(page), /^\[\d+i32, \d+i32, \d+i32, \d+i32\]/);

  // The Derivative pane: vjp by default, jvp when chosen, per entry point.
  await setEditor(page, 'entry sq (x: f32) : f32 = x * x\n');
  await page.click('button.tab:has-text("Derivative")');
  await page.waitForFunction(() => /entry sq_vjp \(f32, f32\) : f32/.test(document.querySelector('[data-testid="pane-derivative"] pre').textContent));
  await page.selectOption(tid('derivative-mode'), 'jvp');
  await page.waitForFunction(() => /entry sq_jvp \(f32, f32\) : f32/.test(document.querySelector('[data-testid="pane-derivative"] pre').textContent));
  assert.equal(await page.inputValue(tid('derivative-entry')), 'sq');

  // The Docs view: a program block opens in the editor and runs.
  await page.click('button.tab:has-text("Docs")');
  assert.match(await page.textContent(`${tid('pane-docs')} h1`), /A tour of Ogham/);
  await page.locator(tid('open-code')).first().click();
  await page.waitForFunction(() => /let mean = reduce/.test(document.querySelector('[data-testid="editor"]').value));
  assert.equal(await page.inputValue(tid('entry')), 'main');
  assert.equal(await page.inputValue(tid('args')), '[1f32, 2f32, 3f32, 4f32]');
  assert.match(await runAndWait(page), /2\.5f32/);

  // Back to the first example (its source, entry and arguments) for the screenshot.
  await page.selectOption(tid('examples'), 'automap/vector_add');
  await page.waitForFunction((good) => document.querySelector('[data-testid="editor"]').value === good, good);
  await page.click('button.tab:has-text("Elaborated")');
  assert.equal((await runAndWait(page)).trim(), '[5i32, 7i32, 9i32]');
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(second.errors, []);
});
