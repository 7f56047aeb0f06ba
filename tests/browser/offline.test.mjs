// The playground works offline once it has loaded: its service worker (www/sw.js) caches every
// file of the build, so a reload without network still compiles and runs programs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './serve.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const tid = (id) => `[data-testid="${id}"]`;

test('the playground reloads and runs offline', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => document.querySelector('[data-testid="editor"]')?.value.length > 0, null, { timeout: 60_000 });
  // The worker is installed (every file cached) and controls the page.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });

  await context.setOffline(true);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('[data-testid="editor"]')?.value.length > 0, null, { timeout: 60_000 });
  await page.waitForFunction(() => /-- inserted/.test(document.querySelector('[data-testid="pane-elaborated"]').textContent), null, { timeout: 30_000 });
  await page.selectOption(tid('backend'), 'wasm');
  await page.click(tid('run'));
  await page.waitForFunction(() => document.querySelector('[data-testid="output"]')?.dataset.status === 'done', null, { timeout: 60_000 });
  assert.equal((await page.textContent(`${tid('output')} pre`)).trim(), '[5i32, 7i32, 9i32]');
  assert.deepEqual(errors, []);
  await context.close();
});
