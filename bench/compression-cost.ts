/**
 * What compressing a page of 100 records costs: the CPU time per response of each coding and
 * level restock could use, beside the bytes it saves, and the requests per second one
 * connection gets for the page with and without brotli. Run with
 * `node --import tsx bench/compression-cost.ts`: it builds the app from src/ in this process
 * on a throw-away SQLite database of 100 products.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { median } from './median.js';

const dir = mkdtempSync(join(tmpdir(), 'restock-compression-'));
const app = await buildApp({
  config: defaultConfig({ databaseUrl: `sqlite:${join(dir, 'restock.db')}`, maxEventLoopDelay: 0, rateLimitMax: 0 }),
  logStream: false,
});
try {
  for (let i = 0; i < 100; i++) {
    const product = { name: `Product ${i}`, sku: `SKU-${i}`, price: i + 0.5, stock: i, tags: ['kitchen', 'tea'] };
    await app.inject({ method: 'POST', url: '/product/', payload: product });
  }
  const page = Buffer.from((await app.inject({ url: '/products/?limit=100' })).body);
  process.stdout.write(`a page of 100 products: ${page.length} bytes\n`);
  const codings: [string, (bytes: Buffer) => Buffer][] = [
    ...[1, 4, 5, 6, 11].map(
      (q) =>
        [`brotli ${q}`, (b: Buffer) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: q } })] as [
          string,
          (bytes: Buffer) => Buffer,
        ],
    ),
    ...[1, 6, 9].map(
      (level) => [`gzip ${level}`, (b: Buffer) => gzipSync(b, { level })] as [string, (bytes: Buffer) => Buffer],
    ),
  ];
  for (const [name, compress] of codings) {
    const times: number[] = [];
    let size = 0;
    for (let round = 0; round < 9; round++) {
      const start = process.cpuUsage();
      for (let i = 0; i < 50; i++) size = compress(page).length;
      const used = process.cpuUsage(start);
      times.push((used.user + used.system) / 50);
    }
    process.stdout.write(
      `${name.padEnd(10)} ${String(size).padStart(6)} bytes  ${median(times).toFixed(0).padStart(6)} µs CPU each\n`,
    );
  }
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  for (const acceptEncoding of ['', 'br', 'gzip', '', 'br', 'gzip']) {
    const count = 500;
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < count; i++) await get(`${base}/products/?limit=100`, acceptEncoding);
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - start) / 1000;
    process.stdout.write(
      `one connection, Accept-Encoding "${acceptEncoding}": ${(count / seconds).toFixed(0)} req/s, ` +
        `${((used.user + used.system) / count).toFixed(0)} µs CPU per request (server and client)\n`,
    );
  }
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

function get(url: string, acceptEncoding: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    request(url, { headers }, (response) => {
      response.resume();
      response.on('end', resolve);
    })
      .once('error', reject)
      .end();
  });
}
