// Runs scripts the way each script tool runs them, in Debian's headless
// Chromium, against a shop page served on loopback, and reports every
// request each one made. Used by tests/chromium.rs, which judges the counts.
//
//   node tests/e2e/chromium/run.mjs CASES.json   (prints the results as JSON)
//
// CASES.json: [{ id, tool, code, target?, args? }], tool one of
// javascript_tool, browser_evaluate, evaluate_script, browser_run_code.
// Every request the browser makes goes through a proxy on loopback (the
// server below, one per lane, which is also the site): plain HTTP arrives as
// a request line, HTTPS and WebSockets as a CONNECT, which is refused. So
// every arrival is counted, whatever host a script names, and nothing leaves
// the machine. The whole run stops itself after RUN_LIMIT_MS.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { chromium } = require(path.join(here, '..', 'node_modules', 'playwright-core'));
const jquery = fs.readFileSync(path.join(here, '..', 'node_modules', 'jquery', 'dist', 'jquery.min.js'));

const CHROMIUM = process.env.PACE_HOOK_CHROMIUM || '/usr/bin/chromium';
const RUN_LIMIT_MS = 540_000;
const CALL_LIMIT_MS = 10_000;
const LANES = 4;
const SITE = 'http://shop.test';

const killer = setTimeout(() => { console.error('run.mjs: out of time'); process.exit(3); }, RUN_LIMIT_MS);
killer.unref();

// A script's own rejected promise on the server is its business.
process.on('unhandledRejection', () => {});

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

// ---- the site ----
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const products = [
  { id: 1, name: 'Lamp', price: 19.99, category: 'lighting' },
  { id: 2, name: 'Desk', price: 249.0, category: 'furniture' },
  { id: 3, name: 'Chair', price: 89.5, category: 'furniture' },
  { id: 4, name: 'Bulb', price: 4.25, category: 'lighting' },
];
const orders = [
  ['1001', '2026-11-02', '$19.99', 'Shipped'],
  ['1002', '2026-11-05', '$338.50', 'Processing'],
  ['1003', '2026-11-09', '$4.25', 'Cancelled'],
  ['1004', '2026-11-12', '$89.50', 'Shipped'],
  ['1005', '2026-11-20', '$249.00', 'Delivered'],
];
const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example Shop</title>
<meta name="description" content="Lamps, desks and chairs">
<meta property="og:title" content="Example Shop">
<link rel="icon" href="data:,">
<link rel="canonical" href="${SITE}/">
<link rel="stylesheet" href="/static/site.css">
<script src="/static/jquery.js"></script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Store","name":"Example Shop"}</script>
</head><body>
<div id="cookie-banner" class="overlay">We use cookies. <button type="button" id="accept">Accept</button></div>
<header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/about">About</a> <a href="/contact">Contact</a> <a href="https://news.example.org/story">News</a></nav></header>
<main>
<h1>Example Shop</h1>
<div id="hero" style="height:120px">Autumn sale</div>
<h2>Featured</h2>
<section id="featured">
${products.map((p, i) => `<div class="product" data-id="${p.id}" data-category="${p.category}" title="${p.name}">
  <h3 class="title">${p.name}</h3><span class="price">$${p.price.toFixed(2)}</span>
  <img src="/img/p${p.id}.png" ${i === 3 ? '' : `alt="${p.name}"`} width="40" height="40">
  <a class="more" href="/products/${p.id}">More</a></div>`).join('\n')}
