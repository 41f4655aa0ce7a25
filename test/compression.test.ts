/**
 * Compression and caching over real HTTP (node:http, which, unlike fetch, hands back the
 * bytes as sent): pages of records in brotli or gzip as asked, small bodies and the change
 * feed never, `Vary: Accept-Encoding`, ETags and 304s through compression, HEAD, and the
 * reference page's and console's versioned assets cached for good while their pages are not.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { CONSOLE_ASSETS } from '../src/http/routes/console.js';
import { STORE_KINDS, sqliteKind, type TestDatabase } from './helpers/stores.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

function send(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

/** The body as the client reads it, whatever its Content-Encoding. */
function decoded(response: Raw): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(response.body).toString('utf8');
  assert.equal(encoding, undefined);
  return response.body.toString('utf8');
}

function variesOnEncoding(response: Raw): boolean {
  return /\baccept-encoding\b/i.test(String(response.headers.vary));
}

for (const kind of STORE_KINDS) {
  describe(`compression (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let base: string;
    before(async () => {
      db = await kind.create();
      app = await buildApp({
        config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url, eventsHeartbeatSeconds: 3600 }),
        logStream: false,
      });
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      const products = Array.from({ length: 100 }, (_, i) => ({ name: `product ${i}`, sku: `SKU-${i}`, price: i }));
      for (const product of products) {
        const created = await app.inject({ method: 'POST', url: '/product/', payload: product });
        assert.equal(created.statusCode, 201);
      }
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('sends a page of 100 records in brotli or gzip as asked, the same JSON as uncompressed', async () => {
      const plain = await send(`${base}/products/?limit=100`);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(variesOnEncoding(plain), 'even uncompressed, the answer varies on Accept-Encoding');
      const records = JSON.parse(plain.body.toString('utf8'));
      assert.equal(records.length, 100);
      for (const [accept, expected] of [
        ['br', 'br'],
        ['gzip', 'gzip'],
        ['gzip, deflate, br', 'br'],
        ['br;q=0.5, gzip', 'gzip'],
      ] as const) {
        const response = await send(`${base}/products/?limit=100`, { 'accept-encoding': accept });
        assert.equal(response.headers['content-encoding'], expected, accept);
        assert.ok(variesOnEncoding(response), accept);
        assert.ok(response.body.length < plain.body.length / 3, `${accept}: ${response.body.length} bytes`);
        assert.equal(Number(response.headers['content-length'] ?? response.body.length), response.body.length);
        assert.deepEqual(JSON.parse(decoded(response)), records, accept);
      }
      for (const accept of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
        const response = await send(`${base}/products/?limit=100`, { 'accept-encoding': accept });
        assert.equal(response.headers['content-encoding'], undefined, accept);
        assert.deepEqual(response.body, plain.body, accept);
      }
    });

    it('sends a single small record as it is, ETag and 304 unchanged', async () => {
      const response = await send(`${base}/product/1/`, { 'accept-encoding': 'br, gzip' });
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-encoding'], undefined);
      assert.ok(response.body.length < 1024);
      assert.ok(response.headers.etag);
      assert.ok(variesOnEncoding(response));
    });

    it('keeps ETags and 304s working on a record large enough to be compressed', async () => {
      const description = 'a long description. '.repeat(200);
      const created = await app.inject({ method: 'POST', url: '/product/', payload: { name: 'big', description } });
      const id = JSON.parse(created.body).id as number;
      const url = `${base}/product/${id}/`;
      const plain = await send(url);
      const compressed = await send(url, { 'accept-encoding': 'br' });
      assert.equal(compressed.headers['content-encoding'], 'br');
      assert.equal(compressed.headers.etag, plain.headers.etag, "the record's version, whatever the coding");
      assert.deepEqual(JSON.parse(decoded(compressed)), JSON.parse(plain.body.toString('utf8')));
      const etag = String(compressed.headers.etag);
      const notModified = await send(url, { 'accept-encoding': 'br', 'if-none-match': etag });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.body.length, 0);
      assert.equal(notModified.headers['content-encoding'], undefined);
      assert.equal(notModified.headers.etag, etag);
      assert.ok(variesOnEncoding(notModified));
      // If-Match compares strongly: the tag a compressed answer carried still allows the write.
      const patched = await app.inject({
        method: 'PATCH',
        url: `/product/${id}/`,
        headers: { 'if-match': etag, 'content-type': 'application/merge-patch+json' },
        payload: { name: 'bigger' },
      });
      assert.equal(patched.statusCode, 200);
    });

    it('answers HEAD with the headers of the plain body and no body', async () => {
      const plain = await send(`${base}/products/?limit=100`);
      const head = await send(`${base}/products/?limit=100`, { 'accept-encoding': 'br' }, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      assert.equal(head.headers['content-encoding'], undefined);
      assert.equal(Number(head.headers['content-length']), plain.body.length);
      assert.match(String(head.headers['content-type']), /^application\/json/);
    });

    it('never compresses the change feed, which sends each event as it happens', async () => {
      const head = await send(`${base}/products/events/`, { 'accept-encoding': 'br, gzip' }, 'HEAD');
      assert.equal(head.status, 200);
      assert.match(String(head.headers['content-type']), /^text\/event-stream/);
      assert.equal(head.headers['content-encoding'], undefined);

      const { response, text } = await openFeed(`${base}/products/events/`);
      try {
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-encoding'], undefined);
        await text((received) => received.includes('retry:'));
        const created = await app.inject({ method: 'POST', url: '/product/', payload: { name: 'live' } });
        assert.equal(created.statusCode, 201);
        // The event arrives while the connection stays open: nothing holds it back for a block.
        const received = await text((sofar) => sofar.includes('event: created'));
        assert.match(received, /"name": ?"live"/);
      } finally {
        response.destroy();
      }
    });
  });
}

/** Opens a feed asking for every coding; `text` resolves once what arrived meets `ready`. */
async function openFeed(url: string) {
  const req = request(url, {
    agent: false,
    headers: { accept: 'text/event-stream', 'accept-encoding': 'br, gzip, deflate' },
  });
  req.end();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  let received = '';
  let wake: (() => void) | undefined;
  response.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    wake?.();
  });
  response.once('close', () => wake?.());
  const text = async (ready: (received: string) => boolean) => {
    while (!ready(received)) {
      if (response.destroyed || response.complete) throw new Error(`the feed ended first: ${received}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    return received;
  };
  return { response, text };
}

