// Starts `ogham serve --port 0` (the built CLI, through cargo) and resolves to its URL. Its pages
// are cross-origin isolated (COOP and COEP headers), as threads.test.mjs checks; a server given
// by OGHAM_URL must send those headers too.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function startServer() {
  // OGHAM_URL: test a playground that is already served elsewhere.
  if (process.env.OGHAM_URL) return Promise.resolve({ url: process.env.OGHAM_URL, stop: () => {} });
  const child = spawn('cargo', ['run', '--quiet', '-p', 'ogham-cli', '--', 'serve', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`ogham serve printed no URL: ${out}`)), 600_000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /(http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: () => child.kill() });
      }
    });
    child.on('exit', (code) => reject(new Error(`ogham serve exited (${code}): ${out}`)));
  });
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