</section>
<h2>Orders</h2>
<table id="orders"><thead><tr><th>Order</th><th>Date</th><th>Total</th><th>Status</th></tr></thead>
<tbody>${orders.map(r => `<tr>${r.map(c => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>
<h2>Search</h2>
<form id="search" action="/search" method="get">
  <label for="q">Search</label> <input id="q" name="q" placeholder="What are you looking for?">
  <select id="sort" name="sort"><option value="relevance">Relevance</option><option value="price">Price: low to high</option><option value="new">Newest</option></select>
  <label><input type="checkbox" id="instock" name="instock"> In stock</label>
  <button type="submit">Search</button>
</form>
<h2>Sign up</h2>
<form id="signup" action="/signup" method="post">
  <label for="email">Email</label> <input id="email" name="email" type="email">
  <label for="name">Name</label> <input id="name" name="name">
  <textarea name="message" aria-label="Message"></textarea>
  <label><input type="radio" name="plan" value="free" checked> Free</label>
  <label><input type="radio" name="plan" value="pro"> Pro</label>
  <button type="submit">Send</button>
</form>
<div id="app"><label for="react-name">Your name</label> <input id="react-name"> <span id="react-echo"></span></div>
<ul id="tags"><li>lamps</li><li>desks</li><li>chairs</li></ul>
<article><p class="intro">Our <b>Lamp</b> is back in stock.</p><p>Lamp shades, desk lamps and more.</p><p>Free shipping over $50.</p></article>
<div style="height:2500px"></div>
</main>
<footer><p>Example Shop, 2026</p></footer>
<script>
// What React does to an input: it tracks the value it last saw, so an
// assignment to .value is not a change; the native setter plus an input
// event is.
(function () {
  const input = document.getElementById('react-name');
  const echo = document.getElementById('react-echo');
  const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  let tracked = native.get.call(input);
  Object.defineProperty(input, 'value', { configurable: true,
    get() { return native.get.call(this); },
    set(v) { tracked = String(v); native.set.call(this, v); } });
  input.addEventListener('input', () => {
    const v = native.get.call(input);
    if (v !== tracked) { tracked = v; echo.textContent = v; }
  });
})();
</script>
</body></html>`;
const leanPage = (p) => `<!doctype html><html><head><meta charset="utf-8"><title>${p}</title><link rel="icon" href="data:,"></head><body><h1>Page ${p}</h1><p>Nothing else here.</p></body></html>`;

// What the shop page loads itself.
const OWN_RESOURCES = ['/static/site.css', '/static/jquery.js', ...products.map((p) => `/img/p${p.id}.png`)].map((p) => `GET ${SITE}${p}`);

function serve(req, res, url) {
  const send = (type, body, cache) => {
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': cache ? 'max-age=3600' : 'no-store' });
    res.end(body);
  };
  const p = url.pathname;
  if (p === '/' && url.host === 'shop.test') return send('text/html; charset=utf-8', page);
  if (p === '/static/site.css') return send('text/css', 'body{font-family:sans-serif}.product{display:inline-block;margin:4px}', true);
  if (p === '/static/jquery.js') return send('text/javascript', jquery, true);
  if (p.startsWith('/img/')) return send('image/png', PNG, true);
  if (p.startsWith('/fonts/')) return send('font/woff2', Buffer.from('not a font'));
  if (p.startsWith('/api/')) return send('application/json', JSON.stringify({ items: products }));
  return send('text/html; charset=utf-8', leanPage(p));
}

function lane() {
  const log = [];
  const server = http.createServer((req, res) => {
    let url;
    try { url = new URL(req.url, `http://${req.headers.host || 'shop.test'}`); } catch { url = new URL('http://shop.test/'); }
    log.push(`${req.method} ${url.href}`);
    req.resume();
    req.on('end', () => serve(req, res, url));
  });
  server.keepAliveTimeout = 1000;
  // A browser closing a context resets its connections.
  server.on('connection', (socket) => socket.on('error', () => {}));
  server.on('clientError', (_, socket) => socket.destroy());
  server.on('connect', (req, socket) => {
    socket.on('error', () => {});
    log.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('upgrade', (req, socket) => { socket.on('error', () => {}); log.push(`UPGRADE ${req.url}`); socket.destroy(); });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, log, port: server.address().port })));
}

// ---- the browser ----
const DISABLED = ['AutofillServerCommunication', 'DialMediaRouteProvider', 'GlobalMediaControls', 'HttpsUpgrades',
  'LensOverlay', 'MediaRouter', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'Translate',
  'OptimizationGuideModelDownloading', 'OptimizationHintsFetching', 'InterestFeedContentSuggestions'];
