/**
 * What serving files costs. A 1 MB picture downloaded over 50 connections from restock's
 * file route (`GET /product/{id}/files/picture/<name>`: the record read, its `view` rule,
 * the headers, the stored bytes streamed) against @fastify/static serving the same file from
 * the same folder (bench/static-files-server.ts), each pinned to the server core with wrk on
 * the other, repetitions alternating which goes first; the ratio is restock's req/s over
 * the static server's measured right next to it, its median over repetitions. Then a
 * thumbnail (400x400) of a 4000x3000 JPEG: the first request's time (the thumbnail made
 * with sharp and stored), over several products' pictures, and the time of a request once
 * it is kept, with wrk's req/s for it too.
 *
 * With `--pocketbase`, PocketBase's file route (`/api/files/…`, its official binary from
 * npm, bench/peers/pocketbase.ts) serves the same picture and makes the same thumbnail too.
 *
 * Usage: node --import tsx bench/files.ts [--reps 3] [--duration 3] [--warmup 1] [--connections 50] [--thumbs 5] [--pocketbase]
 * Loopback only (127.0.0.1); the seed is written through the store and the file storage, no HTTP.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { defaultConfig } from '../src/config/index.js';
import { loadCatalog } from '../src/core/load-catalog.js';
import { folderStorage } from '../src/store/files/folder-storage.js';
import { openStore, storeOptionsOf } from '../src/store/open-store.js';
import { storeFile } from '../test/helpers/files.js';
import { median } from './median.js';
import { startPocketBase } from './peers/pocketbase.js';
import { type BenchServer, corePins, cpuSecondsOf, freePort, startServer, waitUntilIdle } from './servers.js';
import { ensureWrk, type LoadResult, runLoad } from './wrk.js';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    thumbs: { type: 'string', default: '5' },
    pocketbase: { type: 'boolean', default: false },
  },
});
const reps = Number(values.reps);
const seconds = Number(values.duration);
const connections = Number(values.connections);
const pins = corePins();

/** The seed: a product with a 1 MB picture, and `thumbs` products with a 4000x3000 JPEG each. */
async function seed(dir: string, thumbs: number) {
  const database = join(dir, 'restock.db');
  const filesDir = join(dir, 'files');
  const config = defaultConfig({ schemas: 'schemas/shop', databaseUrl: `sqlite:${database}`, filesDir });
  const catalog = loadCatalog(config);
  const store = await openStore(config.databaseUrl, catalog, storeOptionsOf(config));
  const storage = folderStorage(filesDir);
  const products = catalog.byPlural('products');
  if (!products) throw new Error('the shop has no products');
  const records = store.collection(products);
  // Noise does not compress: about 1 MB as PNG, as a photograph would be.
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 40 };
  const bytes = await sharp({ create: { width: 680, height: 540, channels: 3, background: '#808080', noise } })
    .png()
    .toBuffer();
  const picture = await storeFile(storage, 'products', { bytes, type: 'image/png', original: 'picture.png' });
  const one = await records.create(JSON.stringify({ name: 'Picture', picture }));
  const photo = await sharp({
    create: { width: 4000, height: 3000, channels: 3, background: '#607080', noise: { ...noise, sigma: 8 } },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
  const photos: { id: number; name: string }[] = [];
  for (let i = 0; i < thumbs; i++) {
    const meta = await storeFile(storage, 'products', { bytes: photo, type: 'image/jpeg', original: 'photo.jpg' });
    photos.push({
      id: (await records.create(JSON.stringify({ name: `Photo ${i}`, picture: meta }))).id,
      name: meta.name,
    });
  }
  await store.close();
  return { database, filesDir, picture: { id: one.id, name: picture.name, size: bytes.length, bytes }, photo, photos };
}

async function load(server: BenchServer, path: string, duration: number): Promise<LoadResult> {
  const result = await runLoad({
    url: server.url,
    scenario: { method: 'GET', path, ids: 'none' },
    connections,
    seconds: duration,
    idFrom: 0,
    idTo: 0,
    pin: pins.load,
  });
  await waitUntilIdle(server);
  if (result.errors > 0) throw new Error(`${server.url}${path}: ${JSON.stringify(result.errorKinds)}`);
  return result;
}

async function timed(url: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return performance.now() - start;
}

async function main() {
  ensureWrk();
  const dir = mkdtempSync(join(tmpdir(), 'restock-bench-files-'));
  const servers: BenchServer[] = [];
  try {
    const seeded = await seed(dir, Number(values.thumbs));
    const { picture } = seeded;
    const env = { SCHEMAS: 'schemas/shop', FILES_DIR: seeded.filesDir };
    const restock = await startServer({ target: 'restock', database: seeded.database, pin: pins.server, env });
    servers.push(restock);
    const floor = await startServer({ target: 'static', database: seeded.filesDir, pin: pins.server });
    servers.push(floor);
    const paths = new Map([
      [restock, `/product/${picture.id}/files/picture/${picture.name}`],
      [floor, `/static/products/${picture.name}`],
    ]);
    for (const [server, path] of paths) await load(server, path, Number(values.warmup));
    const runs: { restock: LoadResult; floor: LoadResult; ratio: number }[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? [restock, floor] : [floor, restock];
      const results = new Map<BenchServer, LoadResult>();
      for (const server of order) results.set(server, await load(server, paths.get(server) as string, seconds));
      const mine = results.get(restock) as LoadResult;
      const theirs = results.get(floor) as LoadResult;
      runs.push({ restock: mine, floor: theirs, ratio: mine.rps / theirs.rps });
    }
    const download = {
      bytes: picture.size,
      restockRps: median(runs.map((run) => run.restock.rps)),
      staticRps: median(runs.map((run) => run.floor.rps)),
      restockP99Ms: median(runs.map((run) => run.restock.p99Ms)),
      staticP99Ms: median(runs.map((run) => run.floor.p99Ms)),
      ratio: median(runs.map((run) => run.ratio)),
      ratios: runs.map((run) => Number(run.ratio.toFixed(3))),
    };

    const thumbOf = (photo: { id: number; name: string }) =>
      `/product/${photo.id}/files/picture/${photo.name}?thumb=400x400`;
    const first: number[] = [];
    for (const photo of seeded.photos) first.push(await timed(`${restock.url}${thumbOf(photo)}`));
    const cached: number[] = [];
    const kept = seeded.photos[0] as { id: number; name: string };
    for (let i = 0; i < 50; i++) cached.push(await timed(`${restock.url}${thumbOf(kept)}`));
    const cachedLoad = await load(restock, thumbOf(kept), seconds);
    const thumbnail = {
      jpegBytes: seeded.photo.length,
      firstMs: median(first),
      firsts: first.map((ms) => Number(ms.toFixed(1))),
      cachedMs: median(cached),
      cachedRps: cachedLoad.rps,
    };
    const pocketbase = values.pocketbase
      ? await againstPocketBase(dir, seeded, restock, paths.get(restock) as string, (s) => servers.push(s))
      : undefined;
    const report = { connections, reps, seconds, pinned: pins.server.length > 0, download, thumbnail, pocketbase };
    print(report);
    if (pocketbase) {
      console.log(`\nPocketBase 0.22 (its /api/files/ route, the same picture and photo)`);
      console.log(
        `  download             ${pocketbase.rps.toFixed(0)} req/s; restock ÷ PocketBase ${pocketbase.ratio.toFixed(3)} (${pocketbase.ratios.map((r) => r.toFixed(3))})`,
      );
      console.log(
        `  thumbnail            first ${pocketbase.thumbFirstMs.toFixed(1)} ms, kept ${pocketbase.thumbKeptMs.toFixed(2)} ms`,
      );
    }
    const results = join('bench', 'results');
    mkdirSync(results, { recursive: true });
    writeFileSync(
      join(results, `files-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify(report, null, 2),
    );
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PocketBase's file route against restock's, repetitions alternating: the same picture's
 * req/s over the same connections, and a 400x400 thumbnail of each photo, first and kept.
 */
async function againstPocketBase(
  dir: string,
  seeded: Awaited<ReturnType<typeof seed>>,
  restock: BenchServer,
  restockPath: string,
  started: (server: BenchServer) => void,
) {
  const pb = await startPocketBase(join(dir, 'pb_data'), await freePort(), pins.server);
  const server: BenchServer = {
    url: pb.url,
    pid: pb.pid,
    peakRssMb: () => Number.NaN,
    cpuSeconds: () => cpuSecondsOf(pb.pid),
    stop: () => pb.stop(),
  };
  started(server);
  const path = await pb.upload(seeded.picture.bytes, 'picture.png', 'image/png');
  await load(server, path, Number(values.warmup));
  const ratios: number[] = [];
  const rps: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const mine = await load(restock, restockPath, seconds);
    const theirs = await load(server, path, seconds);
    rps.push(theirs.rps);
    ratios.push(mine.rps / theirs.rps);
  }
  const first: number[] = [];
  const photos: string[] = [];
  for (const _ of seeded.photos) photos.push(await pb.upload(seeded.photo, 'photo.jpg', 'image/jpeg'));
  for (const photo of photos) first.push(await timed(`${pb.url}${photo}?thumb=400x400`));
  const kept: number[] = [];
  for (let i = 0; i < 50; i++) kept.push(await timed(`${pb.url}${photos[0]}?thumb=400x400`));
  return { rps: median(rps), ratio: median(ratios), ratios, thumbFirstMs: median(first), thumbKeptMs: median(kept) };
}

function print({ download, thumbnail }: { download: Record<string, unknown>; thumbnail: Record<string, unknown> }) {
  const f = (n: unknown, digits = 0) => Number(n).toFixed(digits);
  console.log(`\nDownload of a ${f(Number(download.bytes) / 1e6, 2)} MB picture over ${connections} connections`);
  console.log(`  restock file route   ${f(download.restockRps)} req/s, p99 ${f(download.restockP99Ms, 1)} ms`);
  console.log(`  @fastify/static      ${f(download.staticRps)} req/s, p99 ${f(download.staticP99Ms, 1)} ms`);
  console.log(`  ratio (median)       ${f(download.ratio, 3)}  (each repetition: ${String(download.ratios)})`);
  console.log(`\nThumbnail 400x400 of a 4000x3000 JPEG (${f(Number(thumbnail.jpegBytes) / 1e6, 2)} MB)`);
  console.log(`  first request        ${f(thumbnail.firstMs, 1)} ms median (${String(thumbnail.firsts)})`);
  console.log(
    `  once kept            ${f(thumbnail.cachedMs, 2)} ms median, one at a time; ${f(thumbnail.cachedRps)} req/s over ${connections} connections`,
  );
}

await main();
