// The panels' service worker, at the site's root: the versioned files under _static/runner/
// from Cache Storage (RUNTIME_TOKEN: the runtime's digest), everything else untouched.
const CACHE = "rl-runner-RUNTIME_TOKEN";
const PREFIX = "rl-runner-";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function versioned(url) {
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(`${scope.pathname}_static/runner/`)) {
    return false;
  }
  return /\/pyodide-[^/]+\//.test(url.pathname) || url.searchParams.has("v");
}

async function answer(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.status === 200) {
    const url = new URL(request.url);
    for (const key of await cache.keys()) {
      const old = new URL(key.url);
      if (old.pathname === url.pathname && old.href !== url.href) {
        await cache.delete(key); // an older version of the same file
      }
    }
    await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method === "GET" && versioned(new URL(request.url))) event.respondWith(answer(request));
});