async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pace-hook-chromium-'));
  // No preconnects (the "preload pages" setting off): Chromium opens a
  // second connection to a navigation's site ahead of it, which the proxy
  // counted as a second request in 14 of 24 runs of one navigation; with this
  // set, 0 of 24.
  fs.mkdirSync(path.join(profile, 'Default'));
  fs.writeFileSync(path.join(profile, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  const child = spawn(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    // What Playwright turns off too: Chromium's own services, which would
    // otherwise arrive at the proxy beside the scripts' requests.
    '--disable-default-apps', '--disable-extensions', '--no-default-browser-check',
    '--disable-field-trial-config', '--disable-client-side-phishing-detection', '--disable-breakpad',
    '--disable-component-extensions-with-background-pages', '--metrics-recording-only',
    '--password-store=basic', '--disable-search-engine-choice-screen', '--disable-domain-reliability',
    `--disable-features=${DISABLED.join(',')}`,
    `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30_000);
    child.on('error', (e) => { clearTimeout(t); reject(e); });
    child.on('exit', (c) => { clearTimeout(t); reject(new Error(`chromium exited ${c}: ${err}`)); });
    child.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) { clearTimeout(t); resolve(m[1]); }
    });
  });
  child.removeAllListeners('exit');
  const browser = await chromium.connectOverCDP(endpoint, { timeout: 30_000 });
  const stop = async () => {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await within(5000, gone).catch(() => {});
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch { /* left in the temp dir */ }
  };
  return { browser, stop };
}

// Chromium's own services, still called on some navigations with every
// flag above (a CONNECT to www.google.com after a goto): not a script's
// request. tests/chromium.rs checks that no script names these hosts.
const CHROMIUM_OWN = /^CONNECT ([a-z0-9-]+\.)*(google\.com|googleapis\.com|gstatic\.com):443$/;

const within = (ms, p) => Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`still running after ${ms} ms`)), ms))]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Until no request has arrived for `quiet` ms (at least `least`, at most `most`).
async function settle(log, quiet, least, most) {
  const start = Date.now();
  let n = log.length, since = Date.now();
  while (Date.now() - start < most) {
    await sleep(50);
    if (log.length !== n) { n = log.length; since = Date.now(); }
    if (Date.now() - start >= least && Date.now() - since >= quiet) return;
  }
}

// The exposed globals of Playwright MCP's browser_run_code_unsafe.
const exposed = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'AbortController', 'AbortSignal', 'fetch', 'Headers', 'Request', 'Response', 'FormData', 'Blob', 'Buffer', 'crypto', 'atob', 'btoa', 'structuredClone'];

// Each tool as its server runs it.
async function runTool(p, c) {
  switch (c.tool) {
    case 'javascript_tool':
      return p.evaluate(`(async function () {\n${c.code}\n})()`);
    case 'browser_evaluate': {
      const body = async (element, expr) => { const value = eval(`(${expr})`); return typeof value === 'function' ? value(element) : value; };
      if (c.target) return p.locator(c.target).first().evaluate(body, c.code);
      return p.evaluate(async (expr) => { const value = eval(`(${expr})`); return typeof value === 'function' ? value() : value; }, c.code);
    }
    case 'evaluate_script': {
      const fn = await p.evaluateHandle(`(\n${c.code}\n)`);
      const handles = [];
      for (const sel of c.args || []) handles.push(await p.$(sel));
      return p.evaluate(async ([f, ...args]) => JSON.stringify(await f(...args)), [fn, ...handles]);
    }
    case 'browser_run_code': {
      const context = { page: p };
      for (const name of exposed) context[name] = globalThis[name];
      vm.createContext(context);
      const fn = vm.runInContext(`(${c.code})`, context);
      return fn(p);
    }
    default:
      throw new Error(`unknown tool ${c.tool}`);
  }
}

async function runCase(browser, l, c) {
  const out = { id: c.id, loaded: false, arrivals: [], counted: [], error: null };
  const context = await browser.newContext({ proxy: { server: `http://127.0.0.1:${l.port}` } });
  try {
    const p = await context.newPage();
    await within(CALL_LIMIT_MS, p.goto(`${SITE}/`, { waitUntil: 'load' }));
    out.loaded = (await p.title()) === 'Example Shop';
    await settle(l.log, 300, 300, 3000);
    const before = l.log.length;
    try {
      await within(CALL_LIMIT_MS, runTool(p, c));
    } catch (e) {
      out.error = String(e && e.message || e).split('\n')[0];
    }
    await settle(l.log, 500, 600, 5000);
    out.arrivals = l.log.slice(before).filter((a) => !CHROMIUM_OWN.test(a));
    // A navigation is one request, its page's loads part of it: where the
    // shop page itself loads again (a reload), its own stylesheet, script
    // and images are that page's, not the script's.
    const reloaded = out.arrivals.includes(`GET ${SITE}/`);
    out.counted = out.arrivals.filter((a) => !(reloaded && OWN_RESOURCES.includes(a)));
  } catch (e) {
    out.error = `the page did not load: ${String(e && e.message || e).split('\n')[0]}`;
  } finally {
    await context.close().catch(() => {});
  }
  return out;
}

const { browser, stop } = await launch();
const lanes = await Promise.all(Array.from({ length: LANES }, lane));
const results = [];
let next = 0;
try {
  await Promise.all(lanes.map(async (l) => {
    while (next < cases.length) {
      const c = cases[next++];
      const t0 = Date.now();
      results.push(await runCase(browser, l, c));
      if (process.env.PACE_HOOK_CHROMIUM_TRACE) console.error(`case ${c.id}: ${Date.now() - t0} ms`);
    }
  }));
} finally {
  await browser.close().catch(() => {});
  await stop();
  for (const l of lanes) l.server.close();
}
results.sort((a, b) => a.id - b.id);
process.stdout.write(JSON.stringify(results));
process.exit(0);
