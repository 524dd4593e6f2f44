// The Kozel service worker (scoring/table/offline.py): the app shell in a versioned cache, the
// scoreboards this phone opened kept per viewer, the offline page for the rest.
"use strict";
const CONFIG = {{ config|safe }};
const SHELL = "kozel-shell-" + CONFIG.version;
const PAGES = "kozel-pages-"; // + the viewer the pages belong to (X-Kozel-Viewer)
const PAGE_PATH = new RegExp(CONFIG.pages);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL)
      .then((cache) => cache.addAll([...CONFIG.shell, CONFIG.offline]))
      .then(() => self.skipWaiting()),
  );
});

// A new version takes over at once: the old shell goes, and the kept pages are fetched again
// (they name the static files of the version they were made with).
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("kozel-shell-") && name !== SHELL) await caches.delete(name);
    }
    for (const name of await caches.keys()) {
      if (!name.startsWith(PAGES)) continue;
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        try {
          const response = await fetch(request.url, { credentials: "same-origin" });
          if (response.ok) await keep(request.url, response);
        } catch (error) {
          // Offline while updating: the page stays as it was.
        }
      }
    }
    await self.clients.claim();
  })());
});

async function forget(except) {
  for (const name of await caches.keys()) {
    if (name.startsWith(PAGES) && name !== except) await caches.delete(name);
  }
}

// A page is kept in the cache of its viewer; a page of another viewer means another account
// on this phone now: what the last one kept goes.
async function keep(url, response) {
  const who = response.headers.get(CONFIG.viewerHeader);
  if (!who) return;
  await forget(PAGES + who);
  const cache = await caches.open(PAGES + who);
  await cache.put(url, response);
}

async function kept(url) {
  for (const name of await caches.keys()) {
    if (!name.startsWith(PAGES)) continue;
    const response = await (await caches.open(name)).match(url);
    if (response) return response;
  }
  return undefined;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET") {
    // Logging in or out: the pages kept for the account before are forgotten.
    if (request.method === "POST" && CONFIG.forget.includes(url.pathname)) event.waitUntil(forget());
    return;
  }
  if (CONFIG.shell.includes(url.pathname) || url.pathname === CONFIG.offline) {
    event.respondWith(caches.open(SHELL).then((cache) => cache.match(url.pathname))
      .then((hit) => hit || fetch(request)));
    return;
  }
  if (request.mode !== "navigate") return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      if (response.ok && PAGE_PATH.test(url.pathname) && !url.search) {
        await keep(url.pathname, response.clone());
      }
      return response;
    } catch (error) {
      const page = PAGE_PATH.test(url.pathname) ? await kept(url.pathname) : undefined;
      return page || (await caches.open(SHELL)).match(CONFIG.offline) || Response.error();
    }
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "forget") {
    event.waitUntil(forget().then(() => event.ports[0] && event.ports[0].postMessage("forgotten")));
  }
});

// Background Sync: an open page of the site sends its waiting deals (offline.js); with none open,
// the worker sends them itself, in order, each deleted only after the server recorded it (a
// conflict or a refusal stops its series: the page shows it when it is opened again).
function store(mode, work) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("kozel", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("deals", { keyPath: "key" });
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const transaction = open.result.transaction("deals", mode);
      const request = work(transaction.objectStore("deals"));
      transaction.oncomplete = () => resolve(request && request.result);
      transaction.onerror = transaction.onabort = () => reject(transaction.error);
    };
  });
}

async function sendWaiting() {
  const deals = (await store("readonly", (all) => all.getAll()))
    .sort((a, b) => a.series - b.series || a.number - b.number || a.at - b.at);
  const stopped = new Set();
  for (const deal of deals) {
    if (stopped.has(deal.series)) continue;
    const body = new URLSearchParams(deal.fields);
    body.set("number", String(deal.number));
    body.set("entry_key", deal.key);
    body.set("csrfmiddlewaretoken", deal.csrf || "");
    // No network: this throws, and the browser tries the sync again later.
    const response = await fetch(deal.url, {
      method: "POST", body, credentials: "same-origin", headers: { "HX-Request": "true", "X-CSRFToken": deal.csrf || "" },
    });
    // Recorded only on an answer that says so (a renewed link, a server away: kept).
    if (response.status === 200 && response.headers.get(CONFIG.recordedHeader)) {
      await store("readwrite", (all) => all.delete(deal.key));
    } else {
      stopped.add(deal.series);
    }
  }
}

self.addEventListener("sync", (event) => {
  if (event.tag !== "kozel-deals") return;
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((clients) => {
    if (!clients.length) return sendWaiting();
    clients.forEach((client) => client.postMessage({ type: "send-waiting" }));
    return undefined;
  }));
});
