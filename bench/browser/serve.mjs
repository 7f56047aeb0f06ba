// A static file server for the benchmark page: the repository's web/ (the npm package, built into
// web/pkg by web/build.sh), bench/ (the page, the workloads, the peers in bench/node_modules) and
// examples/bench/ (the Ogham programs), on 127.0.0.1 at a free port. Nothing else is served.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ALLOWED = ['web/', 'bench/', 'examples/bench/'];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.fut': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Resolves to {url, stop}; `url` ends with a slash. */
export function startStaticServer() {
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    const file = path.resolve(root, rel);
    const inside = ALLOWED.some((a) => (file + path.sep).startsWith(path.join(root, a)));
    let ok = inside;
    try {
      ok = ok && statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, stop: () => server.close() });
    });
  });
}
