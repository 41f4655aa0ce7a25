/**
 * How long the reference page (/docs/) takes to show its operations in Chromium, and how
 * many bytes it moves to get there, over the example shop (SCHEMAS=schemas/shop). Run with
 * `node --import tsx bench/docs-page.ts [--loads N]`: it builds the app from src/ in this
 * process, on a throw-away SQLite database, and listens on a port of its own.
 *
 * Each cold load is a new browser context (an empty cache); the warm load reopens the page
 * in the last one, where immutable assets come from the cache without a request. Times go
 * from the navigation's start until the last operation block it shows is visible (the HEAD
 * and tunnelled forms' sections start folded, so not those); bytes are what
 * Chromium received on the wire (headers included), per response and in all. The document
 * the page reads is measured too: its bytes as JSON, and as sent (brotli, as the page gets it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BrowserContext } from 'playwright-core';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { launchChromium } from '../test/helpers/browser.js';
import { median } from './median.js';

const { values } = parseArgs({ options: { loads: { type: 'string', default: '5' } } });
const loads = Number(values.loads);

interface Load {
  ms: number;
  /** The page's main thread busy time (CDP's TaskDuration): what a loaded machine inflates least. */
  busyMs: number;
  operations: number;
  bytes: number;
  responses: { url: string; bytes: number; encoding: string; cacheControl: string }[];
}

/** Opens /docs/ in `context` and waits until every operation the page shows unfolded is on screen. */
async function load(context: BrowserContext, url: string): Promise<Load> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Performance.enable');
  const pending = new Map<string, { url: string; encoding: string; cacheControl: string }>();
  const responses: Load['responses'] = [];
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    pending.set(requestId, {
      url: response.url.replace(url, ''),
      encoding: String(headers['content-encoding'] ?? '-'),
      cacheControl: String(headers['cache-control'] ?? '-'),
    });
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const response = pending.get(requestId);
    if (response) responses.push({ ...response, bytes: encodedDataLength });
  });
  const start = performance.now();
  await page.goto(`${url}/docs/`);
  const blocks = page.locator('.opblock');
  await blocks.first().waitFor();
  const operations = await blocks.count();
  await blocks.nth(operations - 1).waitFor();
  const ms = performance.now() - start;
  const { metrics } = await cdp.send('Performance.getMetrics');
  const busyMs = 1000 * (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? Number.NaN);
  await page.close();
  return { ms, busyMs, operations, bytes: responses.reduce((sum, r) => sum + r.bytes, 0), responses };
}

const dir = mkdtempSync(join(tmpdir(), 'restock-docs-page-'));
const app = await buildApp({
  // Load shedding off: the server shares this process with the browser's driver, and on a
  // busy machine its event loop can lag enough to answer the page's requests 503.
  config: defaultConfig({
    databaseUrl: `sqlite:${join(dir, 'restock.db')}`,
    schemas: 'schemas/shop',
    maxEventLoopDelay: 0,
  }),
  logStream: false,
});
const server = { url: await app.listen({ host: '127.0.0.1', port: 0 }) };
const browser = await launchChromium();
try {
  const cold: Load[] = [];
  let context: BrowserContext | undefined;
  for (let i = 0; i < loads; i++) {
    await context?.close();
    context = await browser.newContext();
    cold.push(await load(context, server.url));
  }
  const warm = context ? await load(context, server.url) : undefined;
  const last = cold.at(-1);
  if (!last || !warm) throw new Error('--loads must be at least 1');
  for (const r of last.responses) {
    process.stdout.write(`${String(r.bytes).padStart(9)} B  ${r.encoding.padEnd(5)} ${r.url}  (${r.cacheControl})\n`);
  }
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const plain = await app.inject({ url: '/docs/json' });
  const sent = await app.inject({ url: '/docs/json', headers: { 'accept-encoding': 'br' } });
  process.stdout.write(
    `document: ${kb(plain.rawPayload.length)} as JSON, ${kb(sent.rawPayload.length)} as sent (${sent.headers['content-encoding'] ?? 'identity'})\n`,
  );
  process.stdout.write(
    `${last.operations} operations; cold load: median ${median(cold.map((l) => l.ms)).toFixed(0)} ms ` +
      `(${cold.map((l) => l.ms.toFixed(0)).join(', ')}), main thread busy ${median(cold.map((l) => l.busyMs)).toFixed(0)} ms, ` +
      `${kb(last.bytes)} received; warm load: ${warm.ms.toFixed(0)} ms (busy ${warm.busyMs.toFixed(0)} ms), ${kb(warm.bytes)} received in ${warm.responses.length} responses\n`,
  );
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
