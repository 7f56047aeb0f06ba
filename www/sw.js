// The playground's service worker: it makes the page work offline once it has loaded. Every file
// of the build (FILES, prepended by www/build.sh) is cached when the worker installs; requests go
// to the network first, so a rebuilt playground is picked up at once, and to the cache when the
// network is gone.
const CACHE = 'ogham-playground-v1';

self.addEventListener('install', (ev) => {
  ev.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(FILES);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (ev) => ev.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (ev) => {
  const req = ev.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  ev.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const res = await fetch(req);
      if (res.ok) await cache.put(req, res.clone());
      return res;
    } catch (err) {
      // The fragment (a share link) is not part of the request; the query is ignored too.
      const hit = await cache.match(req, { ignoreSearch: true });
      if (hit) return hit;
      throw err;
    }
  })());
});