describe('versioned assets', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    db = await sqliteKind.create();
    app = await buildApp({ config: defaultConfig({ maxEventLoopDelay: 0, databaseUrl: db.url }), logStream: false });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  /** The local URLs a page names in src and href, resolved against it. */
  const assetsOf = (page: Raw, at: string) =>
    [...page.body.toString('utf8').matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1] as string, at).href);

  it("caches the reference page's assets for good, never the page or its document", async () => {
    const page = await send(`${base}/docs/`, { 'accept-encoding': 'br' });
    assert.equal(page.status, 200);
    assert.doesNotMatch(String(page.headers['cache-control']), /immutable|max-age=[1-9]/);
    const named = assetsOf(page, `${base}/docs/`);
    // The page preloads its document beside the assets: the document is checked on each visit (below).
    assert.ok(named.includes(`${base}/docs/json`), 'the document is preloaded');
    const assets = named.filter((url) => url !== `${base}/docs/json`);
    assert.ok(assets.some((url) => url.endsWith('/swagger-ui-bundle.js')));
    for (const url of assets) {
      assert.match(url, /\/docs\/static\/[\w-]{16}\//, url);
      const asset = await send(url, { 'accept-encoding': 'br' });
      assert.equal(asset.status, 200, url);
      assert.equal(asset.headers['cache-control'], IMMUTABLE, url);
    }
    const bundleUrl = assets.find((url) => url.endsWith('/swagger-ui-bundle.js')) as string;
    const bundle = await send(bundleUrl, { 'accept-encoding': 'br' });
    assert.equal(bundle.headers['content-encoding'], 'br');
    const plainBundle = await send(bundleUrl);
    assert.equal(plainBundle.headers['content-encoding'], undefined);
    assert.equal(decoded(bundle), plainBundle.body.toString('utf8'));
    assert.ok(bundle.body.length < plainBundle.body.length / 3);
    const gzipped = await send(bundleUrl, { 'accept-encoding': 'gzip' });
    assert.equal(decoded(gzipped), plainBundle.body.toString('utf8'));
    const revalidated = await send(bundleUrl, {
      'accept-encoding': 'gzip',
      'if-none-match': String(bundle.headers.etag),
    });
    assert.equal(revalidated.status, 304);
    const head = await send(bundleUrl, { 'accept-encoding': 'br' }, 'HEAD');
    assert.equal(head.body.length, 0);
    assert.equal(Number(head.headers['content-length']), bundle.body.length);

    const document = await send(`${base}/docs/json`, { 'accept-encoding': 'br' });
    assert.equal(document.headers['content-encoding'], 'br');
    assert.doesNotMatch(String(document.headers['cache-control']), /immutable/);
    assert.equal(JSON.parse(decoded(document)).openapi, '3.1.0');
    const openapi = await send(`${base}/openapi.json`, { 'accept-encoding': 'gzip' });
    assert.equal(openapi.headers['content-encoding'], 'gzip');
    assert.doesNotMatch(String(openapi.headers['cache-control']), /immutable/);
  });

  it("caches the console's script and style for good under their version, never the page", async () => {
    const page = await send(`${base}/`, { accept: 'text/html', 'accept-encoding': 'br' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(String(page.headers['cache-control']), /immutable|max-age=[1-9]/);
    const assets = assetsOf({ ...page, body: Buffer.from(decoded(page)) }, `${base}/`).filter((url) =>
      url.includes('/console/'),
    );
    assert.deepEqual(assets.map((url) => url.replace(/\/console\/[\w-]{16}\//, '/console/V/')).sort(), [
      `${base}/console/V/console.css`,
      `${base}/console/V/console.js`,
    ]);
    for (const url of assets) {
      const asset = await send(url, { 'accept-encoding': 'br' });
      assert.equal(asset.headers['cache-control'], IMMUTABLE, url);
      const name = url.slice(url.lastIndexOf('/') + 1);
      assert.equal(decoded(asset), readFileSync(`${CONSOLE_ASSETS}${name}`, 'utf8'), url);
    }
    // The script's relative imports land in the same version.
    const script = assets.find((url) => url.endsWith('/console.js')) as string;
    const imported = await send(new URL('./auth.js', script).href);
    assert.equal(imported.status, 200);
    assert.equal(imported.headers['cache-control'], IMMUTABLE);
    // The unversioned path still answers, but is not kept for good.
    const unversioned = await send(`${base}/console/console.js`);
    assert.equal(unversioned.status, 200);
    assert.doesNotMatch(String(unversioned.headers['cache-control']), /immutable/);
  });
});
